"""Integer points that satisfy a reasoner's facts: random samples and exhaustive enumeration.

Graph fuzzers (NNSmith, GenCoG) ask an SMT solver for shapes that satisfy an operator's
specification. Here the reasoner that already holds the specification does it:

* **What is drawn.** After the facts are assumed, an equality that solved for a variable
  (``OH = (H + 2*pad - ...) div stride + 1``) made it a function of the others: its normal
  form. Only the variables left in the normal forms (the *basis*) are drawn; the others
  are computed. Two basis variables that share no fact are independent, so the basis splits
  into *components* drawn one at a time: a uniform draw per component is a uniform draw of
  the whole (the solution set is their product).
* **Rejection from the box** (exactly uniform): each basis variable uniform within its bounds
  after propagation, the component's facts evaluated, the draw kept only if they all hold.
  Each solution has exactly one basis point, so every solution is equally likely.
* **Propagated draws** when the box is mostly empty (``a0 == b0 or a0 == 1 or b0 == 1``
  over 16 x 16 values keeps 18%; a reshape's ``i0*i1*i2 == o0*o1`` far less): variables in a
  random order, each a uniform value within its *current* bounds, assumed (``x == v``) under
  a checkpoint so propagation narrows the rest, a refuted value retried; the whole is rolled
  back after the draw. This is faster on sparse boxes but only near-uniform.
* **Every point is checked by the evaluator** against every fact before it is returned:
  a sample is never wrong, whatever the draws did. ``impossible`` is said only when the
  reasoner proved the facts contradictory, or when an exhaustive enumeration (sound bounds,
  sound pruning) found no point and met no point it could not evaluate (``x div 0``).
"""

from __future__ import annotations

import math
import random
from itertools import product
from typing import Callable, Iterable, Iterator, Sequence

import attrs

from absint.lang import terms as T
from absint.lang.evaluator import NotEvaluable, evaluate, truth_at
from absint.lang.kinds import CONST, VAR
from absint.lang.terms import INT, Term
from absint.reasoning.reasoner import Checkpoint, Reasoner

#: a variable unbounded on a side is drawn from a window this wide next to its finite bound
#: (around 0 if it has none): samples are still solutions, uniformity means nothing there
UNBOUNDED_SPAN = 256
#: samples are drawn within ``-LARGEST..LARGEST`` where the facts allow it (a size of 2**16:
#: NNSmith and GenCoG draw attributes from small ranges; no operator test can use a size of
#: 5e18, which a file's ``x <= 2**63 - 1`` allows)
LARGEST = 2**16
#: box draws per sample before a propagated draw, when the acceptance rate is not yet known
REJECTION_TRIES = 64
#: at most this many box draws per sample, whatever the estimated acceptance rate
MAX_REJECTION_TRIES = 4096
#: values tried for one variable in a propagated draw before the draw is abandoned
VALUE_TRIES = 8
#: propagation steps one drawn value may spend (its facts narrow the next variables' bounds;
#: a contradiction found later is refuted by the evaluator): around a contradiction the
#: network's propagation can creep for its whole budget, at every refuted value
DRAW_PROPAGATION = 200
#: propagated draws per sample before the sample is given up (status ``unknown`` if none found)
PROPAGATED_TRIES = 64
#: random moves from the example point per sample, when draws find no solution
WALK_STEPS = 64
#: solutions an exhaustive enumeration lists or counts before it stops (``--limit``)
DEFAULT_LIMIT = 100_000
#: points an exhaustive enumeration evaluates before it stops (the count is then incomplete)
MAX_LEAVES = 2_000_000

SAT, IMPOSSIBLE, UNKNOWN = "sat", "impossible", "unknown"


class Unsampleable(ValueError):
    """Variables this module cannot draw (Real or Bool), or an unbounded exhaustive search."""


@attrs.frozen(slots=True)
class Samples:
    """``status``: ``sat`` (``points`` are solutions, each checked), ``impossible`` (proved:
    no solution exists) or ``unknown`` (no point found, none proved absent). ``points`` map
    variable names to values. ``count``: with an exhaustive search, the number of solutions
    (``complete`` False: at least that many, the search stopped at its limit)."""

    status: str
    points: tuple[dict[str, int], ...] = ()
    count: int | None = None
    complete: bool = True
    reason: str | None = None
    #: symbols drawn from a window (unbounded on a side) or within ``largest`` (bounded by
    #: the facts only beyond it): values chosen, not forced
    free: tuple[str, ...] = ()


