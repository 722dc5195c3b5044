"""absint.torch at scale: jagged splits and sorted offsets with N lengths, under torch.export.

    python -m benchmarks.torch_scale [--sizes 32,64,128] [--how export|compile]

Two programs, traced with absint off and on (fallback mode):

* ``split``: ``lengths.tolist()``, ``torch._check(n >= 0)`` for each, ``sum == size``, then
  ``values.split(lengths)``;
* ``offsets``: ``offsets.tolist()``, ``o[0] == 0``, a chain of ``torch._check(o[i] <= o[i+1])``
  (N - 1 links), ``o[-1] == size``, then one ``narrow`` per slice.

For each it prints the runtime asserts in the traced graph off and on (the ones absint
removed are those its facts decide), the tracing time off and on, and absint's own time
(sync + decide) as a share of PyTorch's own tracing time (off). The goal, checked at the
largest size (exit 1 when missed): absint's time below that tracing time for both
programs, and at least ``N - 8`` of the ``offsets`` program's ``N - 1`` slice-end asserts
``o[i] <= size`` removed (the last one is the user's own ``_check``). Needs torch.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))

import torch  # noqa: E402

import torch_programs as tp  # noqa: E402
from benchmarks.torch_client import traced_run  # noqa: E402


def split_program(n: int) -> tp.Program:
    """The test programs' ``split_tolist`` at ``n`` lengths."""
    lengths = torch.tensor([(i % 5) + 1 for i in range(n)])
    return tp.Program(f"split{n}", "jagged", tp.split_tolist, (tp.ar(int(lengths.sum())), lengths), ((0,), ()))


def offsets_program(n: int) -> tp.Program:
    def offsets(values, offs):
        o = offs.tolist()
        torch._check(o[0] == 0)
        for a, b in zip(o, o[1:]):
            torch._check(a <= b)
        torch._check(o[-1] == values.size(0))
        return [values.narrow(0, a, b - a).sum() for a, b in zip(o, o[1:])]

    offs = torch.tensor([sum((i % 5) + 1 for i in range(k)) for k in range(n)])
    return tp.Program(f"offsets{n}", "jagged", offsets, (tp.ar(int(offs[-1])), offs), ((0,), ()))


def measure(p: tp.Program, how: str, mode: str = "fallback", off=None) -> dict:
    off = traced_run(p, how, absint=False) if off is None else off
    on = traced_run(p, how, absint=True, mode=mode)
    s = on.stats or {}
    return {"program": p.name, "mode": mode, "ok_off": off.ok, "ok_on": on.ok, "error_off": off.error,
            "error_on": on.error, "asserts_off": off.asserts, "asserts_on": on.asserts, "guards_off": off.guards,
            "guards_on": on.guards, "seconds_off": off.seconds, "seconds_on": on.seconds,
            "cpu_off": off.cpu, "cpu_on": on.cpu,
            "absint_seconds": s.get("sync_seconds", 0.0) + s.get("decide_seconds", 0.0),
            "asked": s.get("asked", 0), "answered": s.get("answered", 0)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.torch_scale", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="32,64,128", help="comma-separated N (default %(default)s)")
    ap.add_argument("--how", default="export", choices=sorted(tp.RUNNERS))
    ap.add_argument("--modes", default="fallback", help="comma-separated absint.torch modes to run against off "
                    "(fallback, shadow, primary; default %(default)s); the goal is checked on the first")
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",") if x]
    modes = [m for m in args.modes.split(",") if m]
    print(f"{'program':>12} {'mode':>8} {'traced off/on':>13} {'asserts off':>11} {'on':>5} {'removed':>7} "
          f"{'trace s off':>11} {'on':>7} {'cpu off':>8} {'on':>7} {'on/off':>6} {'absint s':>8} {'absint/off':>10} "
          f"{'answered/asked':>14}")
    worse, missed = False, []
    for n in sizes:
        for p in (split_program(n), offsets_program(n)):
            off = traced_run(p, args.how, absint=False)
            for mode in modes:
                r = measure(p, args.how, mode, off)
                worse |= (r["ok_off"] and not r["ok_on"]) or r["asserts_on"] > r["asserts_off"]
                share = r["absint_seconds"] / r["seconds_off"] if r["seconds_off"] else float("inf")
                traced = f"{'ok' if r['ok_off'] else r['error_off']}/{'ok' if r['ok_on'] else r['error_on']}"
                removed = r["asserts_off"] - r["asserts_on"]
                print(f"{r['program']:>12} {mode:>8} {traced:>13} {r['asserts_off']:>11} {r['asserts_on']:>5} "
                      f"{removed:>7} {r['seconds_off']:>11.2f} {r['seconds_on']:>7.2f} {r['cpu_off']:>8.2f} "
                      f"{r['cpu_on']:>7.2f} {r['cpu_on'] / r['cpu_off']:>6.2f} "
                      f"{r['absint_seconds']:>8.2f} {share:>10.0%} {r['answered']:>7}/{r['asked']:<6}", flush=True)
                if n == max(sizes) and mode == modes[0]:
                    if share >= 1:
                        missed.append(f"{r['program']}: absint {r['absint_seconds']:.2f} s >= tracing "
                                      f"{r['seconds_off']:.2f} s")
                    if p.name.startswith("offsets") and removed < n - 8:
                        missed.append(f"{r['program']}: {removed} asserts removed < {n - 8}")
    print("goal met at N=%d" % max(sizes) if not missed else "goal missed: " + "; ".join(missed))
    return 1 if worse or missed else 0


if __name__ == "__main__":
    sys.exit(main())
