"""Real models exported or compiled with absint off and on: does absint pay off, and does its
cost per question stay flat as the model grows?

    python -m benchmarks.torch_models [--families ebc,prefix_split,...] [--sizes N,...]
                                      [--modes off,primary,shadow,fallback] [--repeat K]
                                      [--markdown OUT.md] [--plot OUT.png] [--profile DIR] [--json]

Families (:mod:`benchmarks.real_models`): torchrec's EmbeddingBagCollection (``ebc``) and
EmbeddingCollection (``ec``) with a dynamic KeyedJaggedTensor, a module calling the KJT's own
``to_dict``/``split``/``permute`` (``kjt_ops``), at F features; a prefix-sum split written as
model code writes it (``prefix_split``), at N lengths; tiny Hugging Face GPT-2, Llama, BERT
exported with a dynamic sequence length (and GPT-2 under ``torch.compile`` with Inductor,
``gpt2_inductor``); timm's resnet18 with dynamic batch and resolution. A family whose package
is absent (or, for torchrec, whose fbgemm does not load with this torch) is skipped with
the reason.

Each (family, size, mode) runs in a fresh interpreter, after a warm-up trace of the family's
smallest size there; the figure is that process's CPU for the traced call. With ``--repeat
K`` the modes run interleaved (off, primary, off, primary, ...), the ratio to off is the
median of the pairs' ratios. Per run: CPU; absint's questions (asked, answered, left open,
``unbacked_only`` calls answered with the question, calls passed through, questions the
witness points showed open: no reasoner decides those) and its time per question (decide
time / asked; sync apart); PyTorch's static evaluation, timed at the outermost
``ShapeEnv._maybe_evaluate_static`` (under absint: the part PyTorch still does), whose
share of off's CPU gives the *ceiling* (1 minus it: what primary would cost if absint
answered everything for free); runtime asserts and guards of the result; and whether the
result accepts and rejects the family's other inputs as the one traced off does. Exit 1
when a mode fails where off succeeds, rejects or accepts differently, or disagrees (shadow).
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.real_models import FAMILIES, missing
from benchmarks.torch_compile_time import paired

ROOT = Path(__file__).resolve().parent.parent
MODES = ("off", "fallback", "primary", "shadow")


# ---------------------------------------------------------------- the child


class _Collections:
    """The process's garbage collections during the traced call, and those that began inside
    absint's question answering (``ShapeEnvBridge._decide``): a full collection walks torch's
    whole heap (a few tenths of a second), and whichever call allocates the object that
    triggers it pays, so one landing inside absint doubled its time per question at EBC 256
    without any work of its own changing (with the collector off the two commits matched)."""

    def __init__(self) -> None:
        self.seconds = self.in_decide = 0.0
        self.inside = 0
        self._start: float | None = None
        self._started_inside = False

    def callback(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._start, self._started_inside = time.perf_counter(), bool(self.inside)
        elif self._start is not None:
            spent = time.perf_counter() - self._start
            self.seconds += spent
            self.in_decide += spent if self._started_inside else 0.0
            self._start = None

    def watch(self, cls, attr: str) -> None:
        original = cls.__dict__[attr]

        @functools.wraps(original)
        def watched(obj, *args, **kwargs):
            self.inside += 1
            try:
                return original(obj, *args, **kwargs)
            finally:
                self.inside -= 1

        setattr(cls, attr, watched)


def _timed_outermost(cls, attr: str, total: list[float]) -> None:
    """``cls.attr`` replaced by a wrapper that adds the CPU of its outermost calls to ``total[0]``."""
    original = cls.__dict__[attr]
    depth = [0]

    @functools.wraps(original)  # keeps PyTorch's lru_cache attributes (cache_clear)
    def timed(self, *args, **kwargs):
        if depth[0]:
            return original(self, *args, **kwargs)
        depth[0] += 1
        start = time.process_time()
        try:
            return original(self, *args, **kwargs)
        finally:
            total[0] += time.process_time() - start
            depth[0] -= 1

    setattr(cls, attr, timed)


def _trace(case):
    """The traced call: (runtime asserts, guards, what runs the result)."""
    import torch

    if case.how == "export":
        ep = torch.export.export(case.module, case.args, dynamic_shapes=case.dynamic_shapes, strict=False)
        return _asserts(ep.graph_module), len(ep.range_constraints), ep.module()
    from torch._guards import TracingContext
    from torch._inductor.compile_fx import compile_fx

    seen: dict = {}

    def backend(gm, example_inputs):
        seen["shape_env"] = TracingContext.get().fake_mode.shape_env
        seen["asserts"] = seen.get("asserts", 0) + _asserts(gm)
        return compile_fx(gm, example_inputs)

    torch._dynamo.reset()
    compiled = torch.compile(case.module, dynamic=True, backend=backend)
    compiled(*case.args)
    return seen.get("asserts", 0), len(seen["shape_env"].guards), compiled


def _asserts(gm) -> int:
    return sum(1 for n in gm.graph.nodes if n.op == "call_function" and
               ("assert" in str(n.target) or "constrain_range" in str(n.target)))


def _accepts(run, inputs) -> list[bool]:
    """Whether the traced result runs on each input (a rejected input raises)."""
    out = []
    for args, _ in inputs:
        try:
            run(*args)
            out.append(True)
        except Exception:  # noqa: BLE001 - rejection is the outcome measured
            out.append(False)
    return out


def _warm_up(case) -> None:
    """PyTorch's lazy imports and first-use costs paid before the measured call: a tiny
    export of another program, the model run eagerly once; then sympy's caches emptied, so
    that the measured trace starts as in a fresh process (a trace of the same model would
    leave the answers to its own questions cached)."""
    import sympy

    from benchmarks.real_models import prefix_split

    _trace(prefix_split(3))
    case.module(*case.args)
    import absint.api.shape_reasoner  # noqa: F401 - absint's own imports are once per process too
    import islpy  # noqa: F401

    sympy.core.cache.clear_cache()
    gc.collect()


def child(family: str, n: int, mode: str, profile: str | None = None, trace: str | None = None) -> dict:
    """One traced call in this (fresh) process, after a warm-up; what the parent prints."""
    import torch
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    import absint.torch as absint_torch

    case = FAMILIES[family].build(n)
    _warm_up(case)
    torch_static, total_static = [0.0], [0.0]
    _timed_outermost(ShapeEnv, "_maybe_evaluate_static", torch_static)
    if mode != "off":
        absint_torch.install(mode, unknown="final")
        absint_torch.record(trace)
    _timed_outermost(ShapeEnv, "_maybe_evaluate_static", total_static)
    from absint.torch.bridge import ShapeEnvBridge

    collections = _Collections()
    collections.watch(ShapeEnvBridge, "_decide")
    gc.collect()
    gc.callbacks.append(collections.callback)
    profiler = _profiler(profile)
    start = time.process_time()
    try:
        asserts, guards, run = _trace(case)
        ok, error = True, None
    except Exception as e:  # noqa: BLE001 - the outcome is what is measured
        asserts = guards = 0
        run, ok, error = None, False, f"{type(e).__name__}: {str(e)[:120]}"
    cpu = time.process_time() - start
    gc.callbacks.remove(collections.callback)
    _dump(profiler, profile, family, n, mode)
    absint_torch.record(None)
    absint_torch.uninstall()
    stats = absint_torch.stats() if mode != "off" else {}
    return {"family": family, "n": n, "mode": mode, "torch": torch.__version__, "cpu": cpu, "ok": ok, "error": error,
            "asserts": asserts, "guards": guards, "torch_static": torch_static[0], "static": total_static[0],
            "accepts": _accepts(run, case.inputs) if ok else [], "expected": [want for _, want in case.inputs],
            "gc_seconds": collections.seconds, "gc_in_decide_seconds": collections.in_decide, **_counts(stats)}


def _counts(stats: dict) -> dict:
    keys = ("asked", "answered", "torch_decided", "final_unknown", "unbacked_kept", "passed_through", "unread",
            "unknown_to_torch", "shown_open", "disagreements", "torch_only", "decide_seconds", "sync_seconds",
            "check_failures")
    out = {k: stats.get(k, 0) for k in keys}
    out["by_layer"] = stats.get("decided_by_layer", {})
    out["errors"] = stats.get("errors", {})
    return out


def _profiler(profile: str | None):
    if profile is None:
        return None
    import cProfile

    p = cProfile.Profile()
    p.enable()
    return p


def _dump(profiler, profile: str | None, family: str, n: int, mode: str) -> None:
    if profiler is not None:
        profiler.disable()
        Path(profile).mkdir(parents=True, exist_ok=True)
        profiler.dump_stats(str(Path(profile) / f"{family}{n}-{mode}.prof"))


# ---------------------------------------------------------------- the parent


def run(family: str, n: int, mode: str, profile: str | None = None, trace: str | None = None) -> dict:
    extra = (["--profile", profile] if profile else []) + (["--trace", trace] if trace else [])
    out = subprocess.run([sys.executable, "-m", "benchmarks.torch_models", "--child", family, str(n), mode, *extra],
                         cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if out.returncode != 0 or not lines:
        return {"family": family, "n": n, "mode": mode, "cpu": float("nan"), "ok": False,
                "error": (out.stderr.strip().splitlines() or ["crashed"])[-1][:120]}
    return json.loads(lines[-1])


def per_question_ms(r: dict) -> float | None:
    """absint's decide time per question asked, in ms, the process's garbage collections that
    began inside it counted apart (``gc_in_decide_seconds``, shown in its own column)."""
    if not r.get("asked"):
        return None
    return 1000 * (r["decide_seconds"] - r.get("gc_in_decide_seconds", 0.0)) / r["asked"]


def finish_row(r: dict, off: dict) -> dict:
    """The figures derived against off's run: the ceiling, whether the result behaves as off's."""
    r["ceiling"] = 1 - off.get("torch_static", 0) / off["cpu"] if off.get("ok") and off["cpu"] else None
    r["same_inputs"] = r.get("accepts") == off.get("accepts")
    r["ms_per_question"] = per_question_ms(r)
    r["worse"] = r["worse"] or (r["mode"] != "off" and off.get("ok") and r.get("ok") and not r["same_inputs"]) \
        or bool(r.get("disagreements"))
    return r


def markdown(rows: list[dict]) -> str:
    out = ["| family | N | torch | mode | CPU s | vs off | ceiling | asked | answered | open (shown) | "
           "unbacked_only kept | passed | ms / question | GC in absint s | PyTorch static s | asserts | inputs as off | "
           "traced |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ms = r.get("ms_per_question")
        out.append(f"| {r['family']} | {r['n']} | {r.get('torch', '')} | {r['mode']} | {r['cpu']:.2f} | "
                   f"{r.get('ratio', 1):.2f} | {_f(r.get('ceiling'))} | {r.get('asked', '')} | "
                   f"{r.get('answered', '')} | {r.get('final_unknown', '')} ({r.get('shown_open', '')}) | "
                   f"{r.get('unbacked_kept', '')} | {r.get('passed_through', '')} | {'' if ms is None else f'{ms:.2f}'} | "
                   f"{r.get('gc_in_decide_seconds', 0):.2f} | {r.get('torch_static', 0):.2f} | {r.get('asserts', '')} | {'yes' if r.get('same_inputs') else 'NO'} | "
                   f"{'ok' if r['ok'] else r['error']} |")
    return "\n".join(out) + "\n"


def _f(x) -> str:
    return "" if x is None else f"{x:.2f}"


def plot(rows: list[dict], path: str) -> None:
    """The ratio to off and absint's ms per question against the size, per family (primary)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    for family in dict.fromkeys(r["family"] for r in rows):
        mine = sorted((r for r in rows if r["family"] == family and r["mode"] == "primary" and r["ok"]),
                      key=lambda r: r["n"])
        if len(mine) < 2:
            continue
        ns = [r["n"] for r in mine]
        left.plot(ns, [r["ratio"] for r in mine], marker="o", label=family)
        right.plot(ns, [r["ms_per_question"] or 0 for r in mine], marker="o", label=family)
    for ax, title in ((left, "primary / off (process CPU)"), (right, "absint ms per question")):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("size (features or lengths)")
        ax.set_title(title)
        ax.grid(True, alpha=0.3)
        ax.legend()
    left.set_ylim(bottom=0)
    right.set_ylim(bottom=0)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def _arguments(argv):
    ap = argparse.ArgumentParser(prog="python -m benchmarks.torch_models", description=__doc__.split("\n\n")[0])
    ap.add_argument("--families", default="ebc,prefix_split,gpt2,llama,bert,resnet18",
                    help=f"comma-separated, of {', '.join(FAMILIES)} (default: %(default)s)")
    ap.add_argument("--sizes", help="comma-separated N for every family (default: each family's own)")
    ap.add_argument("--modes", default="off,primary", help="comma-separated, of %s (default: %%(default)s)" % ", ".join(MODES))
    ap.add_argument("--repeat", type=int, default=1, help="runs per cell, the modes interleaved (default 1)")
    ap.add_argument("--markdown", help="write the table here")
    ap.add_argument("--plot", help="write the ratio and time per question against size here (PNG)")
    ap.add_argument("--profile", help="a cProfile of each traced call, written to this folder")
    ap.add_argument("--json", action="store_true", help="print the rows as one JSON array at the end")
    ap.add_argument("--kinds", action="store_true",
                    help="instead of timing: one primary run per family and size, recorded, and the questions "
                         "absint answered and left open counted by their shape (u: an unbacked size, s: a backed "
                         "one), with how many of the open ones the witness points showed open")
    ap.add_argument("--trace", help=argparse.SUPPRESS)
    ap.add_argument("--child", nargs=3, metavar=("FAMILY", "N", "MODE"), help=argparse.SUPPRESS)
    return ap, ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    ap, args = _arguments(argv)
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]), args.child[2], args.profile, args.trace)))
        return 0
    if args.kinds:
        return kinds_table(args)
    families = [f for f in args.families.split(",") if f]
    modes = [m for m in args.modes.split(",") if m]
    if "off" not in modes:
        modes.insert(0, "off")
    bad = (set(families) - set(FAMILIES)) | (set(modes) - set(MODES))
    if bad:
        ap.error(f"unknown: {', '.join(sorted(bad))}")
    rows, worse = [], False
    for family in families:
        reason = missing(FAMILIES[family])
        if reason is not None:
            print(f"{family}: skipped: {reason}", flush=True)
            continue
        sizes = [int(x) for x in args.sizes.split(",")] if args.sizes else FAMILIES[family].sizes
        for n in sizes:
            cell = paired(lambda mode: run(family, n, mode, args.profile), modes, args.repeat)
            off = cell[0]
            for r in cell:
                finish_row(r, off)
                worse |= r["worse"]
                rows.append(r)
                _print_row(r)
    if args.markdown:
        Path(args.markdown).write_text(markdown(rows))
    if args.plot and rows:
        plot(rows, args.plot)
    if args.json:
        print(json.dumps(rows))
    return 1 if worse else 0


