"""One file's ``absint check`` report: it parses, and every assert holds at its example point.

This is the self-test of the reader and the term normal forms: the program was
traced at the hints, so an assert that evaluates to false there means we read or
normalised something wrongly. With presets, their facts must hold there too.
"""

from __future__ import annotations

import attrs

from absint.lang.evaluator import NotEvaluable, evaluate
from absint.lang.terms import fresh_table
from absint.presets import facts as preset_facts
from absint.readers.files import load_program


@attrs.frozen(slots=True)
class CheckReport:
    file: str
    asserts: int = 0
    holding: int = 0
    failing: tuple[str, ...] = ()
    not_evaluable: tuple[str, ...] = ()
    unbacked: int = 0
    error: str | None = None
    #: with --preset: how many preset facts hold at the example point; a refused preset is
    #: ``refused`` (the failing fact), which makes the run's exit status 2
    preset_facts: int = 0
    refused: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and not self.failing and self.refused is None

    def to_json(self) -> dict:
        """The ``--json`` line: every field, and ``ok``."""
        return {"file": self.file, "ok": self.ok, "asserts": self.asserts, "holding": self.holding,
                "failing": list(self.failing), "not_evaluable": list(self.not_evaluable),
                "unbacked": self.unbacked, "error": self.error, "preset_facts": self.preset_facts,
                "refused": self.refused}

    def summary(self) -> str:
        if self.error is not None:
            return f"{self.file}: ERROR {self.error}"
        parts = [f"{self.asserts} asserts", f"{self.holding} hold at the example point"]
        if self.failing:
            parts.append(f"{len(self.failing)} FAIL (first: {self.failing[0]})")
        if self.not_evaluable:
            parts.append(f"{len(self.not_evaluable)} not evaluable (unbacked or undefined)")
        if self.preset_facts:
            parts.append(f"{self.preset_facts} preset fact(s) hold")
        if self.refused is not None:
            parts.append(self.refused)
        status = "ok" if self.ok else "FAIL"
        return f"{self.file}: {status}: " + ", ".join(parts)


def check_file(path: str, max_size: int = 0, presets: tuple[str, ...] = ()) -> CheckReport:
    """One file's report; never raises for a bad file. Only a regular file of at most
    ``max_size`` bytes (0: any) is read. Every assert is evaluated at the example point;
    with ``presets``, their facts too (built here, from the program read)."""
    with fresh_table():
        loaded = load_program(path, label=path, max_size=max_size)
        if loaded.program is None:
            return CheckReport(path, error=loaded.error)
        return _check_program(path, loaded.program, presets)


def _check_program(name: str, program, presets: tuple[str, ...] = ()) -> CheckReport:
    point = program.hints()
    memo: dict = {}
    failing, not_evaluable, holding = [], [], 0
    for fact in program.facts:
        try:
            value = evaluate(fact.term, point, memo)
        except NotEvaluable as e:
            not_evaluable.append(f"{fact.position}: {e}")
            continue
        if value is True:
            holding += 1
        else:
            failing.append(f"{fact.position}: {fact.term!r}")
    facts = preset_facts.preset_facts(program, presets)
    refused = preset_facts.refused_fact(program, facts)
    return CheckReport(name, len(program.facts), holding, tuple(failing), tuple(not_evaluable),
                       len(program.unbacked), preset_facts=len(facts) if refused is None else 0,
                       refused=None if refused is None else str(refused))
