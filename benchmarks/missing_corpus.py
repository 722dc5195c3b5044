"""``absint explain --missing`` on real files, every suggestion checked with Z3.

    python -m benchmarks.missing_corpus [PATH] [--files N] [--per-file K] [--seconds S] [--json]

For N files spread evenly over the sorted ``.smt2`` files under PATH (default: the shared
corpus, 60 files), the last K open asserts of each (``?`` against the asserts before it; the
last ones are the program's own questions, not its opening facts): the missing facts
(:func:`absint.explain.missing_facts`, S CPU seconds each), and for each suggestion whether
it holds at the file's example point (the evaluator) and whether Z3 proves that the earlier
asserts and it imply the assert (``implied``; ``refuted``: Z3 has a counterexample, a wrong
suggestion; ``unknown``: Z3 gave no answer in its time). Exit 1 on any suggestion false at
the example or refuted by Z3.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter

from absint.explain import assert_rows, missing_facts
from absint.lang import terms as T
from absint.lang.evaluator import truth_at
from absint.lang.printer import to_smtlib
from absint.readers.smtlib import read_file
from benchmarks.generators import PRELUDE_TEXT

DEFAULT_CORPUS = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "corpus")


def z3_verdict(program, earlier, extra, goal, timeout_ms: int = 20000) -> str:
    """``implied``, ``refuted`` or ``unknown``: do ``earlier`` and ``extra`` imply ``goal``?"""
    import z3

    text = PRELUDE_TEXT + "".join(f"(declare-const {s.name} {s.sort.value})\n" for s in program.symbols)
    text += "".join(f"(assert {to_smtlib(t)})\n" for t in [*earlier, *extra])
    text += f"(assert (not {to_smtlib(goal)}))\n"
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.add(z3.parse_smt2_string(text))
    r = solver.check()
    return "implied" if r == z3.unsat else "refuted" if r == z3.sat else "unknown"


def check_file(path: str, per_file: int, seconds: float) -> dict:
    """The last ``per_file`` open asserts of one file, their suggestions and Z3's word on each."""
    with T.fresh_table():
        program = read_file(path)
        rows = assert_rows(program)
        open_facts = [f for f, r in zip(program.facts, rows) if r.verdict == "?"][-per_file:]
        counts: Counter = Counter()
        for fact in open_facts:
            counts["asserts"] += 1
            found = missing_facts(program, fact, seconds)
            counts["with suggestion"] += bool(found)
            earlier = [f.term for f in program.facts[:fact.index]]
            for c in found:
                counts["suggestions"] += 1
                counts[f"kind {c.kind}"] += 1
                if truth_at(c.fact, program.hints()) is not True:
                    counts["false at example"] += 1
                counts[z3_verdict(program, earlier, c.facts, fact.term)] += 1
    return dict(counts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", nargs="?", default=DEFAULT_CORPUS)
    ap.add_argument("--files", type=int, default=60)
    ap.add_argument("--per-file", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    files = sorted(os.path.join(args.path, f) for f in os.listdir(args.path) if f.endswith(".smt2"))
    step = max(1, len(files) // args.files)
    chosen = files[::step][:args.files]
    total: Counter = Counter()
    start = time.process_time()
    for path in chosen:
        total.update(check_file(path, args.per_file, args.seconds))
    total["files"] = len(chosen)
    total["cpu seconds"] = round(time.process_time() - start, 1)
    print(json.dumps(dict(total)) if args.json else "\n".join(f"{k}: {v}" for k, v in sorted(total.items())))
    return 1 if total["false at example"] or total["refuted"] else 0


if __name__ == "__main__":
    sys.exit(main())
