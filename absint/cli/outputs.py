"""``absint outputs``: each output of a program as an expression over its inputs.

Each file's report is :func:`absint.reports.outputs.outputs_of_file`; this module parses the
options and prints the report as a table (or its JSON).
"""

from __future__ import annotations

import argparse

from absint.batch.budgets import add_budget_arguments, max_size
from absint.cli.runner import JSON_HELP, FileOutcome, add_paths, each_file, files_with_errors, reported
from absint.lang.printer import to_infix, to_smtlib
from absint.presets import option as preset_option
from absint.reports.bounds import number
from absint.reports.outputs import FileOutputs, outputs_of_file

EPILOG = """\
what is reported, per output:
  expr      the simplest expression found equal to the output under the facts
            (readable infix, or SMT-LIB with --smtlib; always SMT-LIB in JSON);
            its constant when the facts fix it
  exact     whether expr mentions only the inputs (backed symbols); when it does not
            (an unbacked size in it), the table shows the bounds instead
  lo, hi    numeric bounds (-oo / oo: unbounded on that side)
Outputs are the program's define-funs named output<k>_size<d>, output<k>_stride<d>,
output<k>_storage_offset; Bool outputs are left out. If the facts contradict each
other, the file says so and no (vacuous) expression is reported.
output:
  a table per file on stdout, errors on stderr; with --json, one JSON object per
  line and file: {"file", "asserts", "presets", "contradiction", "outputs": [{"name",
  "expr", "exact", "constant", "lo", "hi"}], "error"}; constant is an int (a Real
  one "p/q") or null; infinities are "oo" / "-oo".
limits: only regular files are read, up to --max-file-size; each file is
  analysed in its own process: past --timeout it is killed and 'FILE: timeout
  after S s' is printed on stderr (past --max-memory, 'FILE: memory limit
  exceeded (N MB)'), as the file's error; the other files are still reported.
exit status: 0 if every file was reported; 1 if a file could not be read,
  parsed or analysed, or was over a limit; 2 on a usage error (an unknown
  preset, or a preset refused at a file's example point).
"""


def table(report: FileOutputs, smtlib: bool = False) -> list[str]:
    """The readable report of one file (its error goes to stderr)."""
    head = f"{report.file}: {report.asserts} asserts" + (f", presets {','.join(report.presets)}"
                                                         if report.presets else "")
    if report.contradiction is not None:
        where = f" at {report.contradiction_at}" if report.contradiction_at else ""
        return [f"{head}; CONTRADICTORY facts: assert {report.contradiction + 1}{where} contradicts the "
                "asserts before it; no output reported"]
    if not report.outputs:
        return [f"{head}, no numeric outputs"]
    render = to_smtlib if smtlib else to_infix
    constants = sum(o.constant is not None for o in report.outputs)
    lines = [f"{head}, {len(report.outputs)} output(s), {constants} constant"]
    width = max(len(o.name) for o in report.outputs)
    for o in report.outputs:
        text = render(o.expr) if o.exact else f"in [{number(o.lo)}, {number(o.hi)}]  (over unbacked symbols: " \
                                                f"{render(o.expr)})"
        bounds = "" if o.constant is not None or not o.exact else f"    in [{number(o.lo)}, {number(o.hi)}]"
        lines.append(f"  {o.name.ljust(width)}  {'=' if o.exact else ' '} {text}{bounds}")
    return lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_paths(parser, EPILOG, json_help=JSON_HELP)
    parser.add_argument("--smtlib", action="store_true",
                        help="write expressions in SMT-LIB syntax, (* s0 s1), instead of the readable s0*s1")
    add_budget_arguments(parser)
    preset_option.add_argument(parser)


def run(args) -> int:
    def job(path: str, presets: tuple[str, ...]) -> FileOutcome:
        report = outputs_of_file(path, presets, max_size(args))
        tally = {"outputs": len(report.outputs), "constant": sum(o.constant is not None for o in report.outputs)}
        return reported(report.to_json(), lambda: table(report, args.smtlib), report.error, report.usage_error, tally)

    return each_file(args, "outputs", job, summary=_summary)


def _summary(n: int, tally) -> str | None:
    if n < 2:
        return None
    return f"{files_with_errors(n, tally)}; {tally['outputs']} output(s), {tally['constant']} constant"
