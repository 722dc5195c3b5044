"""``absint solve``: which inputs give a wanted output size, or a proof that none do.

Each file's answer is :func:`absint.reports.solve.solve_file`; this module parses the
options (each ``--want`` read once, to refuse a bad one before any file) and prints the
answer's line (or its JSON).
"""

from __future__ import annotations

import argparse
import sys

from absint.cli.runner import JSON_HELP, PROBLEM, USAGE, FileOutcome, add_paths, each_file
from absint.presets import option as preset_option
from absint.reports.solve import solve_file
from absint.search.labelling import DEFAULT_NODES, DEFAULT_SECONDS, Budget
from absint.search.wants import WantError, to_smtlib_text

EPILOG = """\
answers:
  found       a point: a value for every declared symbol at which every assert and
              every want holds (checked by the evaluator before it is printed), and
              the outputs (output<k>_size<d>, ...) evaluated there
  impossible  no point exists: the asserts named (with the wants) contradict each
              other; a proof by propagation, or by an exhaustive labelling of finite
              domains (its asserts are then shrunk, each smaller set proved again)
  unknown     neither within the budget (--budget nodes, --time-limit seconds)
wants: infix as absint prints it (== != < <= > >= and or not + - * // % /, min, max,
  div, mod; // and % are SMT-LIB's Euclidean div and mod) or SMT-LIB; several --want
  options must all hold.
output: one line per file (FILE: status: ...); errors on stderr as
  FILE:LINE:COLUMN: message. With --json, one object per file and line:
  {"file", "status", "point", "outputs", "reason", "asserts", "nodes", "seconds"},
  status found / impossible / unknown / error; "asserts" lists the contradicting
  asserts as {"index" (from 0), "at" (FILE:LINE:COLUMN)}; with --preset also
  "presets": the preset facts in the contradiction, 'preset NAME: FACT'.
--preset NAME: the preset's facts are assumed ahead of the asserts: a found point
  satisfies them too (checked by the evaluator); assert indices still count the
  program's asserts only, and a preset fact in a contradiction is named
  'preset NAME: FACT'.
exit status: 0 when every file was answered (whatever the answer); 1 when a file
  could not be read or parsed; 2 on a usage error (a want that does not parse, or
  names what a file does not define; an unknown --preset), or when a --preset fact
  is false at a file's example point (the preset is refused; the error names it).
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_paths(parser, EPILOG, json_help=JSON_HELP)
    parser.add_argument("--want", "-w", action="append", required=True, metavar="WANT", dest="wants",
                        help="a condition the point must satisfy, infix or SMT-LIB (repeatable)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random values tried (default 0)")
    parser.add_argument("--budget", type=int, default=DEFAULT_NODES, metavar="NODES",
                        help=f"values tried at most (default {DEFAULT_NODES})")
    parser.add_argument("--time-limit", type=float, default=DEFAULT_SECONDS, metavar="SECONDS",
                        help=f"wall-clock seconds of search per file (default {DEFAULT_SECONDS:g}; shrinking "
                             "the asserts of an exhaustive proof may take half as long again)")
    preset_option.add_argument(parser, "; a found point satisfies them too, and a preset fact in a "
                                       "contradiction is named 'preset NAME: FACT'")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="under each file's line, how the search decided (the strategy that found the "
                             "point, or the proof) and the nodes and seconds it spent")


def run(args) -> int:
    try:
        for w in args.wants:
            to_smtlib_text(w)
    except WantError as e:
        print(f"absint solve: {e}", file=sys.stderr)
        return 2
    if args.budget < 1 or not args.time_limit > 0:
        print("absint solve: --budget and --time-limit must be positive", file=sys.stderr)
        return 2
    budget = Budget(args.budget, args.time_limit)

    def job(path: str, presets: tuple[str, ...]) -> FileOutcome:
        report = solve_file(path, args.wants, budget, args.seed, presets)
        if report.status != "error":
            return FileOutcome(report.to_json(), (report.line(),) + ((report.spent(),) if args.verbose else ()))
        return FileOutcome(report.to_json(), (), (report.reason,), USAGE if report.usage_error else PROBLEM)

    return each_file(args, "solve", job, budgeted=False)
