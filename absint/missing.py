"""What a question is missing: the weakest extra facts that, added to what a reasoner knows,
decide it the way an example point goes.

Used by ``absint explain FILE:LINE --missing`` (an open assert of an smt2 file) and by
``python -m absint.torch diagnose`` (a question neither PyTorch nor absint decides).

Candidates are built over the question's own atoms (its variables and its products,
quotients and remainders, the *subjects*) and the families the caller names (the lengths of
one split): bounds ``x >= k`` / ``x <= k`` (the weakest ``k`` found by search), orderings of two
subjects, a variable's example value (``x == v``, when nothing weaker decides), a family's
sum against a subject or a constant, every member of a family ``>= 0``, non-zero, and residues ``x mod m == r`` for the question's constant divisors ``m``. A
candidate that is not true at the example point is never kept (nor one that cannot be
evaluated there); each kept one is checked by the reasoner: with it assumed (tentatively,
taken back after) the question is TRUE, and the facts stay consistent. When no single
candidate decides, pairs are tried. *Weakest*: a deciding candidate that, with the facts,
implies another deciding one is dropped for it.
"""

from __future__ import annotations

import itertools
import time
from typing import Iterable, Sequence

import attrs

from absint.lang import terms as T
from absint.lang.dag import subterms
from absint.lang.evaluator import NotEvaluable, evaluate, truth_at
from absint.lang.kinds import DIV, LE, MAX, MIN, MOD, MUL, VAR
from absint.lang.sorts import INT
from absint.lang.terms import Term
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Truth

#: subjects (variables first, then non-linear atoms) a question's candidates are built on
MAX_SUBJECTS = 8
#: how far from the example value a bound's search goes (2**20 on either side)
BOUND_REACH = 1 << 20
#: candidates tried two at a time when no single one decides
MAX_PAIRED = 14
#: the order candidates are listed in; of two equivalent ones the kind listed first stays
KINDS = ("question", "residue", "nonzero", "bound", "value", "order", "sum", "family", "pair")


@attrs.frozen(slots=True)
class Candidate:
    """One suggestion: ``facts`` (one, or two that decide only together) and its ``kind``."""

    facts: tuple[Term, ...]
    kind: str

    @property
    def fact(self) -> Term:
        return self.facts[0] if len(self.facts) == 1 else T.and_(*self.facts)


@attrs.define(slots=True)
class Search:
    """One question's search: the reasoner (its facts are what is known), the goal (wanted
    TRUE), the example point and the CPU deadline."""

    reasoner: Reasoner
    goal: Term
    point: dict
    deadline: float

    def holds(self, fact: Term) -> bool:
        return truth_at(fact, self.point) is True

    def decides(self, facts: Sequence[Term], goal: Term | None = None) -> bool:
        """Whether the facts, with ``facts`` assumed, imply ``goal`` (default: the question)
        and are not contradictory."""
        r = self.reasoner
        with r.tentatively():
            for f in facts:
                r.assume(f)
            if r.contradiction:
                return False
            return r.decide(self.goal if goal is None else goal).truth is Truth.TRUE

    def late(self) -> bool:
        return time.process_time() > self.deadline

    def bounds(self, t: Term) -> tuple:
        with self.reasoner.tentatively():
            return self.reasoner.bounds(t)


def missing(reasoner: Reasoner, goal: Term, point: dict, *, families: Iterable[Sequence[Term]] = (),
            include_goal: bool = False, prune: bool = True, seconds: float = 5.0) -> list[Candidate]:
    """The candidates that decide ``goal`` TRUE with ``reasoner``'s facts, each true at
    ``point``: the weakest singles (all deciding singles when ``prune`` is False), else
    deciding pairs. Empty when ``goal`` is not true at ``point`` (no fact the example
    satisfies can prove it) or nothing was found within ``seconds`` of CPU.
    ``include_goal``: the goal itself is a candidate too (PyTorch needs exactly it)."""
    if truth_at(goal, point) is not True:
        return []
    s = Search(reasoner, goal, dict(point), time.process_time() + seconds)
    families = [list(f) for f in families if len(f) >= 2]
    found = subjects(goal, point, families)
    singles = list(_candidates(s, found, families))
    if include_goal:
        singles.insert(0, Candidate((goal,), "question"))
    deciding, helping = [], []
    for c in singles:
        if s.late():
            break
        (deciding if s.decides(c.facts) else helping).append(c)
    if deciding:
        return _weakest(s, deciding) if prune else deciding
    return _pairs(s, _strong_bounds(found) + helping)


