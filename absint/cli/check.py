"""``absint check``: a file parses and every assert holds at its example point.

This is the self-test of the reader and the term normal forms: the program was
traced at the hints, so an assert that evaluates to false there means we read or
normalised something wrongly.
"""

from __future__ import annotations

import os

import attrs

from absint.lang.evaluator import NotEvaluable, evaluate
from absint.presets import facts as preset_facts
from absint.presets import option as preset_option
from absint.readers.smtlib import SmtLibError, read_file


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


def check_file(path: str, presets: tuple[str, ...] = ()) -> CheckReport:
    """Every assert evaluated at the example point; with ``presets``, their facts too."""
    name = os.path.basename(path)
    try:
        program = read_file(path)
    except SmtLibError as e:
        return CheckReport(name, error=str(e))
    except OSError as e:
        return CheckReport(name, error=f"{path}: {e.strerror or e}")
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


def add_arguments(parser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help=".smt2 files or directories (searched for *.smt2)")
    preset_option.add_argument(parser)


def run(args) -> int:
    import sys

    from absint.readers.files import smt2_files

    try:
        presets = preset_option.names(args)
    except preset_option.PresetError as e:
        print(f"absint check: {e}", file=sys.stderr)
        return 2
    files = smt2_files(args.paths)
    if not files:
        print("absint check: no .smt2 files found", file=sys.stderr)
        return 2
    failed = refused = 0
    for f in files:
        report = check_file(f, presets)
        print(report.summary())
        failed += not report.ok
        refused += report.refused is not None
    print(f"{len(files)} file(s), {failed} with a problem")
    return 2 if refused else 1 if failed else 0
