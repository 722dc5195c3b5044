"""``absint inputs``: which inputs pass every assert of a program, described.

The description (:mod:`absint.inputs.description`) is equivalent to the conjunction of
the asserts: specialised constants, equalities that bind a symbol, per-symbol ranges
with residue sets, and the relations left; no constraint absint proves implied by the
others. ``--within`` reports the asserts that can fail inside declared ranges, each with
a counterexample the evaluator checked; ``--export`` writes the description as
``torch.export`` takes it.
"""

from __future__ import annotations

import argparse
import sys
import time

import attrs

from absint.cli.runner import JSON_HELP, OK, PROBLEM, USAGE, Outcome, add_paths, each_file
from absint.inputs.description import ValidInputs, describe_program, ranges_of, readable_smtlib
from absint.inputs.export import export_text
from absint.inputs.within import BadDeclaration, Violation, parse_ranges, violations
from absint.lang import terms as T
from absint.lang.printer import to_infix
from absint.presets import facts as preset_facts
from absint.presets import option as preset_option
from absint.readers.files import load_program

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


@attrs.frozen(slots=True)
class FileInputs:
    """One file's report."""

    file: str
    description: ValidInputs | None = None
    found: tuple[Violation, ...] = ()
    undecided: tuple[Violation, ...] = ()
    export: str | None = None
    seconds: float = 0.0
    error: str | None = None
    usage_error: bool = False
    #: with --preset: the names and the facts assumed (SMT-LIB); None without --preset
    presets: tuple[tuple[str, ...], tuple[str, ...]] | None = None

    def to_json(self, within: bool) -> dict:
        d = {"file": self.file}
        if self.description is not None:
            d.update(self.description.to_json())
            d["size"] = self.description.size
        if self.presets is not None:
            d["presets"] = {"names": list(self.presets[0]), "facts": list(self.presets[1])}
        if within:
            d["violations"] = [v.to_json() for v in self.found]
            d["undecided"] = [v.to_json() for v in self.undecided]
        if self.export is not None:
            d["export"] = self.export
        d["seconds"] = round(self.seconds, 4)
        d["error"] = self.error
        return d


def inputs_of_file(path: str, within: dict | None = None, export: bool = False,
                   presets: tuple[str, ...] = ()) -> FileInputs:
    """One file's report; never raises for a bad file (the error is in the report).
    With ``presets``, their facts are assumed ahead of the asserts (checked at the
    example point first: a refused preset is the file's error, a usage error)."""
    start = time.process_time()
    with T.fresh_table():
        loaded = load_program(path, label=path)
        if not loaded.ok:
            return FileInputs(path, error=" ".join(loaded.error.split()))
        try:
            facts = preset_facts.checked_facts(loaded.program, presets)
            assumed = [f.term for f in facts]
            d = describe_program(loaded.program, assumed)
            follow = preset_facts.followers(loaded.program, presets, within or ())
            found, undecided = violations(loaded.program, within, assumed=assumed, followers=follow) \
                if within else ([], [])
            unbacked = frozenset(s.name for s in loaded.program.symbols if not s.backed)
            text = export_text(d, path, unbacked) if export else None
        except preset_facts.PresetRefused as e:
            return FileInputs(path, error=f"{path}: {e}", usage_error=True)
        except BadDeclaration as e:
            return FileInputs(path, error=f"{path}: --within: {e}", usage_error=True)
        except Exception as e:  # a bug of ours: the other files are still reported
            return FileInputs(path, error=" ".join(f"{path}: internal error: {type(e).__name__}: {e}".split()))
        shown = (tuple(presets), tuple(readable_smtlib(f.term) for f in facts)) if presets else None
        return FileInputs(path, d, tuple(found), tuple(undecided), text, time.process_time() - start,
                          presets=shown)


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


def _outcome(report: FileInputs, args, within: bool) -> Outcome:
    """The report as the runner prints it: errors and undecided guards on stderr; the export,
    or the summary and the inputs that make a guard fail, on stdout."""
    messages = ((report.error,) if report.error is not None else ()) + tuple(v.message() for v in report.undecided)
    text: tuple[str, ...] = ()
    if report.error is None:
        text = (report.export,) if args.export else tuple(summary(report))
        text += tuple(v.message() for v in report.found)
    error = report.error is not None
    status = USAGE if report.usage_error else PROBLEM if error or report.found else OK
    return Outcome(report.to_json(within), text, messages, status,
                   {"errors": int(error), "can_fail": int(bool(report.found))})


def _summary(within: bool):
    def line(n: int, tally) -> str | None:
        if n < 2:
            return None
        return f"{n} file(s), {tally['errors']} with an error" + (
            f", {tally['can_fail']} where an assert can fail" if within else "")
    return line
