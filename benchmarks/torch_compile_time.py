"""Does absint make PyTorch's compiles faster? Process CPU of traced calls, absint off and on.

    python -m benchmarks.torch_compile_time [--programs offsets,split,...] [--modes off,fallback,primary,shadow]
                                            [--repeat 1] [--markdown OUT.md] [--json]

Programs of this project's own, in the style of PyTorch's compile-time benchmarks
(``benchmarks/dynamo/pr_time_benchmarks`` in PyTorch's repository), each at two sizes so the
growth shows:

* ``offsets``: sorted offsets ``o = offs.tolist()``, ``o[0] == 0``, a chain of ``o[i] <= o[i+1]``,
  ``o[-1] == size``, one ``narrow`` per slice (``torch.export``);
* ``split``: ``lengths.tolist()``, each ``>= 0``, ``sum == size``, ``values.split(lengths)`` (export);
* ``unbind_split_flip_cat``: per iteration, a sizes tensor unbound into ``.item()`` sizes, each
  checked ``>= 0``, a split by them, every piece flipped, all concatenated (export);
* ``update_hint``: ``.tolist()`` sizes, ``torch._check(x >= 0)`` (not the deprecated ``_check_is_size``) and ``<= N`` each, a split (compile);
* ``symint_sum``: the sum of ``.tolist()`` values into a tensor (compile);
* ``sum_floordiv``: the sum of ``.item()`` values, floor-divided by 2 (strict export).

Each (program, size, mode) runs in a fresh interpreter (PyTorch's sympy caches are
per process: a second trace in one process is cheaper than the first), after a warm-up
trace of a tiny program there; the figure is that process's CPU seconds for the traced call
alone. Modes: ``off`` (PyTorch alone) and absint.torch's ``fallback``, ``primary`` (with
``unknown="final"``), ``shadow``. With ``--repeat K`` the modes run interleaved (off, primary,
off, primary, ...), so each try of a mode has a try of ``off`` beside it: the ratio given is the
median of those paired ratios (each pair's machine drift cancels), the CPU the median of the
tries. The table gives CPU per mode, the ratio to ``off``, whether the
trace succeeded, runtime asserts and guards, absint's counters (asked, answered, PyTorch
decided, sent to PyTorch), and the cyclic GC's CPU and full collections inside the traced call
(``--no-gc``: the collector off during it, which separates its steps, the same in every mode,
from the trend). Exit 1 when a mode fails where ``off`` succeeds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SIZES = {"offsets": (64, 128), "split": (64, 128), "unbind_split_flip_cat": (5, 10), "update_hint": (20, 40),
         "symint_sum": (100, 200), "sum_floordiv": (50, 100)}
MODES = ("off", "fallback", "primary", "shadow")


# ---------------------------------------------------------------- the programs (run in the child)


def _program(name: str, n: int):
    """``(how, program)``: ``how`` is ``export`` (the program's dynamic dims), ``plain`` (no
    dynamic dims: the sizes that vary are ``.item()`` values), ``strict`` (strict export) or ``compile``;
    the program a ``tests/support/torch_programs.Program`` (function, example, dynamic dims)."""
    import torch

    sys.path.insert(0, str(ROOT / "tests" / "support"))
    import torch_programs as tp
    from benchmarks.torch_scale import offsets_program, split_program

    if name in ("offsets", "split"):
        return "export", (offsets_program if name == "offsets" else split_program)(n)
    if name == "unbind_split_flip_cat":
        return "plain", tp.Program(name, "jagged", _unbind_split_flip_cat(n), _sized_batches(n, 32), ())
    if name == "update_hint":
        def update_hint(a, b):
            xs = b.tolist()
            for x in xs:
                torch._check(x >= 0)
                torch._check(x <= n)
            return a.split(xs)

        splits = torch.tensor([(7 * i) % 10 for i in range(n)])
        return "compile", tp.Program(name, "jagged", update_hint, (torch.randn(int(splits.sum())), splits), ())
    if name == "symint_sum":
        def symint_sum(a):
            return torch.tensor(sum(a.tolist()))

        return "compile", tp.Program(name, "item", symint_sum, (torch.tensor([(3 * i) % 10 for i in range(n)]),), ())
    if name == "sum_floordiv":
        def sum_floordiv(x):
            return sum(t.item() for t in x) // 2

        return "strict", tp.Program(name, "item", sum_floordiv, ([torch.tensor(i + 2) for i in range(n)],), ())
    raise ValueError(f"unknown program {name!r}")


def _unbind_split_flip_cat(iterations: int):
    import torch

    def unbind_split_flip_cat(sizes, data):
        out = []
        for i in range(iterations):
            items = [t.item() for t in torch.unbind(sizes[i].to(torch.int64))]
            for x in items:
                torch._check(x >= 0)
            pieces = torch.split(data[i], items)
            out.append(torch.cat([torch.flip(p, [0]) for p in pieces]))
        return out

    return unbind_split_flip_cat


def _sized_batches(iterations: int, batch: int):
    import torch

    sizes = [torch.tensor([1 + (i * 7 + j * 3) % 9 for j in range(batch)]) for i in range(iterations)]
    return sizes, [torch.arange(int(s.sum())) for s in sizes]


def _trace(how: str, p):
    """The traced call; returns (runtime asserts in the graph, guards)."""
    import torch
    import torch_programs as tp

    if how in ("strict", "plain"):  # export without dynamic shapes: the sizes are the .item() values
        class M(torch.nn.Module):
            def forward(self, *args):
                return p.fn(*args)

        ep = torch.export.export(M(), p.example, strict=(how == "strict"))
        return tp._assert_nodes(ep.graph_module), 0
    out = tp.RUNNERS[how](p)
    return out.asserts, out.guards


def child(name: str, n: int, mode: str, collector: bool = True) -> dict:
    """One traced call in this (fresh) process, after a warm-up; what the parent prints.
    ``collector=False``: the cyclic GC is off during the call (``--no-gc``)."""
    import gc

    import torch

    import torch._dynamo.config as dynamo_config
    from absint import torch as absint_torch

    dynamo_config.capture_scalar_outputs = True
    dynamo_config.capture_dynamic_output_shape_ops = True
    how, p = _program(name, n)
    for warm in ("export", "compile"):  # warm-up: PyTorch's lazy imports and first-use costs
        _trace(warm, _program("offsets", 4)[1])
    import absint.api.shape_reasoner  # noqa: F401 - absint's own imports (islpy) are once per process too
    import islpy  # noqa: F401
    if mode != "off":
        absint_torch.install(mode, unknown="final")
    if not collector:
        gc.collect()
        gc.disable()
    collections = _CollectorTime()
    gc.callbacks.append(collections)
    start = time.process_time()
    try:
        asserts, guards = _trace(how, p)
        ok, error = True, None
    except Exception as e:  # noqa: BLE001 - the outcome is what is measured
        asserts = guards = 0
        ok, error = False, type(e).__name__
    cpu = time.process_time() - start
    gc.callbacks.remove(collections)
    gc.enable()
    stats = absint_torch.stats() if mode != "off" else {}
    return {"program": name, "n": n, "mode": mode, "cpu": cpu, "ok": ok, "error": error, "asserts": asserts,
            "guards": guards, "asked": stats.get("asked", 0), "answered": stats.get("answered", 0),
            "torch_decided": stats.get("torch_decided", 0), "disagreements": stats.get("disagreements", 0),
            "to_torch": stats.get("unread", 0) + stats.get("unknown_to_torch", 0),
            "final_unknown": stats.get("final_unknown", 0), "passed_through": stats.get("passed_through", 0),
            "unbacked_kept": stats.get("unbacked_kept", 0), "gc_seconds": collections.seconds,
            "full_collections": collections.full}


class _CollectorTime:
    """The cyclic GC's CPU inside the traced call (``gc.callbacks``), and its full collections:
    they run at heap thresholds, so their count steps with the program's size in every mode."""

    def __init__(self):
        self.seconds, self.full, self._start = 0.0, 0, 0.0

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._start = time.process_time()
            return
        self.seconds += time.process_time() - self._start
        self.full += info["generation"] == 2


