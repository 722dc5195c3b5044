"""One search for points: every command that looks for an input asks it.

``sample`` draws many points, ``solve`` wants a point or a proof that none exists, ``inputs
--within`` an input that makes a guard fail, ``presets`` an input a preset excludes,
``validate`` and the API a counterexample, ``explain`` a point where an assert fails. All of
them need *a point where some conditions hold*; they ask :func:`find_point`, which tries the
strategies of :data:`STRATEGIES` in order until the caller's check accepts a point or the
budget is spent:

1. ``example``: the example point itself (a symbol without a hint at 0, clipped to its bounds);
2. ``neighbours`` (local search from the example): one symbol moved (by 1 or 2, to 0..3, to
   -1, doubled, halved), then with the symbols that shared its example value, then two moved;
3. ``boundary`` (probing): labelling passes, each symbol fixed in turn and propagated, valued
   at its hint, the low or the high end of what propagation left, or at random near the hint;
4. ``draws``: the sampler (:mod:`absint.search.sampling`): box draws (random restarts),
   propagated draws (propagation-guided labelling), random walks from the example point;
5. ``random``: random points within the propagated bounds, near the example.

The reasoner must hold what a point has to satisfy (the caller assumes its goal under a
checkpoint first), so that propagation guides the labellings and draws; it is left as it was.
**Every point is checked by the caller's ``accept``** (the evaluator) before it is returned:
a point is right whatever the strategies or the reasoner got wrong. Finding none proves nothing.
"""

from __future__ import annotations

import itertools
import math
import random
import time
from fractions import Fraction
from typing import Callable, Iterable, Iterator, Mapping, Sequence

import attrs

from absint.lang import terms as T
from absint.lang.evaluator import truth_at
from absint.lang.terms import BOOL, INT, Term
from absint.reasoning.reasoner import Reasoner
from absint.search.sampling import Unsampleable, draws

#: default budget: points checked, and seconds (process time)
DEFAULT_POINTS = 2000
DEFAULT_SECONDS = 5.0
#: a counterexample's budget (validate and the API ask it once per unproved pair or step)
COUNTEREXAMPLE_POINTS = 800
COUNTEREXAMPLE_SECONDS = 2.0
#: the symbols a local search moves (the goal's first), and how many of them it pairs
MAX_PAIRED = 8
#: labelling passes of the boundary strategy, by preference
PREFERENCES = ("hint", "low", "high", "random", "random", "random")
#: how far from the hint (or 0) an unbounded symbol's values are picked
WINDOW = 64
#: values tried for one symbol in a labelling pass before the pass gives up
TRIES_PER_SYMBOL = 12


@attrs.frozen(slots=True)
class Query:
    """What to look for. ``accept``: the caller's check of a point (the evaluator's);
    ``variables``: the symbols a point assigns; ``hints``: the example point; ``focus``: names
    the local search moves first (default: every variable); ``together``: a key under which
    symbols with the same example value move together first (a tensor's name: a size repeated
    in its stride); ``largest``: draws stay within ``-largest..largest`` where the facts allow."""

    accept: Callable[[dict], bool]
    variables: tuple[Term, ...]
    hints: Mapping[str, object] = attrs.field(factory=dict)
    focus: tuple[str, ...] | None = None
    together: Callable[[str], str] | None = None
    largest: int | None = None
    seed: int = 0


@attrs.frozen(slots=True)
class Found:
    """What a search ended with: ``point`` (accepted) and the ``strategy`` that found it, or
    ``point`` None and ``why`` (the budget spent, or every strategy tried); ``tried``: points checked."""

    point: dict | None
    strategy: str | None
    tried: int
    why: str = ""


