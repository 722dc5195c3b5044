"""Inductor's size questions with and without absint: 32-bit kernels, guards, recompiles, CPU.

    python -m benchmarks.torch_inductor [--programs product_bound,...] [--modes off,primary]
                                        [--repeat 1] [--markdown OUT.md] [--json]

``torch.compile(backend="inductor")`` on CPU with Inductor's Halide backend (``pip install
halide``): the CPU backend that, like Triton on a GPU, chooses 32-bit or 64-bit indexing per
kernel (``SIMDKernelFeatures.select_index_dtype``: ``expr_fits_within_32bit`` of the kernel's
size and buffers, a plain ``statically_known_true(e <= 2**31 - 1)``, else the hint, guarded).
Without halide the C++ backend is used and the int32 columns say so (its kernels index in
``int64_t``). Programs of this project's own:

* ``product_bound``: ``a, b = n.tolist()``, ``a * b <= 2**24``; ``ones(a, b) * x.sum() + 1``.
  PyTorch's ranges cannot bound a product of two unbacked sizes;
* ``jagged_sum``: 16 ``.tolist()`` lengths, each ``>= 0``, their sum ``<= 2**28``; one ``int8``
  piece per length, concatenated, doubled. PyTorch bounds each length, not the sum;
* ``backed_product``: a dynamic ``x`` (backed sizes), ``x.size(0) * x.size(1) <= 2**20`` checked,
  ``(x * 2).sum(1)``: PyTorch indexes in int32 behind a guard of its own, absint from the check;
* ``pointwise``: a dynamic batch scaled, shifted, ReLU'd and summed: a compile that asks little.

Each (program, mode) runs in a fresh interpreter after a warm-up compile; the figures: process
CPU of the first compiled call (kernels compiled in-process: ``compile_threads = 1``), kernels in int32/int64, guards of the ShapeEnv, graphs compiled
over the later calls (recompiles), every output equal to eager's at every size (among them the
facts' bound, where an int32 kernel would overflow first), absint's counters.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.torch_compile_time import finish, paired

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ("product_bound", "jagged_sum", "backed_product", "pointwise")
MODES = ("off", "fallback", "primary", "shadow")


# ---------------------------------------------------------------- the programs (run in the child)


def _program(name: str):
    """``(function, dynamic, calls)``: the first call compiles, the others look for recompiles
    and wrong results (sizes at the facts' bounds among them). No later call is smaller than
    the first: Inductor's Halide kernels (torch 2.13, halide 19) abort the process on a
    dynamic size below the one they were compiled at, with absint or without."""
    import torch

    if name == "product_bound":
        def product_bound(x, n):
            a, b = n.tolist()
            torch._check(a >= 1)
            torch._check(b >= 1)
            torch._check(a * b <= 2 ** 24)
            return torch.ones(a, b) * x.sum() + 1

        x = torch.randn(3)
        return product_bound, False, [(x, torch.tensor(ab)) for ab in ([1, 1], [5, 7], [4096, 4096], [1, 2 ** 24])]
    if name == "jagged_sum":
        def jagged_sum(n):
            ls = n.tolist()
            for u in ls:
                torch._check(u >= 0)
            torch._check(sum(ls) <= 2 ** 28)
            return torch.cat([torch.ones(u, dtype=torch.int8) for u in ls]) * 2

        return jagged_sum, False, [(torch.tensor(ls),) for ls in ([0] * 16, [3 * i for i in range(16)],
                                                                  [2 ** 24] * 16)]
    if name == "backed_product":
        def backed_product(x):
            torch._check(x.size(0) * x.size(1) <= 2 ** 20)
            return (x * 2).sum(1)

        return backed_product, True, [(torch.randn(*s),) for s in ((4, 5), (5, 7), (1024, 1024), (2 ** 14, 2 ** 6))]
    if name == "pointwise":
        w, b = torch.randn(16), torch.randn(16)

        def pointwise(x):
            return torch.relu(x * w + b).sum(1)

        return pointwise, True, [(torch.randn(m, 16),) for m in (2, 3, 100)]
    raise ValueError(f"unknown program {name!r}")


def _counters():
    """Wrap Inductor to count kernels by index type and keep the ShapeEnvs it compiles with."""
    import torch
    from torch._inductor import sizevars
    from torch._inductor.codegen import simd_kernel_features as features

    seen = {"int32": 0, "int64": 0, "shape_envs": []}
    select = features.SIMDKernelFeatures.select_index_dtype

    def select_index_dtype(self):
        dtype = select(self)
        seen["int32" if dtype == torch.int32 else "int64"] += 1
        return dtype

    features.SIMDKernelFeatures.select_index_dtype = select_index_dtype
    init = sizevars.SizeVarAllocator.__init__

    def __init__(self, shape_env=None):
        init(self, shape_env)
        seen["shape_envs"].append(self.shape_env)

    sizevars.SizeVarAllocator.__init__ = __init__
    return seen


def child(name: str, mode: str) -> dict:
    """One program compiled in this (fresh) process, after a warm-up; what the parent prints."""
    import torch
    import torch._dynamo
    import torch._inductor.config as inductor_config
    from torch._dynamo.utils import counters

    from absint import torch as absint_torch

    torch._dynamo.config.capture_scalar_outputs = True
    inductor_config.force_disable_caches = True
    inductor_config.compile_threads = 1  # kernels compiled in this process, so its CPU counts them
    try:
        import halide  # noqa: F401
        inductor_config.cpu_backend = backend = "halide"
    except ImportError:
        backend = "cpp"
    seen = _counters()
    fn, dynamic, calls = _program(name)
    torch.compile(lambda x: x * 2 + 1, dynamic=True)(torch.randn(4))  # warm-up: lazy imports, first uses
    import absint.api.shape_reasoner  # noqa: F401 - absint's own imports are once per process too
    torch._dynamo.reset()
    seen.update(int32=0, int64=0, shape_envs=[])
    counters.clear()
    if mode != "off":
        absint_torch.install(mode, unknown="final")
    compiled = torch.compile(fn, dynamic=dynamic, fullgraph=True)
    start = time.process_time()
    try:
        first = compiled(*calls[0])
        cpu = time.process_time() - start
        same = [_equal(first, fn(*calls[0]))] + [_equal(compiled(*c), fn(*c)) for c in calls[1:]]
        ok, error = all(same), None if all(same) else "wrong result"
    except Exception as e:  # noqa: BLE001 - the outcome is what is measured
        cpu, ok, error = time.process_time() - start, False, f"{type(e).__name__}: {str(e)[:60]}"
    stats = absint_torch.stats() if mode != "off" else {}
    guards = sum(len(se.guards) for se in {id(s): s for s in seen["shape_envs"]}.values())
    return {"program": name, "mode": mode, "backend": backend, "cpu": cpu, "ok": ok, "error": error,
            "int32": seen["int32"] if backend == "halide" else None, "int64": seen["int64"] if backend == "halide" else None,
            "guards": guards, "graphs": counters["stats"]["unique_graphs"], "calls": len(calls),
            "asked": stats.get("asked", 0), "answered": stats.get("answered", 0),
            "absint_s": stats.get("sync_seconds", 0.0) + stats.get("decide_seconds", 0.0),
            "inductor": stats.get("inductor", {}), "unproved_min": stats.get("inductor_unproved", []),
            "disagreements": stats.get("disagreements", 0)}


def _equal(a, b) -> bool:
    import torch

    return torch.equal(a, b) if a.dtype != torch.float32 else torch.allclose(a, b, rtol=1e-5, atol=1e-4)


# ---------------------------------------------------------------- the parent


def run(name: str, mode: str) -> dict:
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "TORCHINDUCTOR_FORCE_DISABLE_CACHES": "1"}
    out = subprocess.run([sys.executable, "-m", "benchmarks.torch_inductor", "--child", name, mode],
                         cwd=ROOT, capture_output=True, text=True, env=env)
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if out.returncode != 0 or not lines:
        return {"program": name, "mode": mode, "cpu": float("nan"), "ok": False,
                "error": (out.stderr.strip().splitlines() or ["crashed"])[-1][:80]}
    return json.loads(lines[-1])


def _cell(r: dict, key: str) -> str:
    v = r.get(key)
    return "n/a" if v is None else str(v)


def markdown(rows: list[dict]) -> str:
    out = ["| program | mode | backend | CPU s | vs off | result | int32 kernels | int64 kernels | guards | "
           "graphs / calls | asked | answered | Inductor's questions |", "|---" * 13 + "|"]
    for r in rows:
        out.append(f"| {r['program']} | {r['mode']} | {r.get('backend', '')} | {r['cpu']:.2f} | "
                   f"{r.get('ratio', 1):.2f} | {'ok' if r['ok'] else r['error']} | {_cell(r, 'int32')} | "
                   f"{_cell(r, 'int64')} | {r.get('guards', '')} | {r.get('graphs', '')} / {r.get('calls', '')} | "
                   f"{r.get('asked', '')} | {r.get('answered', '')} | "
                   f"{', '.join(f'{k} {v}' for k, v in sorted(r.get('inductor', {}).items()))} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.torch_inductor", description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", default=",".join(PROGRAMS), help="comma-separated (default: all)")
    ap.add_argument("--modes", default="off,primary", help="comma-separated (default: %(default)s; off is always run)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs per cell, the modes interleaved; the median CPU, and the median of the paired "
                         "ratios to off (default 1)")
    ap.add_argument("--markdown", help="write the table here")
    ap.add_argument("--json", action="store_true", help="print the rows as one JSON array at the end")
    ap.add_argument("--child", nargs=2, metavar=("PROGRAM", "MODE"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(*args.child)))
        return 0
    programs = [p for p in args.programs.split(",") if p]
    modes = [m for m in args.modes.split(",") if m]
    modes = modes if "off" in modes else ["off", *modes]
    bad = (set(programs) - set(PROGRAMS)) | (set(modes) - set(MODES))
    if bad:
        ap.error(f"unknown: {', '.join(sorted(bad))}")
    rows, worse = [], False
    print(f"{'program':16} {'mode':>8} {'CPU s':>7} {'vs off':>6} {'result':>8} {'int32':>5} {'int64':>5} "
          f"{'guards':>6} {'graphs':>6} {'asked':>6} {'answered':>8}")
    for name in programs:
        for r in paired(lambda mode: run(name, mode), modes, args.repeat):
            worse |= r["worse"]
            rows.append(r)
            print(f"{name:16} {r['mode']:>8} {r['cpu']:>7.2f} {r['ratio']:>6.2f} {'ok' if r['ok'] else r['error'][:8]:>8} "
                  f"{_cell(r, 'int32'):>5} {_cell(r, 'int64'):>5} {r.get('guards', ''):>6} {r.get('graphs', ''):>6} "
                  f"{r.get('asked', 0):>6} {r.get('answered', 0):>8}", flush=True)
    return finish(rows, markdown, args, worse)


if __name__ == "__main__":
    sys.exit(main())
