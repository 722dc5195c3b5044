"""``absint outputs``: each output of a program as an expression over its inputs.

After every assert of a file (and the ``--preset`` facts before them), each numeric
output (``output<k>_size<d>``, ``_stride<d>``, ``_storage_offset``) is shown as the
simplest expression found equal to it under the facts (:meth:`Reasoner.simplify`): its
constant when the facts fix it (its bounds are a point), else the normal form with
nested constant divisions folded, decided ``min``/``max``/``ite`` resolved and fixed
remainders moved out. An expression is *exact* when it mentions only inputs (backed
symbols); otherwise (an unbacked size in it) only its bounds describe it over the inputs.
"""

from __future__ import annotations

import argparse

import attrs

from absint.cli.bounds import assume_program, json_number, number, one_line
from absint.batch.budgets import add_budget_arguments, max_size
from absint.cli.runner import JSON_HELP, Outcome, add_paths, each_file, files_with_errors, reported
from absint.lang import terms as T
from absint.lang.kinds import CONST
from absint.lang.printer import to_infix, to_smtlib
from absint.lang.program import Program
from absint.lang.terms import BOOL, Term
from absint.presets import facts as preset_facts
from absint.presets import option as preset_option
from absint.readers.files import load_program

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


@attrs.frozen(slots=True)
class OutputExpr:
    """One output: its expression (a term), whether it is over the inputs only, its bounds."""

    name: str
    expr: Term
    exact: bool
    lo: object
    hi: object

    @property
    def constant(self) -> object | None:
        return self.expr.data if self.expr.kind == CONST else None

    def to_json(self) -> dict:
        c = self.constant
        return {"name": self.name, "expr": to_smtlib(self.expr), "exact": self.exact,
                "constant": None if c is None else json_number(c),
                "lo": json_number(self.lo), "hi": json_number(self.hi)}


@attrs.frozen(slots=True)
class FileOutputs:
    file: str
    asserts: int = 0
    outputs: tuple[OutputExpr, ...] = ()
    presets: tuple[str, ...] = ()
    contradiction: int | None = None
    contradiction_at: str | None = None
    error: str | None = None
    usage_error: bool = False

    def to_json(self) -> dict:
        return {"file": self.file, "asserts": self.asserts, "presets": list(self.presets),
                "contradiction": self.contradiction, "outputs": [o.to_json() for o in self.outputs],
                "error": self.error}


def outputs_of_program(program: Program, presets: tuple[str, ...] = (), file: str | None = None) -> FileOutputs:
    """Assume the presets' facts and every assert, then simplify each numeric output."""
    file = program.name if file is None else file
    base = FileOutputs(file, len(program.facts), presets=presets)
    try:
        assumed = assume_program(program, presets, file)
    except preset_facts.PresetRefused as e:
        return attrs.evolve(base, error=f"{file}: {e}", usage_error=True)
    if assumed.contradiction is not None:
        return attrs.evolve(base, contradiction=assumed.contradiction, contradiction_at=assumed.contradiction_at)
    r = assumed.reasoner
    inputs = {s.term for s in program.symbols if s.backed}
    shown = []
    for name, t in program.outputs:
        if t.sort is BOOL:
            continue
        s = r.simplify(t)
        shown.append(OutputExpr(name, s.term, set(T.free_vars(s.term)) <= inputs, s.lo, s.hi))
    return attrs.evolve(base, outputs=tuple(shown))


def outputs_of_file(path: str, presets: tuple[str, ...] = (), max_size: int = 0) -> FileOutputs:
    """One file's report, read in a fresh term table; never raises for a bad file. Only a
    regular file of at most ``max_size`` bytes (0: any) is read."""
    try:
        with T.fresh_table():
            loaded = load_program(path, label=path, max_size=max_size)
            if loaded.program is None:
                return FileOutputs(path, error=one_line(str(loaded.error)))
            return outputs_of_program(loaded.program, presets, file=path)
    except Exception as e:  # a bug of ours: the other files are still reported
        return FileOutputs(path, error=one_line(f"{path}: internal error: {type(e).__name__}: {e}"))


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
    def job(path: str, presets: tuple[str, ...]) -> Outcome:
        report = outputs_of_file(path, presets, max_size(args))
        tally = {"outputs": len(report.outputs), "constant": sum(o.constant is not None for o in report.outputs)}
        return reported(report.to_json(), lambda: table(report, args.smtlib), report.error, report.usage_error, tally)

    return each_file(args, "outputs", job, summary=_summary)


def _summary(n: int, tally) -> str | None:
    if n < 2:
        return None
    return f"{files_with_errors(n, tally)}; {tally['outputs']} output(s), {tally['constant']} constant"
