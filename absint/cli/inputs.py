"""``absint inputs``: which inputs pass every assert of a program, described.

Each file's report is :func:`absint.reports.inputs.inputs_of_file`; this module parses the
options (``--within`` read once, to refuse a bad one before any file) and prints the
description, the export or the asserts that can fail (or the JSON).
"""

from __future__ import annotations

import argparse
import sys

from absint.cli.runner import JSON_HELP, OK, PROBLEM, USAGE, FileOutcome, add_paths, each_file
from absint.inputs.description import ranges_of
from absint.inputs.within import BadDeclaration, parse_ranges
from absint.lang.printer import to_infix
from absint.presets import option as preset_option
from absint.reports.inputs import FileInputs, inputs_of_file

EPILOG = """\
what is reported, per file:
  specialized  symbols every valid input fixes: x_size1 = 3
  equalities   symbols bound by the others: x_stride0 = x_size1*x_size2
  ranges       lo <= symbol <= hi, and 'symbol mod m in {r, ...}' where division or
               remainder by constants constrains it (stated only when exact)
  relations    the constraints left, as they were asserted (in normal form)
  Together they hold exactly where all the asserts hold ('exact'), and none is
  implied by the others as far as absint can prove.
--within 'x=1..64,y=32..512' (declared ranges; a backed symbol not named keeps its
  example value unless an assert defines it, as x_stride0 = x_size1*x_size2; an
  unbacked one is free): every assert that can fail for an
  input inside the declaration that passed the asserts before it, as
  'FILE:LINE:COLUMN: guard W % 2 == 0 can fail: W=33' with a counterexample checked
  by the evaluator; an assert neither proved safe nor shown failing is reported on
  stderr as 'guard ... may fail (undecided: REASON)'.
--export: the description as a Python module for torch.export: Dims and derived
  dims, dynamic_shapes from the <tensor>_size<d> names, and check_inputs(...) with
  every constraint as torch._check, for an input's values.
output:
  a summary per file on stdout; errors on stderr as 'FILE:LINE:COLUMN: message'.
  With --json, one JSON object per line and file: {"file", "asserts",
  "contradiction", "specialized" {symbol: int}, "equalities" [[symbol, smtlib]],
  "ranges" [{"symbol", "lo", "hi", "modulus", "residues"}] (null: unbounded),
  "relations" [smtlib], "smtlib" [every constraint], "exact", "reason", "size",
  "seconds", "error"}, with --within also "violations" and "undecided" [{"index",
  "position", "guard", "text", "counterexample"}] ("reason" when undecided), with
  --export also "export", with
  --preset also "presets" {"names" [name], "facts" [smtlib]}.
--preset NAME: the preset's facts are assumed ahead of the asserts: the description
  (and --within) is of the inputs that pass the presets *and* the asserts; assert
  indices and "asserts" still count the program's asserts only.
exit status: 0 if every file was described (and, with --within, no assert can
  fail); 1 if an assert can fail or a file could not be read or parsed (the others
  are still reported); 2 on a usage error (a bad --within, an unknown --preset), or
  when a --preset fact is false at a file's example point (the preset is refused;
  the file's error names the fact).
"""


def summary(report: FileInputs) -> list[str]:
    """The readable description of one file."""
    d = report.description
    head = f"{report.file}: {d.asserts} asserts -> {d.size} constraints"
    if d.contradiction is not None:
        return [f"{head}: no input passes (assert {d.contradiction + 1} contradicts the asserts before it)"]
    lines = [head + ("" if d.exact else f" (not exact: {d.reason})")]
    lines += [f"  {n} = {v}" for n, v in d.specialized.items()]
    lines += [f"  {n} = {to_infix(e)}" for n, e in d.equalities]
    lines += [f"  {_range_text(r)}" for r in ranges_of(d.items)]
    lines += [f"  {to_infix(t)}" for t in d.relations]
    return lines


def _range_text(r) -> str:
    text = r.symbol
    if r.lo is not None:
        text = f"{r.lo} <= {text}"
    if r.hi is not None:
        text = f"{text} <= {r.hi}"
    if r.modulus > 1:
        text = "" if text == r.symbol else text + ", "
        text += f"{r.symbol} mod {r.modulus} in {{{', '.join(map(str, r.residues))}}}"
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_paths(parser, EPILOG, json_help=JSON_HELP)
    parser.add_argument("--within", metavar="RANGES",
                        help="declared ranges, 'x=1..64,y=32..512': report the asserts that can fail inside them")
    parser.add_argument("--export", action="store_true",
                        help="write the description as torch.export takes it (Dim, derived dims, torch._check)")
    preset_option.add_argument(parser, "; the description is then of the inputs that pass the presets "
                                       "and the asserts")


def run(args) -> int:
    try:
        within = parse_ranges(args.within) if args.within is not None else None
    except BadDeclaration as e:
        print(f"absint inputs: --within: {e}", file=sys.stderr)
        return 2
    return each_file(args, "inputs", lambda path, presets: _outcome(inputs_of_file(path, within, args.export, presets),
                                                                    args, within is not None),
                     budgeted=False, summary=_summary(within is not None))


def _outcome(report: FileInputs, args, within: bool) -> FileOutcome:
    """The report as the runner prints it: errors and undecided guards on stderr; the export,
    or the summary and the inputs that make a guard fail, on stdout."""
    messages = ((report.error,) if report.error is not None else ()) + tuple(v.message() for v in report.undecided)
    text: tuple[str, ...] = ()
    if report.error is None:
        text = (report.export,) if args.export else tuple(summary(report))
        text += tuple(v.message() for v in report.found)
    error = report.error is not None
    status = USAGE if report.usage_error else PROBLEM if error or report.found else OK
    return FileOutcome(report.to_json(within), text, messages, status,
                   {"errors": int(error), "can_fail": int(bool(report.found))})


def _summary(within: bool):
    def line(n: int, tally) -> str | None:
        if n < 2:
            return None
        return f"{n} file(s), {tally['errors']} with an error" + (
            f", {tally['can_fail']} where an assert can fail" if within else "")
    return line
