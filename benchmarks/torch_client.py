"""absint.torch on the project's own tiny programs: export and compile, absint off and on.

    python -m benchmarks.torch_client [--only NAME ...] [--how export|compile] [--all]
    python -m benchmarks.torch_client --record tests/data/torch_traces.jsonl   # the replayed traces

Prints, per program and mode (export, compile), whether tracing failed with a data-dependent
error (DDE) or another error, ShapeEnv guards (compile), runtime asserts in the graph,
tracing time, and with absint on: the questions it answered of those it was asked (the
plain calls PyTorch left undecided) and the time it spent (sync + decide). The rows where
absint changed something and the totals are the table of ``docs/torch.md``; exits 1 if a
run with absint fails where the one without succeeds, gains a guard or an assert, or
disagrees. Needs torch (``pip install torch==2.13.0+cpu``).
"""

from __future__ import annotations

import argparse
import gc
from collections import Counter
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))

import torch_programs as tp  # noqa: E402


def _cell(o) -> str:
    if o.ok:
        return "ok"
    return "DDE" if o.data_dependent else o.error or "error"


def traced_run(p, how: str, absint: bool, mode: str = "fallback"):
    """One traced run, from a collected heap: a full collection of the process's (torch's)
    heap that an earlier run made due takes ~0.4 s and would be charged to whatever runs
    when it strikes, absint's questions included."""
    gc.collect()
    return tp.run(p, how, absint=absint, mode=mode)


def measure(programs, hows) -> list[dict]:
    rows = []
    for p in programs:
        for how in hows:
            off, on = traced_run(p, how, absint=False), traced_run(p, how, absint=True)
            s = on.stats or {}
            rows.append({"program": p.name, "kind": p.kind, "how": how, "off": _cell(off), "on": _cell(on),
                         "dde_off": int(off.data_dependent), "dde_on": int(on.data_dependent),
                         "fail_off": int(not off.ok), "fail_on": int(not on.ok),
                         "guards_off": off.guards, "guards_on": on.guards,
                         "asserts_off": off.asserts, "asserts_on": on.asserts,
                         "seconds_off": off.seconds, "seconds_on": on.seconds,
                         "answered": s.get("answered", 0), "asked": s.get("asked", 0),
                         "absint_seconds": s.get("sync_seconds", 0.0) + s.get("decide_seconds", 0.0),
                         "disagreements": s.get("disagreements", 0),
                         "gaps": {**s.get("gaps", {}), **{f"fact {k}": v for k, v in s.get("fact_gaps", {}).items()}},
                         "errors": s.get("errors", {})})
    return rows


def _totals(rows: list[dict], how: str) -> dict:
    sel = [r for r in rows if r["how"] == how]
    keys = ("dde_off", "dde_on", "fail_off", "fail_on", "seconds_off", "seconds_on", "answered", "asked",
            "absint_seconds", "disagreements")
    both = [r for r in sel if r["fail_off"] == r["fail_on"] == 0]  # guards and asserts: where both traced
    counts = {k: sum(r[k] for r in both) for k in ("guards_off", "guards_on", "asserts_off", "asserts_on")}
    return {"program": f"**total ({len(sel)}; guards, asserts: the {len(both)} traced off and on)**", "how": how,
            **{k: sum(r[k] for r in sel) for k in keys}, **counts}


HEADER = ("| program | mode | off | on | guards off/on | asserts off/on | absint answered/asked "
          "| absint s | trace s off/on |")


def _line(r: dict) -> str:
    off = r.get("off", f"{r['fail_off']} fail ({r['dde_off']} DDE)")
    on = r.get("on", f"{r['fail_on']} fail ({r['dde_on']} DDE)")
    return (f"| {r['program']} | {r['how']} | {off} | {on} | {r['guards_off']}/{r['guards_on']} "
            f"| {r['asserts_off']}/{r['asserts_on']} | {r['answered']}/{r['asked']} | {r['absint_seconds']:.3f} "
            f"| {r['seconds_off']:.2f}/{r['seconds_on']:.2f} |")


def _changed(r: dict) -> bool:
    return any(r[f"{k}_off"] != r[f"{k}_on"] for k in ("fail", "guards", "asserts"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", help="program names")
    ap.add_argument("--how", choices=sorted(tp.RUNNERS), action="append")
    ap.add_argument("--all", action="store_true", help="a row per program and mode (default: the rows where "
                    "absint changed something, and the totals)")
    ap.add_argument("--record", metavar="PATH", help="only record the traces of tests/data (tp.TRACE_SELECTION)")
    args = ap.parse_args(argv)
    if args.record:
        tp.record_traces(args.record)
        return 0
    programs = [p for p in tp.PROGRAMS if not args.only or p.name in args.only]
    hows = args.how or ["export", "compile"]
    rows = measure(programs, hows)
    import torch

    print(f"torch {torch.__version__}, {len(programs)} programs\n")
    print(HEADER)
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if args.all or _changed(r):
            print(_line(r))
    for how in hows:
        print(_line(_totals(rows, how)))
    gaps, errors = Counter(), Counter()
    for r in rows:
        gaps.update(r["gaps"])
        errors.update(r["errors"])
    print(f"\nsympy classes absint could not read (questions; facts): {dict(gaps) or 'none'}; "
          f"errors: {dict(errors) or 'none'}")
    traced = [r for r in rows if r["fail_on"] == 0 and r["seconds_on"] > 0]
    worst = max(traced, key=lambda r: r["absint_seconds"] / r["seconds_on"], default=None)
    if worst is not None:
        share = worst["absint_seconds"] / worst["seconds_on"]
        print(f"absint's share of the tracing time (on), largest: {share:.1%} ({worst['program']}, {worst['how']}; "
              f"goal: at most 25% on every program){'' if share <= 0.25 else '  GOAL MISSED'}")
    bad = [r for r in rows if r["fail_on"] > r["fail_off"] or r["disagreements"] or (
        r["fail_off"] == r["fail_on"] == 0 and (r["guards_on"] > r["guards_off"] or r["asserts_on"] > r["asserts_off"]))]
    if bad:
        print("\nREGRESSIONS: " + ", ".join(f"{r['program']} ({r['how']})" for r in bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