@attrs.frozen(slots=True)
class Component:
    """Basis variables tied together by facts: ``box`` holds each one's range (inclusive);
    ``derived`` the variables computed from them (variable, normal form); ``facts`` the facts
    over them only, which decide whether a draw is kept."""

    basis: tuple[Term, ...]
    box: tuple[tuple[int, int], ...]
    derived: tuple[tuple[Term, Term], ...]
    facts: tuple[Term, ...]
    fixed: tuple[tuple[str, int], ...] = ()  # the variables the facts fixed outright, by name

    @property
    def volume(self) -> int:
        return math.prod(hi - lo + 1 for lo, hi in self.box)


# ------------------------------------------------------------------ the space of solutions


@attrs.frozen(slots=True)
class Space:
    """The variables of a reasoner's facts split into independent components; ``constants``
    are variables the facts fixed outright (``K = 3``); ``unbounded`` names the basis
    variables whose box is a window (:data:`UNBOUNDED_SPAN`), not a bound."""

    variables: tuple[Term, ...]
    components: tuple[Component, ...]
    constants: tuple[tuple[Term, int], ...]
    facts: tuple[Term, ...]
    unbounded: tuple[str, ...]
    loose: tuple[Term, ...] = ()  # facts over fixed variables only, in no component
    free: tuple[str, ...] = ()  # ``unbounded``, and the variables whose box ``largest`` narrowed


def build_space(r: Reasoner, variables: Iterable[Term] = (), largest: int | None = None) -> Space:
    """The space of ``r``'s facts (assumed, not contradictory) over their variables and
    ``variables``; ``largest``: each box narrowed to ``-largest..largest`` where it meets it
    (samples only: an enumeration must see every solution). Raises :class:`Unsampleable` for
    a variable that is not Int."""
    facts = tuple(r.facts)
    found = {v: None for f in facts for v in T.free_vars(f)}
    found.update((v, None) for v in variables)
    wrong = sorted(v.data for v in found if v.sort is not INT)
    if wrong:
        raise Unsampleable(f"only Int symbols can be sampled; {', '.join(wrong)} "
                           f"{'is' if len(wrong) == 1 else 'are'} not Int")
    ordered = tuple(sorted(found, key=lambda v: v.data))
    forms = {v: r.normalize(v) for v in ordered}
    basis_of = {v: frozenset(x for x in T.free_vars(forms[v]) if x.kind == VAR) for v in ordered}
    constants = tuple((v, forms[v].data) for v in ordered if forms[v].kind == CONST)
    fixed = tuple((v.data, c) for v, c in constants)
    components, unbounded, narrowed = [], [], []
    for group in _components(basis_of, facts):
        comp = _component(r, group, forms, basis_of, facts, unbounded)
        if largest is not None:
            comp = _within_largest(comp, largest, narrowed)
        components.append(attrs.evolve(comp, fixed=fixed))
    loose = tuple(f for f in facts if not any(basis_of[v] for v in T.free_vars(f)))
    free = tuple(sorted(set(unbounded) | set(narrowed)))
    return Space(ordered, tuple(components), constants, facts, tuple(sorted(unbounded)), loose, free)


def _within_largest(comp: Component, largest: int, narrowed: list[str]) -> Component:
    """``comp`` with each box narrowed to ``-largest..largest`` where the two meet (a box
    wholly beyond it is kept: the facts ask for large values there)."""
    box = []
    for b, (lo, hi) in zip(comp.basis, comp.box):
        lo2, hi2 = max(lo, -largest), min(hi, largest)
        if lo2 > hi2:
            lo2, hi2 = lo, hi
        if (lo2, hi2) != (lo, hi):
            narrowed.append(b.data)
        box.append((lo2, hi2))
    return attrs.evolve(comp, box=tuple(box))


