"""Labelling: values tried for the inputs one at a time, each under a reasoner checkpoint.

After the facts and the wants are assumed, a *decision* picks the open term with the
fewest possible values (first fail): a symbol whose propagated domain (interval and
congruence) is smallest, or a factor of a wanted product ``f*g*... == N``, whose value
must divide ``N``. Its values are tried in order (the hint first, then near it, then
double and half, then seeded random values in the bounds, then, for a small domain,
every value); each one is assumed as ``x == v`` under a checkpoint, and a contradiction
rolls it back. Rolling back costs what the value changed, not a new reasoner.

Why a failure can be a proof: the reasoner's contradictions and bounds are sound, so a
value it refutes has no solution below it; a decision whose values covered its whole
domain (a small finite one, or the divisors of ``N``), each refuted or failed the same
way, shows there is no solution at that node. A leaf (every symbol fixed) is judged by
the evaluator, not by the reasoner: a point is returned only if every fact and want
holds there, and a leaf the evaluator cannot judge (``x div 0``) makes its node
unproved. The budget (nodes, seconds) stops the search with what it spent.
"""

from __future__ import annotations

import math
import random
import time
from typing import Callable, Iterator, Mapping, Sequence

import attrs

from absint.lang import terms as T
from absint.lang.evaluator import Value, evaluate, NotEvaluable
from absint.lang.kinds import EQ, LIN, MUL
from absint.lang.terms import BOOL, INT, Term
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.trail import Checkpoint
from absint.reasoning.verdict import Truth

#: default budget: decisions tried (one ``x == v`` assumed each) and seconds of wall time
DEFAULT_NODES = 2000
DEFAULT_SECONDS = 5.0
#: a domain with at most this many values is enumerated in full after the heuristic values,
#: so that its failure is a proof
EXHAUSTIVE_LIMIT = 256
#: values tried each side of the starting value, and random values, per decision
NEAR = 3
RANDOM_TRIES = 6
#: divisors of N are enumerated only when trial division up to sqrt(N) stays this small
MAX_TRIAL_DIVISOR = 10**5


@attrs.frozen(slots=True)
class Budget:
    """How much a search may spend: decisions tried, and wall-clock seconds."""

    nodes: int = DEFAULT_NODES
    seconds: float = DEFAULT_SECONDS


@attrs.frozen(slots=True)
class Variable:
    """A symbol to label: its term and its hint (None when unbacked)."""

    name: str
    term: Term
    hint: Value | None


@attrs.frozen(slots=True)
class SearchOutcome:
    """What a search ended with: a point (every fact and want holds there, by the
    evaluator), or ``proved`` (no point exists), or neither (``out_of_budget``, or a
    part of the space no decision could cover)."""

    point: Mapping[str, Value] | None
    proved: bool
    nodes: int
    seconds: float
    out_of_budget: bool


@attrs.frozen(slots=True)
class Domain:
    """The values a term may take as the reasoner bounds it: ``lo..hi`` congruent to
    ``residue`` modulo ``modulus`` (infinite bounds as ``math.inf``)."""

    lo: object
    hi: object
    modulus: int = 1
    residue: int = 0

    @property
    def size(self) -> float:
        if self.lo == -math.inf or self.hi == math.inf:
            return math.inf
        if self.lo > self.hi:
            return 0
        return (self.hi - self.lo) // self.modulus + 1

    def __contains__(self, v: int) -> bool:
        return self.lo <= v <= self.hi and (v - self.residue) % self.modulus == 0

    def nearest(self, v: int) -> int | None:
        """The value of the domain closest to ``v`` (upwards on a tie); None if empty."""
        if self.size == 0:
            return None
        v = min(max(v, self.lo), self.hi)
        m = self.modulus
        down = v - (v - self.residue) % m
        up = down if down == v else down + m
        for c in sorted((down, up), key=lambda c: (abs(c - v), -c)):
            if c in self:
                return int(c)
        return None


class OutOfBudget(Exception):
    """The search's nodes or seconds are spent."""


class _Frame:
    """One open decision: the checkpoint before its first value, the values left, and
    whether every value so far failed in a way that proves it."""

    __slots__ = ("cp", "term", "values", "complete")

    def __init__(self, cp: Checkpoint, term: Term, values: Iterator, complete: bool):
        self.cp, self.term, self.values, self.complete = cp, term, values, complete


_DEAD = object()  # a decision without a single possible value: the node has no solution


