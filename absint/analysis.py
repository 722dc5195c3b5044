"""The analysis of one program: every assert decided against the asserts before it, then
assumed, and every verdict checked at the example point.

It lies below the packages that run it: ``absint analyze`` (:mod:`absint.batch.analyze`, which
adds reading, presets and the record), ``absint presets`` (:mod:`absint.presets.explore`),
``absint explain`` and the comparison's absint oracle. It imports none of them.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Mapping, Protocol, Sequence

import attrs

from absint.lang.evaluator import NotEvaluable, evaluate
from absint.lang.program import Program
from absint.lang.terms import Term
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import UNKNOWN, Truth, Verdict


class AssertReasoner(Protocol):
    """What the analysis of a program asks of its reasoner (a :class:`Reasoner`, or a wrapper
    around one, as the comparison's timing is)."""

    @property
    def contradiction(self) -> bool:
        """Whether the facts so far contradict each other."""

    def prefer_to_eliminate(self, variables: Iterable[Term]) -> None:
        """Variables to solve equalities for first (the backed symbols)."""

    def example(self, values: Mapping[str, object]) -> None:
        """The example point (the backed symbols' hints)."""

    def register(self, terms: Iterable[Term]) -> None:
        """Terms to keep up to date from now on (the program's named sums)."""

    def decide(self, guard: Term) -> Verdict:
        """The guard's verdict under the facts so far."""

    def assume(self, fact: Term) -> None:
        """One more fact."""


@attrs.frozen(slots=True)
class ProgramAnalysis:
    """``inconsistent_at``: the first assert that is false at the example point (the
    hints contradict the file), or None."""

    verdicts: tuple[Verdict, ...]
    contradiction: int | None
    example_violations: tuple[int, ...]
    inconsistent_at: int | None = None
    #: (assert index, message) of the asserts an internal error left undecided
    assert_errors: tuple[tuple[int, str], ...] = ()

    @property
    def letters(self) -> str:
        return "".join(v.letter for v in self.verdicts)

    def layer_counts(self) -> dict[str, int]:
        return dict(Counter(v.by.value for v in self.verdicts if v.truth is not Truth.UNKNOWN))

    @property
    def warning(self) -> str | None:
        if self.inconsistent_at is None:
            return None
        return f"example point violates assert {self.inconsistent_at}: hints inconsistent"


def analyze_program(program: Program, check_example: bool = True, reasoner: AssertReasoner | None = None,
                    assumed: Sequence[Term] = ()) -> ProgramAnalysis:
    """Decide each assert given the ones before it, then assume it.

    With ``check_example``, the verdicts are checked at the example point
    (:func:`example_violations`); a violation is a soundness bug. ``assumed``: facts
    (a preset's, checked by the caller) assumed before the first assert.
    """
    r = reasoner if reasoner is not None else Reasoner()
    r.prefer_to_eliminate(s.term for s in program.symbols if s.backed)
    r.example(program.hints())
    for fact in assumed:
        r.assume(fact)
    definitions, first_use = program.definitions()
    verdicts: list[Verdict] = []
    errors: list[tuple[int, str]] = []
    contradiction = None
    for fact in program.facts:
        if fact.index == first_use:
            r.register(definitions)
        verdicts.append(_decided(r, fact, errors))
        if not _assumed(r, fact, errors):
            verdicts += [UNKNOWN] * (len(program.facts) - len(verdicts))
            break
        if contradiction is None and r.contradiction:
            contradiction = fact.index
    errors_ = tuple(errors)
    if not check_example:
        return ProgramAnalysis(tuple(verdicts), contradiction, (), assert_errors=errors_)
    values = example_values(program)
    broken = next((f.index for f, value in zip(program.facts, values) if value is False), None)
    return ProgramAnalysis(tuple(verdicts), contradiction, example_violations(program, verdicts, values), broken,
                           errors_)


def _decided(r: AssertReasoner, fact, errors: list[tuple[int, str]]) -> Verdict:
    """``r.decide`` of one assert; an internal error costs that assert only (UNKNOWN, its
    message kept), not the file's other verdicts."""
    try:
        return r.decide(fact.term)
    except Exception as e:  # a bug of ours (RecursionError, isl): the other asserts go on
        errors.append((fact.index, _internal(fact, e)))
        return UNKNOWN


def _assumed(r: AssertReasoner, fact, errors: list[tuple[int, str]]) -> bool:
    """``r.assume`` of one assert; False after an internal error: the reasoner may hold part
    of the fact's consequences, so the asserts after it are left undecided (never a verdict
    from a half-updated state)."""
    try:
        r.assume(fact.term)
        return True
    except Exception as e:
        errors.append((fact.index, _internal(fact, e) + "; the asserts after it are not decided"))
        return False


def _internal(fact, e: BaseException) -> str:
    where = f"{fact.position}: " if fact.position is not None else f"assert {fact.index}: "
    return " ".join(f"{where}internal error: {type(e).__name__}: {e}".split())[:300]


def example_values(program: Program) -> list[bool | None]:
    """Each assert's truth at the example point; None where it cannot be evaluated (unbacked symbols)."""
    point = program.hints()
    memo: dict = {}
    out: list[bool | None] = []
    for fact in program.facts:
        try:
            out.append(evaluate(fact.term, point, memo) is True)
        except NotEvaluable:
            out.append(None)
    return out


def example_violations(program: Program, verdicts: list[Verdict], values: list[bool | None]) -> tuple[int, ...]:
    """The asserts whose verdict the example point contradicts.

    If every assert holds at the point (or cannot be evaluated there), the point
    stands for the traced run in which all of them held, so a FALSE anywhere is a
    bug. If an assert is false there, the hints are inconsistent and the point
    stands for nothing beyond it: a verdict is checked only up to the first such
    assert, and only where the point fully evaluates that assert and every one
    before it (then the point is a real model of them): a TRUE on an assert false
    there, or a FALSE on one true there, is still a bug. A program without any
    example value (a hand-written specification, not a trace) is checked nowhere.
    """
    if not program.hints():
        return ()
    if all(value is not False for value in values):
        return tuple(f.index for f, v in zip(program.facts, verdicts) if v.truth is Truth.FALSE)
    out = []
    for fact, v, value in zip(program.facts, verdicts, values):
        if value is None:
            break
        if v.truth is not Truth.UNKNOWN and (v.truth is Truth.TRUE) is not value:
            out.append(fact.index)
        if value is False:
            break
    return tuple(out)