def subjects(goal: Term, point: dict, families: Sequence[Sequence[Term]] = ()) -> list[tuple[Term, int]]:
    """The question's Int variables, then its products, quotients, remainders, min and max,
    then the other members of the families, each with its value at ``point`` (those
    without one are left out); at most :data:`MAX_SUBJECTS`."""
    found, seen = [], set()
    inside = sorted(subterms(goal), key=lambda t: (t.kind != VAR, t.id))
    for t in inside + [m for f in families for m in f]:
        if t.id in seen or t.sort is not INT or t.kind not in (VAR, MUL, DIV, MOD, MIN, MAX):
            continue
        seen.add(t.id)
        v = _value(t, point)
        if v is not None:
            found.append((t, v))
        if len(found) >= MAX_SUBJECTS:
            break
    return found


def _value(t: Term, point: dict) -> int | None:
    try:
        v = evaluate(t, point)
    except (NotEvaluable, KeyError):
        return None
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _candidates(s: Search, found: list[tuple[Term, int]], families: list[list[Term]]) -> Iterable[Candidate]:
    """Every kind of candidate, simplest first; only those true at the example point.
    Remainders get residues, not bounds."""
    for x, v in found:
        for lower in (True, False) if x.kind != MOD else ():
            c = _weakest_bound(s, x, v, lower)
            if c is not None:
                yield c
    values = (Candidate((T.eq(x, T.const(v)),), "value") for x, v in found if x.kind == VAR)
    for c in itertools.chain(_nonzero(s, found), _residues(s, found), values, _orders(s, found),
                             _family_facts(s, families, found)):
        if s.holds(c.fact):
            yield c


def _weakest_bound(s: Search, x: Term, v: int, lower: bool, extra: tuple[Term, ...] = ()) -> Candidate | None:
    """``x >= k`` (or ``x <= k``) with the weakest ``k`` the search finds that still decides
    (with ``extra`` assumed too): ``k = v`` (the example's value, the strongest bound it
    satisfies) first, then outwards by doubling steps and back by halving (a bound tried is
    always checked)."""
    def fact(k: int) -> Term:
        return T.ge(x, T.const(k)) if lower else T.le(x, T.const(k))

    def decides(k: int) -> bool:
        return s.decides(extra + (fact(k),))

    if s.late() or not decides(v):
        return None
    lo, hi = s.bounds(x)
    known = lo if lower else hi
    good, bad, step = v, None, 1
    while step <= BOUND_REACH and not s.late():
        k = v - step if lower else v + step
        if isinstance(known, int) and (k <= known if lower else k >= known):
            bad = known  # the facts already give this bound: it cannot decide an open question
            break
        if not decides(k):
            bad = k
            break
        good, step = k, step * 2
    while bad is not None and abs(good - bad) > 1 and not s.late():
        mid = (good + bad) // 2
        if decides(mid):
            good = mid
        else:
            bad = mid
    return Candidate((fact(good),), "bound")


def _nonzero(s: Search, found: list[tuple[Term, int]]) -> Iterable[Candidate]:
    divisors = [t.args[1] for t in subterms(s.goal) if t.kind in (DIV, MOD) and not t.args[1].is_const]
    seen = set()
    for x in [d for d in divisors] + [x for x, _ in found]:
        if x.id not in seen and x.sort is INT:
            seen.add(x.id)
            yield Candidate((T.ne(x, T.ZERO),), "nonzero")


def _residues(s: Search, found: list[tuple[Term, int]]) -> Iterable[Candidate]:
    """``x mod m == r`` for each constant divisor ``m >= 2`` of the question, over the
    dividend and the subjects in it, ``r`` the example's residue."""
    for t in subterms(s.goal):
        if t.kind not in (DIV, MOD) or not t.args[1].is_const:
            continue
        m = t.args[1].data
        if not isinstance(m, int) or abs(m) < 2:
            continue
        inside = {a.id for a in subterms(t.args[0])}
        for x in [t.args[0]] + [x for x, _ in found if x.id in inside and x is not t.args[0]]:
            v = _value(x, s.point)
            if v is not None:
                yield Candidate((T.eq(T.mod(x, T.const(abs(m))), T.const(v % abs(m))),), "residue")