def shape(smt: str) -> str:
    """A question's shape: sizes named ``u`` (unbacked) and ``s`` (backed), runs of summands
    folded (``u + ... + u``), numbers other than 0, 1, -1 shown as ``c``."""
    out = re.sub(r"\bu\d+\b", "u", smt)
    out = re.sub(r"\bs\d+\b", "s", out)
    out = re.sub(r"\(\* \(- 1\) ([us])\)", r"-\1", out)
    out = re.sub(r"(-?[us])( -?[us]){2,}", r"\1 ... \1", out)
    return re.sub(r"\b(?!0\b|1\b)\d+\b", "c", out)


def kinds_table(args) -> int:
    """``--kinds``: each family and size run once under primary with a trace; the questions
    counted by shape and answer (open ones: how many the points showed open)."""
    import collections
    import tempfile

    for family in [f for f in args.families.split(",") if f]:
        reason = missing(FAMILIES[family])
        if reason is not None:
            print(f"{family}: skipped: {reason}")
            continue
        for n in [int(x) for x in args.sizes.split(",")] if args.sizes else FAMILIES[family].sizes[-1:]:
            with tempfile.TemporaryDirectory() as d:
                r = run(family, n, "primary", trace=f"{d}/trace.jsonl")
                counts = collections.Counter(
                    (shape(e["smt"]), e["absint"]) for e in map(json.loads, open(f"{d}/trace.jsonl"))
                    if e.get("t") == "q")
            print(f"{family} {n}: asked {r.get('asked')}, answered {r.get('answered')}, left open "
                  f"{r.get('final_unknown')}, of which shown open {r.get('shown_open')}")
            for (text, answer), k in counts.most_common():
                print(f"  {k:>6}  {answer:>7}  {text}")
    return 0


def _print_row(r: dict) -> None:
    ms, gc_in = r.get("ms_per_question"), r.get("gc_in_decide_seconds", 0.0)
    print(f"{r['family']:14} {r['n']:>4} {r['mode']:>8} CPU {r['cpu']:7.2f} s  vs off {r.get('ratio', 1):5.2f}  "
          f"ceiling {_f(r.get('ceiling')):>5}  asked {r.get('asked', 0):>5}  answered {r.get('answered', 0):>5}  "
          f"open {r.get('final_unknown', 0):>5} ({r.get('shown_open', 0)} shown)  "
          f"{'' if ms is None else f'{ms:.3f} ms/q (GC {gc_in:.2f} s apart)'}  torch static {r.get('torch_static', 0):.2f} s  "
          f"{'ok' if r['ok'] else r['error'][:60]}{'' if r.get('same_inputs', True) else '  INPUTS DIFFER'}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
