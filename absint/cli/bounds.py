"""``absint bounds``: how small and how large each unbacked size of a program can be.

Each file's report is :func:`absint.reports.bounds.bounds_of_file`; this module parses the
options and prints the report as a table (or its JSON).
"""

from __future__ import annotations

import argparse

from absint.batch.budgets import add_budget_arguments, max_size
from absint.cli.runner import JSON_HELP, FileOutcome, add_paths, each_file, files_with_errors, reported
from absint.presets import option as preset_option
from absint.reports.bounds import FileBounds, bounds_of_file, number

NONE = "-"  # an empty cell of the table

EPILOG = """\
what is reported:
  lo, hi  numeric bounds (-oo / oo: unbounded on that side)
  upper   symbolic upper bounds over the backed symbols: the term is at most
          each of them (shown as min(a, b) when there are several); a constant
          no better than hi is left out, so '-' means nothing beyond hi
  lower   the same from below (max(a, b)), nothing beyond lo when '-'
          (bounds are written in Python's operators, s0*s1 - 1, (s0 + 1) // 2;
          div(x, y) and mod(x, y) are SMT-LIB's Euclidean ones; or --smtlib)
  int32   with --int32: TRUE if the term provably lies in [-2**31, 2**31 - 1],
          FALSE if it provably lies outside, UNKNOWN otherwise
By default the unbacked Int symbols are reported (those without an example
value); --outputs adds the program's outputs (output<k>_size<d>, ...), and
--symbol NAME reports the named symbols or outputs instead. If the facts
contradict each other, the file says so and no (vacuous) bound is reported.
output:
  a table per file on stdout, errors on stderr as 'FILE:LINE:COLUMN: message'
  (or 'FILE: message'); with --json, one JSON object per line and file:
  {"file", "asserts", "contradiction", "symbols": [{"name", "lo", "hi", "upper",
  "lower", "int32"?}], "error"} (the error as on stderr), with
  "oo" / "-oo" for infinities, fractions as "p/q" strings, and null for upper /
  lower when there is nothing beyond the numeric bound; "contradiction" is null
  or the index (from 0, as in analyze's records) of the contradicting assert.
limits: each file is analysed in its own process: past --timeout it is killed
  and 'FILE: timeout after S s' is printed on stderr (past --max-memory,
  'FILE: memory limit exceeded (N MB)'), as the file's error; the other files
  are still reported.
exit status: 0 if every file was reported; 1 if a file could not be read,
  parsed or analysed, or was over a limit (the other files are still
  reported); 2 on a usage error, such as a --symbol name a file does not have
  or a --preset fact false at a file's example point (the preset is refused).
"""


# ------------------------------------------------------------------ the table


def table(report: FileBounds) -> list[str]:
    """The readable report of one file (without its error, which goes to stderr)."""
    n = len(report.symbols)
    head = f"{report.file}: {report.asserts} asserts"
    if report.contradiction is not None:
        where = f" at {report.contradiction_at}" if report.contradiction_at else ""
        return [f"{head}; CONTRADICTORY facts: assert {report.contradiction + 1}{where} contradicts the "
                "asserts before it, so every bound would be vacuous; none reported"]
    if not n:
        what = "no unbacked symbols" if not report.unbacked else "no unbacked Int symbols"
        return [f"{head}, {what} (report others with --outputs or --symbol NAME)"]
    rows = [["symbol", "lo", "hi"] + (["int32"] if report.symbols[0].int32 is not None else [])
            + ["upper", "lower"]]
    for s in report.symbols:
        rows.append([s.name, number(s.lo), number(s.hi)] + ([s.int32] if s.int32 is not None else [])
                    + [_pieces(s.upper, "min"), _pieces(s.lower, "max")])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [f"{head}, {n} term(s) bounded"]
    for row in rows:
        cells = [c.rjust(w) if i in (1, 2) else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
        lines.append(("  " + "  ".join(cells)).rstrip())
    return lines


def _pieces(pieces: tuple[str, ...] | None, combine: str) -> str:
    if not pieces:
        return NONE
    return pieces[0] if len(pieces) == 1 else f"{combine}({', '.join(pieces)})"


# ------------------------------------------------------------------ the command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_paths(parser, EPILOG, json_help=JSON_HELP)
    parser.add_argument("--symbol", "-s", action="append", metavar="NAME", dest="symbols",
                        help="report this symbol or output instead of the unbacked symbols (repeatable); "
                             "a file without it is a usage error")
    parser.add_argument("--outputs", action="store_true",
                        help="also report the program's outputs (output<k>_size<d>, _stride<d>, _storage_offset)")
    parser.add_argument("--int32", action="store_true",
                        help="also say whether each term provably fits in int32 (TRUE / UNKNOWN / FALSE)")
    parser.add_argument("--smtlib", action="store_true",
                        help="write symbolic bounds in SMT-LIB syntax, (* s0 s1), instead of the readable s0*s1")
    add_budget_arguments(parser)
    preset_option.add_argument(parser)


def run(args) -> int:
    def job(path: str, presets: tuple[str, ...]) -> FileOutcome:
        report = bounds_of_file(path, max_size(args), names=args.symbols, outputs=args.outputs, int32=args.int32,
                                smtlib=args.smtlib, presets=presets)
        return reported(report.to_json(), lambda: table(report), report.error, report.usage_error)

    return each_file(args, "bounds", job, summary=files_with_errors)