def _orders(s: Search, found: list[tuple[Term, int]]) -> Iterable[Candidate]:
    """Two variables ordered as at the example: ``x <= y``, and ``x < y`` or ``x == y``."""
    for (x, vx), (y, vy) in itertools.combinations([(x, v) for x, v in found if x.kind == VAR], 2):
        if vx > vy:
            (x, vx), (y, vy) = (y, vy), (x, vx)
        yield Candidate((T.le(x, y),), "order")
        yield Candidate((T.lt(x, y) if vx < vy else T.eq(x, y),), "order")


def _family_facts(s: Search, families: list[Sequence[Term]], found: list[tuple[Term, int]]) -> Iterable[Candidate]:
    """For each family (of two or more members): every member ``>= 0``, and the family's sum
    against each subject outside it and against its own weakest constant bounds."""
    for members in families:
        members = list(members)
        if len(members) < 2:
            continue
        yield Candidate((T.and_(*(T.ge(m, T.ZERO) for m in members)),), "family")
        total = T.add(*members)
        inside = {m.id for m in members}
        for y, _ in found:
            if y.id not in inside:
                yield Candidate((T.le(total, y),), "sum")
                yield Candidate((T.ge(total, y),), "sum")
        v = _value(total, s.point)
        for lower in (False, True):
            c = _weakest_bound(s, total, v, lower) if v is not None else None
            if c is not None:
                yield Candidate(c.facts, "sum")


def _weakest(s: Search, deciding: list[Candidate]) -> list[Candidate]:
    """The weakest of the deciding candidates, taken in :data:`KINDS` order: one that
    implies (under the facts) a candidate kept already is left out (of equivalent ones the
    first stays), and one kept that it is implied by without implying it back goes. Never
    empty: the reasoner is incomplete, so "implies" need not be transitive, and a pass over
    all pairs could drop every candidate."""
    kept: list[Candidate] = []
    for c in sorted(deciding, key=lambda c: KINDS.index(c.kind)):
        if s.late() and kept:
            break
        if any(s.decides(c.facts, k.fact) for k in kept):
            continue
        kept = [k for k in kept if not s.decides(k.facts, c.fact)] + [c]
    return kept


def _strong_bounds(found: list[tuple[Term, int]]) -> list[Candidate]:
    """Each subject bounded by its example value from below (then from above): the
    strongest bounds the example satisfies, weakened once a pair decides (:func:`_pairs`)."""
    return [Candidate((T.ge(x, T.const(v)) if lower else T.le(x, T.const(v)),), "bound")
            for lower in (True, False) for x, v in found[:MAX_PAIRED // 2] if x.kind != MOD]


def _pairs(s: Search, helping: list[Candidate]) -> list[Candidate]:
    """Two candidates that decide together (neither does alone, as far as :func:`missing`
    tried), each bound among them weakened with the other assumed; the first few found."""
    out: list[Candidate] = []
    for a, b in itertools.combinations(helping[:MAX_PAIRED * 2], 2):
        if s.late() or len(out) >= 3:
            break
        if s.decides(a.facts + b.facts):
            facts = _weakened(s, a.facts[0], b.facts) + _weakened(s, b.facts[0], a.facts)
            if s.decides(facts) and Candidate(facts, "pair") not in out:
                out.append(Candidate(facts, "pair"))
    return out


def _weakened(s: Search, fact: Term, other: tuple[Term, ...]) -> tuple[Term, ...]:
    """``fact`` (a bound ``x >= v`` or ``x <= v`` from :func:`_strong_bounds`) as weak as it can
    get with ``other`` assumed; any other fact unchanged."""
    if fact.kind != LE:
        return (fact,)
    coefs, c = T.linear_parts(fact.args[0])
    if len(coefs) != 1:
        return (fact,)
    ((x, coef),) = coefs.items()
    if coef not in (1, -1) or x.sort is not INT or not isinstance(c, int):
        return (fact,)
    lower = coef == -1  # -x + v <= 0 is x >= v
    found = _weakest_bound(s, x, c if lower else -c, lower, other)
    return (fact,) if found is None else found.facts
