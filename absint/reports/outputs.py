"""One file's ``absint outputs`` report: each output of a program as an expression over its inputs.

After every assert of a file (and the presets' facts before them), each numeric
output (``output<k>_size<d>``, ``_stride<d>``, ``_storage_offset``) is the
simplest expression found equal to it under the facts (:meth:`Reasoner.simplify`): its
constant when the facts fix it (its bounds are a point), else the normal form with
nested constant divisions folded, decided ``min``/``max``/``ite`` resolved and fixed
remainders moved out. An expression is *exact* when it mentions only inputs (backed
symbols); otherwise (an unbacked size in it) only its bounds describe it over the inputs.
"""

from __future__ import annotations

import attrs

from absint.lang import terms as T
from absint.lang.kinds import CONST
from absint.lang.printer import to_smtlib
from absint.lang.program import Program
from absint.lang.terms import BOOL, Term
from absint.presets import facts as preset_facts
from absint.readers.files import load_program
from absint.reports.bounds import assume_program, json_number, one_line


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