def _components(basis_of: dict[Term, frozenset[Term]], facts: Sequence[Term]) -> list[list[Term]]:
    """Basis variables grouped by the facts (through the variables' normal forms) that
    mention them together; union-find, groups in order of their first variable's name."""
    parent: dict[Term, Term] = {b: b for bs in basis_of.values() for b in bs}

    def find(x: Term) -> Term:
        while parent[x] is not x:
            x = parent[x]
        return x

    links = [set().union(*(basis_of[v] for v in T.free_vars(f))) for f in facts]
    links += [set(bs) for bs in basis_of.values()]
    for group in links:
        roots = sorted({find(b) for b in group}, key=lambda v: v.data)
        for other in roots[1:]:
            parent[other] = roots[0]
    groups: dict[Term, list[Term]] = {}
    for b in sorted(parent, key=lambda v: v.data):
        groups.setdefault(find(b), []).append(b)
    return list(groups.values())


def _component(r: Reasoner, group: list[Term], forms: dict[Term, Term],
               basis_of: dict[Term, frozenset[Term]], facts: Sequence[Term],
               unbounded: list[str]) -> Component:
    members = set(group)
    box = []
    for b in group:
        lo, hi = r.bounds(b)
        if lo == -math.inf or hi == math.inf:
            unbounded.append(b.data)
        box.append(window(lo, hi))
    derived = tuple((v, forms[v]) for v in forms
                    if forms[v] is not v and basis_of[v] and basis_of[v] <= members)
    own = tuple(f for f in facts
                if any(basis_of[v] & members for v in T.free_vars(f)))
    return Component(tuple(group), tuple(box), derived, own)