# ---------------------------------------------------------------- the parent


def run(name: str, n: int, mode: str, collector: bool = True) -> dict:
    flags = [] if collector else ["--no-gc"]
    out = subprocess.run([sys.executable, "-m", "benchmarks.torch_compile_time", "--child", name, str(n), mode, *flags],
                         cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if out.returncode != 0 or not lines:
        return {"program": name, "n": n, "mode": mode, "cpu": float("nan"), "ok": False,
                "error": (out.stderr.strip().splitlines() or ["crashed"])[-1][:80]}
    return json.loads(lines[-1])


def _median(rows: list[dict]) -> dict:
    rows = sorted(rows, key=lambda r: r["cpu"])
    return rows[len(rows) // 2]


def _paired_ratio(tries: list[dict], offs: list[dict]) -> float:
    """The median of the ratios of runs made side by side (try i of a mode against try i of off):
    the machine's drift between runs cancels in each pair."""
    ratios = sorted(a["cpu"] / b["cpu"] for a, b in zip(tries, offs) if b["cpu"])
    return ratios[len(ratios) // 2] if ratios else float("nan")


def markdown(rows: list[dict]) -> str:
    out = ["| program | N | mode | CPU s | vs off | traced | asserts | asked | answered | PyTorch decided | "
           "to PyTorch | final None | disagreements | GC s | full GCs |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['program']} | {r['n']} | {r['mode']} | {r['cpu']:.2f} | {r.get('ratio', 1):.2f} | "
                   f"{'ok' if r['ok'] else r['error']} | {r.get('asserts', 0)} | {r.get('asked', '')} | "
                   f"{r.get('answered', '')} | {r.get('torch_decided', '')} | {r.get('to_torch', '')} | "
                   f"{r.get('final_unknown', '')} | {r.get('disagreements', '')} | {r.get('gc_seconds', 0):.2f} | "
                   f"{r.get('full_collections', '')} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.torch_compile_time",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", default=",".join(SIZES), help="comma-separated (default: all)")
    ap.add_argument("--modes", default=",".join(MODES), help="comma-separated (default: %(default)s)")
    ap.add_argument("--sizes", help="comma-separated N for every program (default: each program's two)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs per cell, the modes interleaved; the median CPU kept, and the median of the "
                         "paired ratios to off (default 1)")
    ap.add_argument("--markdown", help="write the table here")
    ap.add_argument("--json", action="store_true", help="print the rows as one JSON array at the end")
    ap.add_argument("--no-gc", action="store_true",
                    help="the cyclic GC off during each traced call (after a collection): its full "
                         "collections step at heap thresholds in every mode; this separates them from the trend")
    ap.add_argument("--child", nargs=3, metavar=("PROGRAM", "N", "MODE"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]), args.child[2], collector=not args.no_gc)))
        return 0
    programs = [p for p in args.programs.split(",") if p]
    modes = [m for m in args.modes.split(",") if m]
    if "off" not in modes:
        modes.insert(0, "off")
    bad = (set(programs) - set(SIZES)) | (set(modes) - set(MODES))
    if bad:
        ap.error(f"unknown: {', '.join(sorted(bad))}")
    rows, worse = [], False
    print(f"{'program':22} {'N':>4} {'mode':>9} {'CPU s':>7} {'vs off':>6} {'traced':>8} {'asserts':>7} "
          f"{'asked':>6} {'answered':>8} {'torch':>6} {'to torch':>8} {'final':>6} {'GC s':>5} {'full':>4}")
    for name in programs:
        sizes = [int(x) for x in args.sizes.split(",")] if args.sizes else SIZES[name]
        for n in sizes:
            for r in paired(lambda mode: run(name, n, mode, not args.no_gc), modes, args.repeat):
                worse |= r["worse"]
                rows.append(r)
                print(f"{name:22} {n:>4} {r['mode']:>9} {r['cpu']:>7.2f} {r['ratio']:>6.2f} "
                      f"{'ok' if r['ok'] else r['error'][:8]:>8} {r.get('asserts', 0):>7} {r.get('asked', 0):>6} "
                      f"{r.get('answered', 0):>8} {r.get('torch_decided', 0):>6} {r.get('to_torch', 0):>8} "
                      f"{r.get('final_unknown', 0):>6} {r.get('gc_seconds', 0):>5.2f} {r.get('full_collections', 0):>4}",
                      flush=True)
    return finish(rows, markdown, args, worse)


def paired(run_mode, modes: list[str], repeat: int) -> list[dict]:
    """Each mode run ``repeat`` times, interleaved (off, primary, off, primary, ...), so each
    try of a mode has a try of off beside it: per mode, the median try, with ``ratio`` the
    median of the pairs' ratios, ``ratios`` each pair's, ``worse`` whether it failed where off
    did not. ``modes`` starts with ``off``."""
    tries = {mode: [] for mode in modes}
    for _ in range(max(1, repeat)):
        for mode in modes:
            tries[mode].append(run_mode(mode))
    base = _median(tries["off"])
    out = []
    for mode in modes:
        r = _median(tries[mode])
        r["ratio"] = _paired_ratio(tries[mode], tries["off"])
        r["ratios"] = [round(a["cpu"] / b["cpu"], 3) if b["cpu"] else None for a, b in zip(tries[mode], tries["off"])]
        r["worse"] = mode != "off" and base["ok"] and not r["ok"]
        out.append(r)
    return out


def finish(rows: list[dict], to_markdown, args, worse: bool) -> int:
    """The table written (``--markdown``), the rows printed (``--json``); exit 1 when worse."""
    if args.markdown:
        Path(args.markdown).write_text(to_markdown(rows))
    if args.json:
        print(json.dumps(rows))
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main())
