"""``absint inputs`` over a corpus: how small the descriptions are, and at what CPU cost.

    python -m benchmarks.inputs_corpus [PATH] [--every K] [--z3 N] [--z3-timeout-ms MS]

PATH defaults to ``../shared/corpus`` relative to the repository root. Every file is
described as ``absint inputs`` does (read, parsed, described in a fresh term table, one
process); the figures are the files, their asserts, the description's size (constants,
equalities, ranges and relations, one each), the ratio of the two, the kinds, the residue
sets, and the CPU seconds of the whole run (reading and parsing included). ``--z3 N``
then asks Z3 whether the description is equivalent to the asserts on N files spread
over the corpus (each way: unsat of ``(not (= asserts description))``); files Z3 does not
finish within the limit are counted as unconfirmed, not as failures.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from absint.reports.inputs import inputs_of_file
from absint.readers.files import smt2_files
from benchmarks.parse_corpus import DEFAULT_CORPUS


def describe_all(files: list[str]) -> tuple[dict, list]:
    """Totals over ``files`` and the per-file reports."""
    totals = dict(files=0, asserts=0, size=0, specialized=0, equalities=0, ranges=0, residue_sets=0,
                  relations=0, contradictions=0, inexact=0, errors=0)
    reports = []
    for path in files:
        rep = inputs_of_file(path)
        reports.append(rep)
        totals["files"] += 1
        if rep.error is not None:
            totals["errors"] += 1
            print(rep.error, file=sys.stderr)
            continue
        d = rep.description
        totals["asserts"] += d.asserts
        totals["size"] += d.size
        totals["contradictions"] += d.contradiction is not None
        totals["inexact"] += not d.exact
        if d.contradiction is None:
            ranges = d.ranges
            totals["specialized"] += len(d.specialized)
            totals["equalities"] += len(d.equalities)
            totals["ranges"] += len(ranges)
            totals["residue_sets"] += sum(r.modulus > 1 for r in ranges)
            totals["relations"] += len(d.relations)
    return totals, reports


def z3_confirm(paths: list[str], timeout_ms: int) -> tuple[int, int, int]:
    """(confirmed, refuted, unconfirmed) over ``paths``."""
    import z3

    from absint.lang import terms as T
    from absint.lang.printer import symbol, to_smtlib
    from absint.inputs.description import describe_program
    from absint.readers.smtlib import read_file
    from benchmarks.generators import PRELUDE_TEXT

    counts = [0, 0, 0]
    for path in paths:
        with T.fresh_table():
            program = read_file(path)
            d = describe_program(program)
            decls = "".join(f"(declare-const {symbol(s.name)} {s.sort.value})\n" for s in program.symbols)
            asserts = "(and true " + " ".join(to_smtlib(f.term) for f in program.facts) + ")"
            text = PRELUDE_TEXT + decls + f"(assert (not (= {asserts} (and true {' '.join(d.smtlib())}))))\n"
        solver = z3.Solver()
        solver.set("timeout", timeout_ms)
        solver.add(z3.parse_smt2_string(text))
        r = solver.check()
        counts[0 if r == z3.unsat else 1 if r == z3.sat else 2] += 1
        if r == z3.sat:
            print(f"NOT EQUIVALENT (Z3): {path}", file=sys.stderr)
    return counts[0], counts[1], counts[2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.inputs_corpus", description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", default=DEFAULT_CORPUS)
    parser.add_argument("--every", type=int, default=1, metavar="K", help="only every K-th file (default: all)")
    parser.add_argument("--z3", type=int, default=0, metavar="N", help="Z3-check N files spread over the corpus")
    parser.add_argument("--z3-timeout-ms", type=int, default=60000)
    args = parser.parse_args(argv)
    if not os.path.isdir(args.path):
        print(f"inputs_corpus: {args.path}: no such directory", file=sys.stderr)
        return 2
    files = smt2_files([args.path])[::args.every]
    start = time.process_time()
    totals, reports = describe_all(files)
    cpu = time.process_time() - start
    ratio = totals["size"] / max(totals["asserts"], 1)
    print(f"files {totals['files']}  asserts {totals['asserts']}  description {totals['size']} constraints  "
          f"ratio {ratio:.2%}  CPU {cpu:.1f} s")
    print("  " + "  ".join(f"{k} {v}" for k, v in totals.items() if k not in ("files", "asserts", "size")))
    slowest = sorted((r for r in reports if r.error is None), key=lambda r: -r.seconds)[:5]
    print("  slowest: " + ", ".join(f"{os.path.basename(r.file)} {r.seconds:.2f} s" for r in slowest))
    if args.z3:
        ok = [r.file for r in reports if r.error is None]
        step = max(1, len(ok) // args.z3)
        sample = ok[::step][:args.z3]
        confirmed, refuted, unconfirmed = z3_confirm(sample, args.z3_timeout_ms)
        print(f"Z3: {confirmed} of {len(sample)} sampled files confirmed equivalent, {refuted} not equivalent, "
              f"{unconfirmed} unconfirmed (timeout {args.z3_timeout_ms} ms)")
        return 1 if refuted else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