def find_point(r: Reasoner, query: Query, points: int = DEFAULT_POINTS, seconds: float = DEFAULT_SECONDS,
               strategies: Sequence[str] | None = None) -> Found:
    """The first point of the strategies (all of :data:`STRATEGIES`, or those named) that
    ``query.accept`` takes, within ``points`` checked and ``seconds``; ``r`` is left as it was."""
    if r.contradiction:
        return Found(None, None, 0, "the conditions are contradictory")
    deadline, tried = time.process_time() + seconds, 0
    ctx = _Context(r, query, random.Random(query.seed))
    for name in strategies or STRATEGIES:
        source = STRATEGIES[name](ctx)
        try:
            for p in source:
                if tried >= points or time.process_time() > deadline:
                    return Found(None, None, tried, f"budget spent: {tried} points checked")
                tried += 1
                if p is not None and query.accept(p):
                    return Found(p, name, tried)
        finally:
            source.close()
    return Found(None, None, tried, f"no point found ({tried} checked by every strategy)")


def counterexample(r: Reasoner, facts: Sequence[Term], goal: Term, hints: Mapping[str, object],
                   seed: int = 0, points: int = COUNTEREXAMPLE_POINTS,
                   seconds: float = COUNTEREXAMPLE_SECONDS) -> dict | None:
    """A point where ``facts`` (which ``r`` already holds) and ``goal`` hold, by the evaluator,
    or None; ``r`` is left as it was (the goal is assumed under a checkpoint)."""
    variables = tuple(symbols_of([goal, *facts]))
    query = Query(lambda p: holds(facts, goal, p), variables, hints, names_in(goal), seed=seed)
    with r.tentatively():
        r.assume(goal)
        return find_point(r, query, points, seconds).point


def holds(facts: Sequence[Term], goal: Term, point: Mapping[str, object]) -> bool:
    """Whether every fact and ``goal`` evaluate to true at ``point``."""
    memo: dict = {}
    return truth_at(goal, point, memo) is True and all(truth_at(f, point, memo) is True for f in facts)


def names_in(t: Term) -> tuple[str, ...]:
    """The names of ``t``'s variables: a query's ``focus`` when ``t`` is what must change."""
    return tuple(v.data for v in T.free_vars(t))


def symbols_of(terms: Iterable[Term]) -> list[Term]:
    """The variables of ``terms``, in first-occurrence order."""
    seen: dict[Term, None] = {}
    for t in terms:
        for v in T.free_vars(t):
            seen.setdefault(v, None)
    return list(seen)


@attrs.define(slots=True)
class _Context:
    r: Reasoner
    q: Query
    rng: random.Random

    def base(self) -> dict:
        """The example point: hints, a Bool without one False, a number without one 0."""
        return {v.data: self.q.hints.get(v.data, False if v.sort is BOOL else 0) for v in self.q.variables}


# ------------------------------------------------------------------ the strategies


def _example(ctx: _Context) -> Iterator[dict]:
    base = ctx.base()
    yield base
    clipped = {v.data: _clip(base[v.data], ctx.r.bounds(v)) for v in ctx.q.variables if v.sort is not BOOL}
    if any(clipped[n] != base[n] for n in clipped):
        yield {**base, **clipped}


def _neighbours(ctx: _Context) -> Iterator[dict]:
    """One symbol moved; then with those that shared its example value (under the same
    ``together`` key first); then two of the focus symbols moved together."""
    base, hints = ctx.base(), ctx.q.hints
    names = [n for n in (ctx.q.focus or [v.data for v in ctx.q.variables]) if _is_int(hints.get(n))]
    for n in names:
        for v in _moves(hints[n]):
            yield {**base, n: v}
    keys = [None] if ctx.q.together is None else [ctx.q.together, None]
    for key in keys:
        for n in names:
            same = [m for m, h in hints.items() if _is_int(h) and h == hints[n] and m != n and m in base
                    and (key is None or key(m) == key(n))]
            if same:
                for v in _moves(hints[n]):
                    yield {**base, n: v, **{m: v for m in same}}
    for a, b in itertools.combinations(names[:MAX_PAIRED], 2):
        for va, vb in itertools.product(_moves(hints[a])[:6], _moves(hints[b])[:6]):
            yield {**base, a: va, b: vb}


