"""``absint validate``: translation validation, per pair or step by step.

``absint validate FILE [--equiv] [--json]``: FILE's asserts are the facts; each pair
``(define-fun source<k> ...)``/``(define-fun target<k> ...)`` is ``equal``, ``differ``
(with a counterexample the evaluator confirmed) or ``unknown``. Numbers must be equal;
Bool forms: the target must imply the source (``--equiv``: both ways).

``absint validate SOURCE --against TARGET [--json]``: the recorded guards and their
simplified forms, in the same order; the first step at which the targets so far do not
imply the source, and ``final`` (all targets against all sources).

Exit code: 0 when everything is equal/valid, 1 when something differs or fails, 3 when
something is unknown and nothing differs, 2 on a bad input (``FILE:LINE:COLUMN: message``).
"""

from __future__ import annotations

import json
import sys

from absint.readers.smtlib import SmtLibError
from absint.validation.check import DIFFER, INVALID, UNKNOWN, VALID, ValidationError
from absint.validation.files import bisect_files, pairs_of_file


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE", help="an .smt2 file (facts and source<k>/target<k> pairs, "
                        "or, with --against, the source program)")
    parser.add_argument("--against", metavar="TARGET", default=None,
                        help="the target program: its asserts are the simplified forms of FILE's, in order")
    parser.add_argument("--equiv", action="store_true",
                        help="Bool pairs: check both implications, not only target => source")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args) -> int:
    try:
        if args.against is not None:
            return _run_bisect(args)
        return _run_pairs(args)
    except (SmtLibError, ValidationError) as e:
        print(f"absint validate: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"absint validate: {e.filename}: cannot read: {e.strerror or e}", file=sys.stderr)
        return 2


def _run_pairs(args) -> int:
    results = pairs_of_file(args.file, equiv=args.equiv)
    if args.json:
        print(json.dumps({"file": args.file, "pairs": [r.as_json() for r in results]}))
    else:
        for r in results:
            point = "" if r.counterexample is None else "  at " + _point(r.counterexample)
            print(f"{args.file}: pair {r.name}: {r.verdict}{point}")
        counts = {v: sum(r.verdict == v for r in results) for v in ("equal", DIFFER, UNKNOWN)}
        print(f"{len(results)} pair(s): " + ", ".join(f"{n} {v}" for v, n in counts.items()))
    verdicts = {r.verdict for r in results}
    return 1 if DIFFER in verdicts else 3 if UNKNOWN in verdicts else 0


def _run_bisect(args) -> int:
    result = bisect_files(args.file, args.against)
    if args.json:
        print(json.dumps({"file": args.file, "against": args.against, **result.as_json()}))
    else:
        if result.first_failing is None:
            print(f"{args.file}: no failing step found among {result.steps}")
        else:
            print(f"{args.file}: first failing step {result.first_failing} "
                  f"(assert {result.first_failing}, 0-based) at {_point(result.counterexample)}")
        if result.unproved:
            print(f"  steps neither proved nor refuted before it: {list(result.unproved)}")
        failing = "" if result.final_failing is None else f" (source assert {result.final_failing})"
        print(f"final: {result.final}{failing}")
    if result.first_failing is not None or result.final == INVALID:
        return 1
    return 0 if result.final == VALID and not result.unproved else 3


def _point(point: dict) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in sorted(point.items())) + "}"