class Labelling:
    """A depth-first search over ``variables`` on ``reasoner``, which already holds the
    facts and wants; ``check(point)`` is the evaluator's verdict at a full point; every
    other symbol takes its value from ``others``. The reasoner is left as found."""

    def __init__(self, reasoner: Reasoner, variables: Sequence[Variable], wants: Sequence[Term],
                 check: Callable[[dict], bool | None], others: Mapping[str, Value],
                 budget: Budget = Budget(), seed: int = 0):
        self.r = reasoner
        self.variables = list(variables)
        self.wants = list(wants)
        self.check = check
        self.others = dict(others)
        self.budget = budget
        self.rng = random.Random(seed)
        self.nodes = 0
        self.deadline = 0.0
        self.in_wants = {v for w in wants for v in T.free_vars(w)}
        self.hints = {**self.others, **{x.name: x.hint for x in self.variables if x.hint is not None}}
        self._divisors: dict[int, list[int] | None] = {}

    def run(self) -> SearchOutcome:
        start = time.monotonic()
        self.deadline = start + self.budget.seconds
        root = self.r.checkpoint()
        point, proved, out = None, False, False
        try:
            point, proved = self._search()
        except OutOfBudget:
            out = True
        finally:
            self.r.rollback(root)
            self.r.commit(root)
        return SearchOutcome(point, proved and point is None, self.nodes, time.monotonic() - start, out)

    # ------------------------------------------------------------ the search

    def _search(self) -> tuple[dict | None, bool]:
        """(point, proved): depth first, an explicit stack (symbols can be hundreds)."""
        first = self._decision()
        if first is None:
            return self._leaf()
        if first is _DEAD:
            return None, True
        stack = [first]
        while stack:
            f = stack[-1]
            v = next(f.values, None)
            if v is None:  # every value tried: the decision failed (a proof if complete)
                stack.pop()
                if not stack:
                    return None, f.complete
                stack[-1].complete &= f.complete
                continue
            self._spend()
            self.r.rollback(f.cp)
            self.r.assume(_literal(f.term, v))
            if self.r.contradiction:
                continue
            child = self._decision()
            if child is None:
                point, proved = self._leaf()
                if point is not None:
                    return point, False
                f.complete &= proved
            elif child is not _DEAD:
                stack.append(child)
        return None, True

    def _spend(self) -> None:
        if self.nodes >= self.budget.nodes or time.monotonic() > self.deadline:
            raise OutOfBudget
        self.nodes += 1

    def _leaf(self) -> tuple[dict | None, bool]:
        """Every labelled symbol fixed: the point if the evaluator accepts it; else
        (None, proved) where proved means the evaluator refuted it."""
        point = dict(self.others)
        for x in self.variables:
            point[x.name] = self._fixed_value(x.term)
        ok = self.check(point)
        return (point, False) if ok else (None, ok is False)

    def _fixed_value(self, t: Term) -> Value:
        if t.sort is BOOL:
            return self.r.decide(t).truth is Truth.TRUE
        return self.r.bounds(t)[0]

    # ------------------------------------------------------------ decisions

    def _decision(self):
        """The open decision with the fewest values (None: every symbol fixed; _DEAD: one
        has no possible value). Ties: a factor of a wanted product, then a symbol of a
        want, then the order of declaration."""
        best = None
        for order, x in enumerate(self.variables):
            choice = self._symbol_choice(x)
            if choice is not None:
                key = (choice[0], 0 if x.term in self.in_wants else 1, order)
                if best is None or key < best[0]:
                    best = (key, x.term, *choice)
        if best is None:
            return None
        for f, values in self._divisor_choices():
            key = (len(values), -1, 0)
            if key < best[0]:
                best = (key, f, len(values), iter(values), True)
        _, term, size, values, covers = best
        if size == 0:
            return _DEAD
        return _Frame(self.r.checkpoint(), term, values, covers)

    def _symbol_choice(self, x: Variable) -> tuple[float, Iterator, bool] | None:
        """(size, values, whether the values cover the domain) of an open symbol; None when
        the reasoner has fixed it."""
        t = x.term
        if t.sort is BOOL:
            if self.r.decide(t).truth is not Truth.UNKNOWN:
                return None
            first = bool(x.hint) if x.hint is not None else True
            return 2, iter([first, not first]), True
        d = self.domain(t)
        if d.lo == d.hi:
            return None
        if t.sort is not INT:  # a Real symbol: integer values near the hint, never a proof
            return math.inf, self._values(Domain(d.lo, d.hi), x.hint, covering=False), False
        covers = d.size <= EXHAUSTIVE_LIMIT
        return d.size, self._values(d, x.hint, covering=covers), covers

    def domain(self, t: Term) -> Domain:
        lo, hi = self.r.bounds(t)
        if t.sort is not INT or lo == hi:
            return Domain(lo, hi)
        m, r = self.r.network.domain.congruence(self.r.value(t))
        if m < 1:
            return Domain(lo, hi)
        return Domain(lo, hi, m, r % m)

    def _values(self, d: Domain, hint, covering: bool) -> Iterator[int]:
        """The heuristic order, each value once: the hint (or the domain's nearest end),
        near it, double and half, random; then every value when ``covering``."""
        seen: set = set()
        for v in self._heuristic(d, hint):
            if v is not None and v not in seen and v in d:
                seen.add(v)
                yield v
        if covering:
            v = d.lo + (d.residue - d.lo) % d.modulus  # the first value of the congruence class
            while v <= d.hi:
                if v not in seen:
                    yield v
                v += d.modulus
        elif seen:  # too many values to cover: random ones, in a widening window, until the budget ends
            yield from self._random_values(d, next(iter(seen)), seen)

    def _random_values(self, d: Domain, start: int, seen: set) -> Iterator[int]:
        width = max(64, abs(start))
        while True:
            for _ in range(RANDOM_TRIES):
                lo = start - width if d.lo == -math.inf else max(d.lo, start - width)
                hi = start + width if d.hi == math.inf else min(d.hi, start + width)
                v = d.nearest(self.rng.randint(int(lo), int(hi)))
                if v is not None and v not in seen:
                    seen.add(v)
                    yield v
            width *= 2

    def _heuristic(self, d: Domain, hint) -> Iterator[int | None]:
        if hint is None or not isinstance(hint, int) or isinstance(hint, bool):
            hint = d.lo if d.lo != -math.inf else d.hi if d.hi != math.inf else 0
        start = d.nearest(int(hint))
        if start is None:
            return
        yield start
        for k in range(1, NEAR + 1):
            yield d.nearest(start + k * d.modulus)
            yield d.nearest(start - k * d.modulus)
        yield d.nearest(2 * start)
        yield d.nearest(start // 2)
        width = max(64, abs(start))
        lo = max(d.lo, start - width) if d.lo != -math.inf else start - width
        hi = min(d.hi, start + 4 * width) if d.hi != math.inf else start + 4 * width
        for _ in range(RANDOM_TRIES):
            yield d.nearest(self.rng.randint(int(lo), int(hi)))

    def _divisor_choices(self) -> Iterator[tuple[Term, list[int]]]:
        """For each want ``c*f*g*... == N`` (after the bindings so far), each open Int
        factor with its possible values: the divisors of ``N/c`` in its domain."""
        for w in self.wants:
            found = wanted_product(self.r.normalize(w))
            if found is None:
                continue
            product, n = found
            if n not in self._divisors:
                self._divisors[n] = divisors_of(n)
            divisors = self._divisors[n]
            if divisors is None:  # too large to factor: no decision (never a false proof)
                continue
            for f in dict.fromkeys(product.args):
                if f.sort is not INT:
                    continue
                d = self.domain(f)
                if d.lo == d.hi:
                    continue
                near = self._at_hints(f)
                values = [v for v in divisors if v in d]
                if near is not None:
                    values.sort(key=lambda v: (abs(v - near), -v))
                yield f, values

    def _at_hints(self, t: Term):
        """``t``'s value at the hints (and the defaults of the other symbols), or None."""
        try:
            v = evaluate(t, self.hints)
        except NotEvaluable:
            return None
        return v if isinstance(v, int) and not isinstance(v, bool) else None


def _literal(t: Term, v) -> Term:
    if t.sort is BOOL:
        return t if v else T.not_(t)
    return T.eq(t, T.const(v) if t.sort is INT else T.const(v, t.sort))


def wanted_product(w: Term) -> tuple[Term, int] | None:
    """``(p, N)`` when the normal Bool term ``w`` says ``p == N`` for an Int product ``p``
    and an integer ``N != 0`` (then every factor of ``p`` divides ``N``)."""
    if w.kind != EQ:
        return None
    a = w.args[0]
    if a.kind != LIN or a.sort is not INT or len(a.args) != 1 or a.args[0].kind != MUL:
        return None
    (coef,), c = a.data
    if c == 0 or c % coef:
        return None
    return a.args[0], -c // coef


def divisors_of(n: int) -> list[int] | None:
    """Every divisor of ``n != 0``, negative ones too, by trial division (None when
    ``|n|`` is too large to factor that way)."""
    n = abs(n)
    if n > MAX_TRIAL_DIVISOR**2:
        return None
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    positive = sorted(set(small + [n // d for d in small]))
    return positive + [-d for d in positive]


def holds_everywhere(terms: Sequence[Term]) -> Callable[[dict], bool | None]:
    """The evaluator's check of a point: True if every term holds, False if one is false,
    None if one has no value there (and none is false)."""
    def check(point: dict) -> bool | None:
        memo: dict = {}
        unknown = False
        for t in terms:
            try:
                if evaluate(t, point, memo) is not True:
                    return False
            except NotEvaluable:
                unknown = True
        return None if unknown else True

    return check
