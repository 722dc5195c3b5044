"""Parse speed over a corpus: read every ``.smt2`` under a directory into Programs.

    python -m benchmarks.parse_corpus [PATH] [--check]

PATH defaults to ``../shared/corpus`` relative to the repository root. Reports
files, MB, asserts, CPU seconds (``time.process_time`` of reading + parsing),
MB/s and asserts/s. ``--check`` also evaluates every assert at its file's example
point (timed separately) and reports the ones that do not hold.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from absint.lang.evaluator import NotEvaluable, evaluate
from absint.readers.smtlib import SmtLibError, read_file

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CORPUS = os.path.normpath(os.path.join(REPO_ROOT, os.pardir, "shared", "corpus"))


def smt2_files(root: str) -> list[str]:
    found = []
    for dirpath, _, names in os.walk(root):
        found.extend(os.path.join(dirpath, n) for n in names if n.endswith(".smt2"))
    return sorted(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.parse_corpus",
        description="Measure the CPU time of reading and parsing every .smt2 file under PATH "
        "with absint.readers.smtlib.read_file.",
    )
    parser.add_argument("path", nargs="?", default=DEFAULT_CORPUS, metavar="PATH",
                        help=f"directory searched recursively for .smt2 files (default: {DEFAULT_CORPUS})")
    parser.add_argument("--check", action="store_true",
                        help="also evaluate every assert at its file's example point and report failures")
    args = parser.parse_args(argv)

    if not os.path.isdir(args.path):
        print(f"parse_corpus: {args.path}: no such directory (give the corpus directory as PATH)", file=sys.stderr)
        return 2
    files = smt2_files(args.path)
    if not files:
        print(f"parse_corpus: no .smt2 files under {args.path}", file=sys.stderr)
        return 2

    size = sum(os.path.getsize(f) for f in files)
    programs = []
    errors = []
    start = time.process_time()
    for f in files:
        try:
            programs.append(read_file(f))
        except SmtLibError as e:
            errors.append(str(e))
    cpu = time.process_time() - start

    asserts = sum(len(p.facts) for p in programs)
    mb = size / 1e6
    print(f"files:       {len(files)}")
    print(f"MB:          {mb:.2f}")
    print(f"asserts:     {asserts}")
    print(f"CPU seconds: {cpu:.3f}")
    print(f"MB/s:        {mb / cpu if cpu else float('inf'):.2f}")
    print(f"asserts/s:   {asserts / cpu if cpu else float('inf'):.0f}")
    if errors:
        print(f"parse errors: {len(errors)}")
        for e in errors[:20]:
            print(f"  {e}")

    failed = 0
    if args.check:
        failures, not_evaluable = [], 0
        start = time.process_time()
        for p in programs:
            point, memo = p.hints(), {}
            for fact in p.facts:
                try:
                    value = evaluate(fact.term, point, memo)
                except NotEvaluable:
                    not_evaluable += 1
                    continue
                if value is not True:
                    failures.append(f"{fact.position}: {fact.term!r}")
        check_cpu = time.process_time() - start
        held = asserts - len(failures) - not_evaluable
        print(f"check:       {held} hold, {len(failures)} fail, {not_evaluable} not evaluable "
              f"at the example point ({check_cpu:.3f} CPU s)")
        for line in failures[:20]:
            print(f"  FAIL {line[:300]}")
        if len(failures) > 20:
            print(f"  ... and {len(failures) - 20} more")
        failed = len(failures)
    return 1 if errors or failed else 0


if __name__ == "__main__":
    sys.exit(main())
