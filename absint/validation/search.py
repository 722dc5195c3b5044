"""Counterexamples by concrete search: a point where the facts hold and a goal does too.

No proof says "these differ": a point does. The search labels the symbols one at a time
under a checkpoint of a reasoner that holds the facts and the goal, each value chosen
from the bounds propagation has narrowed so far (the hint when it fits, an end of the
bounds, a random value near the hint), then samples random points within the bounds.
Whatever it proposes is *checked by the evaluator* (:func:`absint.lang.evaluator.truth_at`)
on every fact and on the goal before it is returned, so a returned point is a
counterexample by SMT-LIB's semantics, whatever the reasoner may have got wrong.
Finding none proves nothing: the caller then says UNKNOWN.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Mapping, Sequence

from absint.lang import terms as T
from absint.lang.evaluator import truth_at
from absint.lang.terms import BOOL, Term

#: labelling passes (each a full assignment, values chosen by a different preference)
MAX_LABELLINGS = 6
#: random points tried after the labellings
MAX_RANDOM_POINTS = 200
#: how far from the hint (or 0) an unbounded symbol's values are drawn
WINDOW = 64
#: values tried for one symbol before the pass gives up on it (after the preferred value and
#: both ends, random ones: a product that must hit one value, such as ``a*b = 2**25``, needs a
#: factor the random tries can find)
TRIES_PER_SYMBOL = 12

_PREFERENCES = ("hint", "low", "high", "random", "random", "random")


def holds(facts: Sequence[Term], goal: Term, point: Mapping[str, int]) -> bool:
    """Whether every fact and ``goal`` evaluate to true at ``point``."""
    memo: dict = {}
    return truth_at(goal, point, memo) is True and all(truth_at(f, point, memo) is True for f in facts)


def symbols_of(terms: Sequence[Term]) -> list[Term]:
    """The variables of ``terms``, in first-occurrence order (the goal's first when it leads)."""
    seen: dict[Term, None] = {}
    for t in terms:
        for v in T.free_vars(t):
            seen.setdefault(v, None)
    return list(seen)


def find(reasoner, facts: Sequence[Term], goal: Term, hints: Mapping[str, int],
         seed: int = 0) -> dict[str, int] | None:
    """A point where ``facts`` (which ``reasoner`` already holds) and ``goal`` hold, or None.

    ``reasoner`` is left as it was (everything happens under a checkpoint)."""
    variables = symbols_of([goal, *facts])
    rng = random.Random(seed)
    base = {v.data: hints.get(v.data, False if v.sort is BOOL else 0) for v in variables}
    if holds(facts, goal, base):
        return base
    cp = reasoner.checkpoint()
    try:
        reasoner.assume(goal)
        if reasoner.contradiction:
            return None  # the facts refute the goal: no counterexample exists
        ranges = {v: _integer_bounds(reasoner.bounds(v)) for v in variables if v.sort is not BOOL}
        for preference in _PREFERENCES[:MAX_LABELLINGS]:
            point = _label(reasoner, variables, hints, preference, rng)
            if point is not None and holds(facts, goal, point):
                return point
    finally:
        reasoner.rollback(cp)
        reasoner.commit(cp)
    for _ in range(MAX_RANDOM_POINTS):
        point = {v.data: bool(hints.get(v.data, False)) for v in variables if v.sort is BOOL}
        point.update((v.data, _pick(lo, hi, hints.get(v.data), "random", rng)) for v, (lo, hi) in ranges.items())
        if holds(facts, goal, point):
            return point
    return None


def _label(reasoner, variables: Sequence[Term], hints: Mapping[str, int], preference: str,
           rng: random.Random) -> dict[str, int] | None:
    """One labelling pass: each symbol fixed in turn, the facts propagating the choice."""
    cp = reasoner.checkpoint()
    try:
        point: dict[str, int] = {}
        for v in variables:
            if v.sort is BOOL:
                point[v.data] = bool(hints.get(v.data, False))
                continue
            lo, hi = _integer_bounds(reasoner.bounds(v))
            choices = [_pick(lo, hi, hints.get(v.data), p, rng)
                       for p in (preference, "low", "high") + ("random",) * TRIES_PER_SYMBOL][:TRIES_PER_SYMBOL]
            for value in dict.fromkeys(choices):
                step = reasoner.checkpoint()
                reasoner.assume(T.eq(v, T.const(value, v.sort)))
                if not reasoner.contradiction:
                    point[v.data] = value
                    break
                reasoner.rollback(step)
            else:
                return None
        return point
    finally:
        reasoner.rollback(cp)
        reasoner.commit(cp)


def _integer_bounds(bounds: tuple[object, object]) -> tuple[float | int, float | int]:
    """The integers inside numeric bounds (a Real symbol's too: its values are tried as integers)."""
    lo, hi = bounds
    lo = lo if lo == -math.inf else math.ceil(Fraction(lo))
    hi = hi if hi == math.inf else math.floor(Fraction(hi))
    return lo, hi


def _pick(lo, hi, hint: int | None, preference: str, rng: random.Random) -> int:
    """A value in ``[lo, hi]`` (clipped to a window around the hint when unbounded)."""
    centre = 0 if hint is None or isinstance(hint, bool) else int(hint)
    a = lo if lo != -math.inf else (min(centre, hi) - WINDOW if hi != math.inf else centre - WINDOW)
    b = hi if hi != math.inf else max(centre, a) + WINDOW
    if a > b:
        return int(centre)
    if preference == "hint" and hint is not None:
        return int(min(max(centre, a), b))
    if preference == "low":
        return int(a)
    if preference == "high":
        return int(b)
    if preference == "hint":
        return int(min(max(0, a), b))
    near = max(a, centre - WINDOW), min(b, centre + WINDOW)
    lo_, hi_ = (near if near[0] <= near[1] else (a, b))
    return rng.randint(int(lo_), int(hi_))
