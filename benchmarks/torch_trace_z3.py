"""Which questions absint left UNKNOWN inside PyTorch does Z3 decide from the same facts?

    python -m benchmarks.torch_trace_z3 TRACE.jsonl [TRACE.jsonl ...] [--timeout-ms 2000] [--json]

A trace is what ``absint.torch.record`` writes (``ABSINT_PT_RECORD`` in the shared PyTorch test
harness, ``ABSINT_TORCH_RECORD`` with ``python -m absint.torch``): per session the symbols,
the facts (entry or full tier) and every question with absint's answer. For each question
absint left UNKNOWN and still leaves UNKNOWN when the session is replayed with this
checkout's reasoner, Z3 is given the facts of the question's tier and asked both ways; what
it decides is listed (the precision absint leaves on the table inside PyTorch), with its
session's label (the test that asked), and counted by the operators the question uses.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys

from absint.lang.printer import symbol as smt_symbol
from absint.readers.smtlib import SmtLibError
from absint.reasoning.verdict import Truth
from absint.torch.trace import PRELUDE, _Replay, read_events

_OPERATORS = re.compile(r"\((div|mod|ite|\*|to_int|to_real|min2|max2|abs|/)\s")
#: a constant times a term: linear, not a product
_SCALED = re.compile(r"\(\* (\(- \d+\)|\d+) ")


def _z3_decides(z3, decls: str, facts: list[str], question: str, timeout_ms: int) -> str:
    """"true", "false" or "unknown": what the facts imply of the question, by Z3."""
    for answer, goal in (("true", f"(not {question})"), ("false", question)):
        s = z3.Solver()
        s.set("timeout", timeout_ms)
        s.add(z3.parse_smt2_string(decls + "".join(f"(assert {f})" for f in facts) + f"(assert {goal})"))
        if s.check() == z3.unsat:
            return answer
    return "unknown"


def check(events: list[dict], z3, timeout_ms: int, counts: collections.Counter) -> list[dict]:
    """The questions of one session that absint leaves UNKNOWN today (recorded UNKNOWN, and
    UNKNOWN again when the session is replayed with this checkout's reasoner) and Z3 decides."""
    decls, entry, full, found = [PRELUDE], [], [], []
    label = next((e.get("label") for e in events if e["t"] == "session"), None)
    again = _Replay(0, label)  # the facts given to this checkout's reasoners, as they came
    for e in events:
        kind = e["t"]
        if kind == "symbol":
            decls.append(f"(declare-const {smt_symbol(e['name'])} {e['sort']})")
        elif kind == "fact" and e.get("smt"):
            full.append(e["smt"])
            if e["tier"] == "entry":
                entry.append(e["smt"])
        elif kind == "rebuild":
            entry, full = [], []
        if kind != "q":
            again.event(e)
            continue
        if e["absint"] != "unknown":
            continue
        counts["recorded unknown"] += 1
        try:
            now = (again.entry if e["route"] == "entry" else again.full).decide(again.term(e["smt"])).truth
        except SmtLibError:
            now = Truth.UNKNOWN
        if now is not Truth.UNKNOWN:
            counts["decided by absint now"] += 1
            continue
        facts = entry if e["route"] == "entry" else full
        try:
            z3_says = _z3_decides(z3, "".join(decls), facts, e["smt"], timeout_ms)
        except z3.Z3Exception:
            counts["unread by Z3"] += 1
            continue
        if z3_says != "unknown":
            found.append({"label": label, "smt": e["smt"], "z3": z3_says, "torch": e["torch"],
                          "route": e["route"],
                          "operators": sorted(set(_OPERATORS.findall(_SCALED.sub("(", e["smt"]))))})
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.torch_trace_z3", description=__doc__.split("\n\n")[0])
    ap.add_argument("traces", nargs="+", help="JSONL traces of absint.torch")
    ap.add_argument("--timeout-ms", type=int, default=2000, help="Z3's budget per question and way (default 2000)")
    ap.add_argument("--json", action="store_true", help="print the decided questions as one JSON array")
    args = ap.parse_args(argv)
    try:
        import z3
    except ImportError:
        print("error: needs z3 (pip install z3-solver)", file=sys.stderr)
        return 2
    found, counts = [], collections.Counter()
    for path in args.traces:
        with open(path) as f:
            sessions = read_events(f)
        for _sid, events in sorted(sessions.items()):
            found.extend(check(events, z3, args.timeout_ms, counts))
    if args.json:
        print(json.dumps(found))
        return 0
    kinds = collections.Counter(" ".join(f["operators"]) or "linear" for f in found)
    print(f"recorded UNKNOWN: {counts['recorded unknown']}; decided by this checkout's absint: "
          f"{counts['decided by absint now']}; of the rest, Z3 decides {len(found)}")
    for k, n in kinds.most_common():
        print(f"  {n:5}  {k}")
    for f in found:
        print(f"{f['z3']:5} torch={f['torch']:5} {f['route']:5} {f['smt'][:150]}   [{f['label']}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
