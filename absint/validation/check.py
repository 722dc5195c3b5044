"""Translation validation against the facts: pairs of expressions, and programs step by step.

A simplifier (PyTorch's, or ours) rewrites guards and sizes; a wrong rewrite changes
what a program checks. Two questions, both answered soundly:

- **pairs** (:func:`validate_pairs`): ``source<k>`` and ``target<k>`` are the same under
  the facts: equal numbers, or (Bool) the target implies the source (``equiv``: both
  ways). ``equal`` needs a proof (:meth:`Reasoner.decide`, with case splitting on
  constant divisors too); ``differ`` needs a point the evaluator confirms
  (:mod:`absint.search.engine`); anything else is ``unknown``.
- **bisection** (:func:`bisect`): two programs with their asserts in the same order, the
  recorded guards (source) and their simplified forms (target). At step ``i`` the
  targets ``0..i`` must imply source ``i``; the first step where a confirmed point shows
  they do not is reported. Checking only the end (all targets imply all sources, as
  PyTorch's Z3 bisection does) misses a failure that later guards hide: that is
  ``final``, reported apart.
"""

from __future__ import annotations

import re
from typing import Mapping, Sequence

import attrs

from absint.lang import terms as T
from absint.lang.program import Program
from absint.lang.terms import BOOL, Term
from absint.reasoning.case_split import CaseBudget
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Layer, Truth, Verdict
from absint.search import engine

#: validation may afford more splitting than a compiler's guard: constant divisors too
VALIDATION_CASES = CaseBudget(constant_divisors=True, relational=True, propagation=None, backoff=False)

EQUAL, DIFFER, UNKNOWN = "equal", "differ", "unknown"
VALID, INVALID = "valid", "invalid"

_SOURCE = re.compile(r"source(.*)")


class ValidationError(ValueError):
    """The input cannot be validated as asked (a pair without its partner, mismatched sorts,
    programs of different lengths); the message names the file."""


@attrs.frozen(slots=True)
class PairResult:
    """One pair's verdict; ``counterexample`` (for ``differ``) maps symbols to integers."""

    name: str
    verdict: str
    counterexample: dict | None = attrs.field(default=None, eq=False)

    def as_json(self) -> dict:
        return {"name": self.name, "verdict": self.verdict, "counterexample": jsonable(self.counterexample)}


@attrs.frozen(slots=True)
class BisectResult:
    """``first_failing``: the first assert index whose source the targets up to it do not
    imply (with a confirmed ``counterexample``); ``unproved``: earlier steps neither proved
    nor refuted (the first failure may be among them); ``final``: valid | invalid | unknown
    for all targets against all sources."""

    steps: int
    first_failing: int | None
    counterexample: dict | None = attrs.field(eq=False)
    unproved: tuple[int, ...]
    final: str
    final_failing: int | None = None

    def as_json(self) -> dict:
        return {"first_failing": self.first_failing, "counterexample": jsonable(self.counterexample),
                "final": self.final, "final_failing": self.final_failing, "steps": self.steps,
                "unproved": list(self.unproved)}


def jsonable(point: Mapping[str, object] | None) -> dict | None:
    """A point for JSON: integers as numbers, other rationals as strings (``"1/2"``)."""
    if point is None:
        return None
    return {k: v if isinstance(v, (bool, int)) else int(v) if v == int(v) else str(v) for k, v in point.items()}


def reasoner_for(facts: Sequence[Term], hints: Mapping[str, object], symbols: Sequence[Term]) -> Reasoner:
    """A reasoner holding ``facts``, backed symbols eliminated first (as ``absint analyze``)."""
    r = Reasoner(cases=VALIDATION_CASES, backed=[s for s in symbols if s.data in hints])
    for f in facts:
        r.assume(f)
    return r


def implied(reasoner: Reasoner, premise: Term | None, conclusion: Term) -> Verdict | None:
    """The TRUE verdict if the facts (and ``premise``) imply ``conclusion``, else None:
    proved, never guessed."""
    if premise is None:
        v = reasoner.decide(conclusion)
        return v if v.truth is Truth.TRUE else None
    with reasoner.tentatively():
        reasoner.assume(premise)
        if reasoner.contradiction:
            return Verdict.true(Layer.CONTRADICTION)
        v = reasoner.decide(conclusion)
        return v if v.truth is Truth.TRUE else None