def _boundary(ctx: _Context) -> Iterator[dict]:
    for preference in PREFERENCES:
        yield _label(ctx, preference)


def _draws(ctx: _Context) -> Iterator[dict]:
    """The sampler's draws over the Int variables (none when a variable is not Int)."""
    ints = [v for v in ctx.q.variables if v.sort is INT]
    if len(ints) < len(ctx.q.variables):
        return
    base = ctx.base()
    start = base if all(_is_int(base[v.data]) for v in ints) else None
    source = draws(ctx.r, ctx.rng.randrange(2**31), ints, ctx.q.largest, start=start)
    try:
        for p in source:
            yield None if p is None else {**base, **p}  # None: a draw that found nothing (still spent)
    except Unsampleable:
        return
    finally:
        source.close()  # rolls the reasoner back before the next strategy


def _random(ctx: _Context) -> Iterator[dict]:
    ranges = {v: _integer_bounds(ctx.r.bounds(v)) for v in ctx.q.variables if v.sort is not BOOL}
    base = ctx.base()
    while True:
        yield {**base, **{v.data: _pick(lo, hi, ctx.q.hints.get(v.data), "random", ctx.rng)
                          for v, (lo, hi) in ranges.items()}}


#: the strategies, in the order they are tried (each a generator of candidate points; None
#: for a try that produced none, which counts against the budget all the same)
STRATEGIES: dict[str, Callable[[_Context], Iterator[dict]]] = {
    "example": _example,
    "neighbours": _neighbours,
    "boundary": _boundary,
    "draws": _draws,
    "random": _random,
}


# ------------------------------------------------------------------ helpers


def _label(ctx: _Context, preference: str) -> dict | None:
    """One labelling pass: each symbol fixed in turn, the reasoner propagating the choice."""
    r, hints = ctx.r, ctx.q.hints
    with r.tentatively():
        point: dict = {}
        for v in ctx.q.variables:
            if v.sort is BOOL:
                point[v.data] = bool(hints.get(v.data, False))
                continue
            lo, hi = _integer_bounds(r.bounds(v))
            choices = [_pick(lo, hi, hints.get(v.data), p, ctx.rng)
                       for p in (preference, "low", "high") + ("random",) * TRIES_PER_SYMBOL][:TRIES_PER_SYMBOL]
            for value in dict.fromkeys(choices):
                step = r.checkpoint()
                r.assume(T.eq(v, T.const(value, v.sort)))
                if not r.contradiction:
                    r.commit(step)
                    point[v.data] = value
                    break
                r.rollback(step)
                r.commit(step)
            else:
                return None
        return point


def _moves(hint: int) -> list[int]:
    """Values tried for a symbol whose example value is ``hint``: near it, and the small ones."""
    out = [hint - 1, hint + 1, 0, 1, 2, 3, hint * 2, hint // 2, hint + 2, hint - 2, -1]
    return list(dict.fromkeys(v for v in out if v != hint))


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _clip(value: object, bounds: tuple[object, object]) -> object:
    if not _is_int(value):
        return value
    lo, hi = _integer_bounds(bounds)
    return int(min(max(value, lo), hi)) if lo <= hi else value


def _integer_bounds(bounds: tuple[object, object]) -> tuple[float | int, float | int]:
    """The integers inside numeric bounds (a Real symbol's too: its values are tried as integers)."""
    lo, hi = bounds
    lo = lo if lo == -math.inf else math.ceil(Fraction(lo))
    hi = hi if hi == math.inf else math.floor(Fraction(hi))
    return lo, hi


def _pick(lo, hi, hint: object, preference: str, rng: random.Random) -> int:
    """A value in ``[lo, hi]`` (clipped to a window around the hint when unbounded)."""
    centre = int(hint) if _is_int(hint) else 0
    a = lo if lo != -math.inf else (min(centre, hi) - WINDOW if hi != math.inf else centre - WINDOW)
    b = hi if hi != math.inf else max(centre, a) + WINDOW
    if a > b:
        return centre
    if preference == "hint" and _is_int(hint):
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