def window(lo: object, hi: object) -> tuple[int, int]:
    """Integer range of a variable bounded by ``lo``/``hi`` (possibly infinite): a window of
    :data:`UNBOUNDED_SPAN` values next to a finite bound, around 0 without one."""
    if lo == math.inf or hi == -math.inf:  # no value at all (contradictory bounds)
        return 0, -1
    finite_lo, finite_hi = lo != -math.inf, hi != math.inf
    if finite_lo and finite_hi:
        return math.ceil(lo), math.floor(hi)
    if finite_lo:
        return math.ceil(lo), math.ceil(lo) + UNBOUNDED_SPAN - 1
    if finite_hi:
        return math.floor(hi) - UNBOUNDED_SPAN + 1, math.floor(hi)
    return -(UNBOUNDED_SPAN // 2), UNBOUNDED_SPAN // 2 - 1


def clipped(box: tuple[int, int], lo: object, hi: object) -> tuple[int, int]:
    """The integers of ``box`` within ``lo..hi``: bounds that may be infinite (an unbacked
    size nothing bounds above) or fractional (empty when ``lo > hi``)."""
    if lo == math.inf or hi == -math.inf:
        return box[0], box[0] - 1
    low = box[0] if lo == -math.inf else max(box[0], math.ceil(lo))
    high = box[1] if hi == math.inf else min(box[1], math.floor(hi))
    return low, high


def complete(component: Component, values: dict[str, int]) -> dict[str, int] | None:
    """``values`` of the basis extended by the derived variables, if every fact of the
    component holds there (evaluated); None otherwise, or where something is not evaluable."""
    point = dict(component.fixed)
    point.update(values)
    memo: dict = {}
    for v, form in component.derived:
        try:
            x = evaluate(form, point, memo)
        except NotEvaluable:
            return None
        if x != int(x):
            return None
        point[v.data] = int(x)
    memo = {}
    for f in component.facts:
        if truth_at(f, point, memo) is not True:
            return None
    return point


def holds(facts: Iterable[Term], point: dict[str, int]) -> bool:
    """Whether every fact is true at ``point`` (the check each returned point passes)."""
    memo: dict = {}
    return all(truth_at(f, point, memo) is True for f in facts)


# ------------------------------------------------------------------ random samples


class Sampler:
    """Draws points of a space on its reasoner, rolled back to the checkpoint ``cp`` (taken
    after the facts) after each propagated draw; keeps each component's acceptance rate.
    ``start``: a known solution (a file's example point), walked from when draws fail."""

    def __init__(self, r: Reasoner, space: Space, rng: random.Random, cp: Checkpoint,
                 start: dict[str, int] | None = None):
        self.r, self.space, self.rng, self.cp = r, space, rng, cp
        self.trials = [0] * len(space.components)
        self.hits = [0] * len(space.components)
        self.start = start
        self.hopeless = [False] * len(space.components)  # propagated draws failed once

    def point(self) -> dict[str, int] | None:
        """One solution (every fact checked), or None if the draws kept failing."""
        out = {v.data: c for v, c in self.space.constants}
        for i, comp in enumerate(self.space.components):
            values = self._from_box(i, comp) or self._propagated_unless_hopeless(i, comp) or self._walked(comp)
            if values is None:
                return None
            out.update(values)
        return out if holds(self.space.facts, out) else None

    def _box_budget(self, i: int) -> int:
        """Box draws worth trying: about three expected successes' worth once the rate is
        known (so nearly every sample is an exact one), none if it is hopeless."""
        if self.trials[i] < 4 * REJECTION_TRIES:
            return REJECTION_TRIES
        if not self.hits[i]:
            return 0
        return min(MAX_REJECTION_TRIES, 3 * self.trials[i] // self.hits[i] + 1)

    def _from_box(self, i: int, comp: Component) -> dict[str, int] | None:
        randint = self.rng.randint
        names = [b.data for b in comp.basis]
        for _ in range(self._box_budget(i)):
            self.trials[i] += 1
            point = complete(comp, {n: randint(lo, hi) for n, (lo, hi) in zip(names, comp.box)})
            if point is not None:
                self.hits[i] += 1
                return point
        return None

    def _propagated_unless_hopeless(self, i: int, comp: Component) -> dict[str, int] | None:
        """Propagated draws, until they have failed once on this component with a known
        solution to walk from (then each sample would pay their whole budget again)."""
        if self.hopeless[i]:
            return None
        point = self._propagated(comp)
        self.hopeless[i] = point is None and self.start is not None
        return point

    def _walked(self, comp: Component) -> dict[str, int] | None:
        """A solution reached from ``start`` by :data:`WALK_STEPS` random moves of one basis
        variable each, a move kept only where every fact of the component still holds (a
        nonlinear ``s0*s1*s2 == 190512`` that no box draw meets); None without ``start``."""
        names = [b.data for b in comp.basis]
        if self.start is None or any(n not in self.start for n in names):
            return None
        values = {n: self.start[n] for n in names}
        point = complete(comp, values)
        if point is None:
            return None
        moves = list(zip(names, comp.box))
        for _ in range(WALK_STEPS):
            trial_values = self._moved(values, moves)
            trial = complete(comp, trial_values)
            if trial is not None:
                values, point = trial_values, trial
        return point

    def _moved(self, values: dict[str, int], moves: list[tuple[str, tuple[int, int]]]) -> dict[str, int]:
        """``values`` with one variable moved (a step, a doubling or halving, a draw in its
        box), or two traded by a small factor (``a*b*c == K`` keeps holding)."""
        rng = self.rng
        name, box = rng.choice(moves)
        v = values[name]
        out = dict(values)
        kind = rng.randrange(5)
        if kind == 0:
            out[name] = v + rng.choice((-1, 1)) * rng.randint(1, 8)
        elif kind == 1:
            out[name] = v * 2
        elif kind == 2:
            out[name] = v // 2
        elif kind == 3 and box[0] <= box[1]:
            out[name] = rng.randint(*box)
        elif len(moves) > 1:
            other = rng.choice([n for n, _ in moves if n != name])
            f = rng.choice((2, 3, 5, 7))
            if out[other] % f == 0:
                out[name], out[other] = v * f, out[other] // f
        return out

    def _propagated(self, comp: Component) -> dict[str, int] | None:
        for _ in range(PROPAGATED_TRIES):
            try:
                point = self._assign(comp)
            finally:
                self.r.rollback(self.cp)
            if point is not None:
                return point
        return None

    def _assign(self, comp: Component) -> dict[str, int] | None:
        """The component's basis variables in a random order, each a uniform value within its
        current bounds (and its box) that the reasoner does not refute, assumed so that the
        next ones' bounds narrow; the last one only evaluated (nothing is left to narrow).
        The completed point, or None if a variable ran out of tries."""
        order = list(zip(comp.basis, comp.box))
        self.rng.shuffle(order)
        values: dict[str, int] = {}
        for b, box in order[:-1]:
            lo, hi = self._current(b, box)
            v = self._assumed_value(b, lo, hi)
            if v is None:
                return None
            values[b.data] = v
        last, box = order[-1]
        lo, hi = self._current(last, box)
        for _ in range(VALUE_TRIES if lo <= hi else 0):
            point = complete(comp, {**values, last.data: self.rng.randint(lo, hi)})
            if point is not None:
                return point
        return None

    def _current(self, b: Term, box: tuple[int, int]) -> tuple[int, int]:
        return clipped(box, *self.r.bounds(b))

    def _assumed_value(self, b: Term, lo: int, hi: int) -> int | None:
        """A uniform value of ``b`` in ``lo..hi`` assumed without contradiction (a forced one,
        ``lo == hi``, too: as a binding it folds into the other terms, which intervals alone
        do not); None after :data:`VALUE_TRIES` refuted values."""
        r = self.r
        for _ in range(VALUE_TRIES if lo < hi else 1 if lo == hi else 0):
            v = self.rng.randint(lo, hi)
            cp = r.checkpoint()
            with r.network.budget_at_most(DRAW_PROPAGATION):
                r.assume(T.eq(b, T.const(v)))
            if not r.contradiction:
                r.commit(cp)
                return v
            r.rollback(cp)
            r.commit(cp)
        return None


def draws(r: Reasoner, seed: int | None = None, variables: Iterable[Term] = (),
          largest: int | None = None, space_out: list | None = None,
          start: dict[str, int] | None = None) -> Iterator[dict[str, int] | None]:
    """Independent solutions of ``r``'s facts (not contradictory), one per ``next``; None when
    a draw found none within its budget. Everything happens under a checkpoint, rolled back
    when the generator is closed, so ``r`` is left as it was. ``largest``: see
    :func:`build_space`; ``space_out`` receives the space drawn from; ``start``: a known
    solution to walk from where draws fail (see :class:`Sampler`)."""
    with r.tentatively():
        space = build_space(r, variables, largest)
        if space_out is not None:
            space_out.append(space)
        sampler = Sampler(r, space, random.Random(seed), r.checkpoint(), start)
        while True:
            yield sampler.point()


def first_accepted(r: Reasoner, tries: int, accept: Callable[[dict[str, int]], bool], seed: int | None = None,
                   variables: Iterable[Term] = (), largest: int | None = None) -> dict[str, int] | None:
    """The first of ``tries`` independent draws (see :func:`draws`) that ``accept`` takes (the
    caller's own check of a point, by the evaluator), or None; ``r`` is left as it was.
    Raises :class:`Unsampleable` for a variable that is not Int."""
    source = draws(r, seed, variables, largest)
    try:
        for _ in range(tries):
            point = next(source)
            if point is not None and accept(point):
                return point
    finally:
        source.close()
    return None


def sample(r: Reasoner, n: int, seed: int | None = None, variables: Iterable[Term] = (),
           largest: int | None = LARGEST, start: dict[str, int] | None = None) -> Samples:
    """``n`` independent draws of solutions of ``r``'s facts (repeats possible, as with
    uniform draws), over the facts' variables and ``variables``, within ``-largest..largest``
    where the facts allow it (None: anywhere the facts allow); ``start``: a known solution (the
    example point) walked from where draws fail. ``r`` is left as it was.
    Raises :class:`Unsampleable` for a variable that is not Int."""
    if n < 0:
        raise ValueError(f"the number of samples must be >= 0, got {n}")
    if r.contradiction:
        return Samples(IMPOSSIBLE, reason="the facts are contradictory")
    points: list[dict[str, int]] = []
    spaces: list[Space] = []
    source = draws(r, seed, variables, largest, spaces, start)
    try:
        while len(points) < n:
            p = next(source)
            if p is None:
                break
            points.append(p)
    finally:
        source.close()
    free = spaces[0].free if spaces else ()
    if len(points) == n:
        return Samples(SAT, tuple(points), free=free)
    reason = (f"found {len(points)} of {n}: the last sample failed {MAX_REJECTION_TRIES} box draws "
              f"and {PROPAGATED_TRIES} propagated draws at most")
    return Samples(SAT if points else UNKNOWN, tuple(points), reason=reason, free=free)


# ------------------------------------------------------------------ every solution


class Enumeration:
    """Every solution of one component, by labelling: each basis variable but the last
    assumed value by value under a checkpoint (propagation prunes refuted subtrees), the
    last one's current range evaluated directly."""

    def __init__(self, r: Reasoner, comp: Component, limit: int, keep: bool):
        self.r, self.comp, self.limit, self.keep = r, comp, limit, keep
        order = sorted(zip(comp.basis, comp.box), key=lambda p: p[1][1] - p[1][0])
        self.order = order
        self.found: list[dict[str, int]] = []
        self.count = 0
        self.leaves = 0
        self.unevaluable = 0

    @property
    def complete(self) -> bool:
        return self.count <= self.limit and self.leaves <= MAX_LEAVES

    def run(self) -> None:
        self._level(0, {})

    def _range(self, i: int) -> range:
        b, box = self.order[i]
        lo, hi = clipped(box, *self.r.bounds(b))
        return range(lo, hi + 1)

    def _level(self, i: int, values: dict[str, int]) -> None:
        b = self.order[i][0]
        if i == len(self.order) - 1:
            self._leaves(b, values)
            return
        r = self.r
        for v in self._range(i):
            if not self.complete:
                return
            cp = r.checkpoint()
            r.assume(T.eq(b, T.const(v)))
            if not r.contradiction:
                self._level(i + 1, {**values, b.data: v})
            r.rollback(cp)
            r.commit(cp)

    def _leaves(self, b: Term, values: dict[str, int]) -> None:
        for v in self._range(len(self.order) - 1):
            if not self.complete:
                return
            self.leaves += 1
            point = complete(self.comp, {**values, b.data: v})
            if point is None:
                self.unevaluable += _unevaluable(self.comp, {**values, b.data: v})
                continue
            self.count += 1
            if self.keep and self.count <= self.limit:
                self.found.append(point)


def _unevaluable(comp: Component, values: dict[str, int]) -> bool:
    """Whether a rejected point was rejected because something had no value there
    (``x div 0``): SMT-LIB may count it a solution, so its absence proves nothing."""
    point = dict(comp.fixed)
    point.update(values)
    for v, form in comp.derived:
        try:
            point[v.data] = evaluate(form, point)
        except NotEvaluable:
            return True
    memo: dict = {}
    return any(truth_at(f, point, memo) is None for f in comp.facts)


def solutions(r: Reasoner, limit: int = DEFAULT_LIMIT, keep: bool = True,
              variables: Iterable[Term] = ()) -> Samples:
    """Every solution of ``r``'s facts (listed if ``keep`` and there are at most ``limit``),
    and their number (``complete`` False: the search stopped at ``limit`` solutions of a
    component or :data:`MAX_LEAVES` points). Raises :class:`Unsampleable` when a variable is
    unbounded (the solutions may be infinitely many) or not Int."""
    if r.contradiction:
        return Samples(IMPOSSIBLE, count=0, reason="the facts are contradictory")
    runs = []
    with r.tentatively():
        space = build_space(r, variables)
        if space.unbounded:
            raise Unsampleable(f"cannot enumerate: {', '.join(space.unbounded)} "
                               f"{'is' if len(space.unbounded) == 1 else 'are'} unbounded")
        if not holds(space.loose, dict(space.components[0].fixed if space.components else
                                       ((v.data, c) for v, c in space.constants))):
            return Samples(UNKNOWN, count=0, reason="a fact over the fixed variables does not hold")
        for comp in space.components:
            e = Enumeration(r, comp, limit, keep)
            e.run()
            runs.append(e)
            if e.count == 0 and e.complete:
                break
    return _combined(space, runs, limit, keep)


def _combined(space: Space, runs: list[Enumeration], limit: int, keep: bool) -> Samples:
    """The solutions of the whole: the product of the components' (checked again whole)."""
    complete_ = all(e.complete for e in runs)
    count = math.prod(e.count for e in runs)
    if count == 0 and complete_:
        if any(e.unevaluable for e in runs):
            return Samples(UNKNOWN, count=0, reason="no solution, but some points could not be evaluated")
        return Samples(IMPOSSIBLE, count=0, reason="no solution: every point of the bounds was tried")
    points: tuple[dict[str, int], ...] = ()
    if keep and complete_ and count <= limit:
        points = tuple(_products(space, runs))
        count = len(points)
    reason = None if complete_ else f"stopped after {limit} solutions or {MAX_LEAVES} points"
    return Samples(SAT if count else UNKNOWN, points, count, complete_, reason)


def _products(space: Space, runs: list[Enumeration]) -> Iterator[dict[str, int]]:
    base = {v.data: c for v, c in space.constants}
    for parts in product(*(e.found for e in runs)):
        point = dict(base)
        for p in parts:
            point.update(p)
        if holds(space.facts, point):
            yield point