def equivalence(reasoner: Reasoner, facts: Sequence[Term], hints: Mapping[str, object],
                source: Term, target: Term, equiv: bool = False) -> Verdict:
    """TRUE: the pair is proved the same (the costliest layer named); FALSE with a confirmed
    ``counterexample``; else UNKNOWN (see the module docstring for what "same" means)."""
    if source.sort is BOOL:
        directions = [(target, source)] + ([(source, target)] if equiv else [])
    else:
        directions = [(None, T.eq(source, target))]
    proved: list[Verdict] = []
    for premise, conclusion in directions:
        v = implied(reasoner, premise, conclusion)
        if v is not None:
            proved.append(v)
            continue
        goal = T.not_(conclusion) if premise is None else T.and_(premise, T.not_(conclusion))
        point = engine.counterexample(reasoner, facts, goal, hints)
        if point is not None:
            return Verdict(Truth.FALSE, Layer.NONE, point)
    if len(proved) < len(directions):
        return Verdict(Truth.UNKNOWN)
    return proved[-1] if len(proved) == 1 else Verdict.true(max((v.by for v in proved), key=_cost))


def _cost(layer: Layer) -> int:
    return list(Layer).index(layer)


def compare(reasoner: Reasoner, facts: Sequence[Term], hints: Mapping[str, object],
            source: Term, target: Term, equiv: bool = False) -> tuple[str, dict | None]:
    """``(verdict, counterexample)`` for one pair: equal, differ or unknown."""
    v = equivalence(reasoner, facts, hints, source, target, equiv)
    return {Truth.TRUE: EQUAL, Truth.FALSE: DIFFER, Truth.UNKNOWN: UNKNOWN}[v.truth], v.counterexample


def pairs_of(program: Program, definitions: Mapping[str, Term]) -> list[tuple[str, Term, Term]]:
    """``(k, source<k>, target<k>)`` in the order the sources were defined."""
    out = []
    for name, source in definitions.items():
        m = _SOURCE.fullmatch(name)
        if m is None:
            continue
        k = m.group(1)
        target = definitions.get(f"target{k}")
        if target is None:
            raise ValidationError(f"{program.name}: {name} has no target{k}")
        if (source.sort is BOOL) != (target.sort is BOOL):
            raise ValidationError(f"{program.name}: source{k} and target{k} are not both Bool "
                                  f"or both numbers ({source.sort.value}, {target.sort.value})")
        out.append((k, source, target))
    for name in definitions:
        if name.startswith("target") and f"source{name[len('target'):]}" not in definitions:
            raise ValidationError(f"{program.name}: {name} has no source{name[len('target'):]}")
    return out


def validate_pairs(program: Program, definitions: Mapping[str, Term], equiv: bool = False) -> list[PairResult]:
    """Every ``source<k>``/``target<k>`` pair of a program, under its asserts."""
    found = pairs_of(program, definitions)
    facts = [f.term for f in program.facts]
    hints = program.hints()
    reasoner = reasoner_for(facts, hints, [s.term for s in program.symbols])
    results = []
    for k, source, target in found:
        verdict, point = compare(reasoner, facts, hints, source, target, equiv)
        results.append(PairResult(k, verdict, point))
    return results


def bisect(source: Program, target: Program) -> BisectResult:
    """The first step at which the targets so far do not imply the source (see module doc)."""
    if len(source.facts) != len(target.facts):
        raise ValidationError(f"{source.name} has {len(source.facts)} asserts, "
                              f"{target.name} has {len(target.facts)}: they must pair up in order")
    sorts = {s.name: s.sort for s in source.symbols}
    for s in target.symbols:
        if sorts.get(s.name, s.sort) is not s.sort:
            raise ValidationError(f"{target.name}: {s.name} is {s.sort.value} here but "
                                  f"{sorts[s.name].value} in {source.name}")
    sources = [f.term for f in source.facts]
    targets = [f.term for f in target.facts]
    hints = {**target.hints(), **source.hints()}
    symbols = [s.term for s in source.symbols] + [s.term for s in target.symbols]
    reasoner = reasoner_for((), hints, symbols)
    first, point, unproved = None, None, []
    for i, (s, t) in enumerate(zip(sources, targets)):
        reasoner.assume(t)
        if first is not None or reasoner.decide(s).truth is Truth.TRUE:
            continue
        point = engine.counterexample(reasoner, targets[:i + 1], T.not_(s), hints)
        if point is None:
            unproved.append(i)
        else:
            first = i
    final, final_failing = _final(reasoner, sources, targets, hints)
    return BisectResult(len(sources), first, point, tuple(unproved), final, final_failing)


def _final(reasoner: Reasoner, sources: Sequence[Term], targets: Sequence[Term],
           hints: Mapping[str, object]) -> tuple[str, int | None]:
    """All targets against each source: valid, invalid (with the first refuted source), unknown."""
    final = VALID
    for i, s in enumerate(sources):
        if reasoner.decide(s).truth is Truth.TRUE:
            continue
        if engine.counterexample(reasoner, targets, T.not_(s), hints) is not None:
            return INVALID, i
        final = UNKNOWN
    return final, None
