"""The reduced product interval × congruence (Granger), the value network's per-term value.

Every :class:`IntervalCongruence` is reduced: its constructor runs :func:`reduce`,
so bounds are always congruent to the residue, a point interval always has a
constant congruence (and vice versa), and an empty pair is the sort's bottom.
Reduced values compare with ``==`` by what they denote, and ``leq`` is exact.

Operators combine the component operators of :mod:`domains.interval` and
:mod:`domains.congruence`; where one component knows something the other needs
(a divisor whose congruence excludes 0, as in ``[-3, 3] ∩ 2Z+1``) the product
passes it on.

The value network reads a value through ``v.lo``, ``v.hi`` (``-inf``/``inf`` when
unbounded), ``v.modulus``, ``v.residue``, ``v.is_bottom``; it builds one with
``IC(interval, congruence)``, ``IC.from_bounds(lo, hi, sort)`` or
``IC.constant(c, sort)``.
"""

from __future__ import annotations

from typing import Sequence

import attrs

from domains import congruence as cg
from domains import interval as iv
from domains.bounds import INF, NEG_INF, OVERFLOW, Bound, BoundSum, mul_bound, next_congruent, prev_congruent
from domains.congruence import Congruence
from domains.interval import Interval
from domains.lattice import Operation, Sort


def reduce(i: Interval, c: Congruence) -> tuple[Interval, Congruence]:
    """The tightest pair denoting γ(i) ∩ γ(c). Rule table (as in Crab's interval_congruence_impl.hpp):

        i = ⊥ or c = ⊥                         -> (⊥, ⊥)
        c = {a},  a ∉ i                         -> (⊥, ⊥)
        c = {a}                                 -> ([a, a], {a})
        i = [a, a], a ∉ c                       -> (⊥, ⊥)
        i = [a, a]                              -> ([a, a], {a})
        c = Z or c = ℝ (top)                    -> (i, c)
        c = mZ + r, m >= 2: lo' = least element of c >= lo, hi' = greatest <= hi (finite sides)
            lo' > hi'                           -> (⊥, ⊥)
            lo' = hi'                           -> ([lo', lo'], {lo'})
            otherwise                           -> ([lo', hi'], c)
    """
    lo, hi = i.lo, i.hi
    m = c.modulus
    if lo > hi or m < 0:
        return _BOTTOMS[i.real]
    if m == 0:
        a = c.residue
        if not lo <= a <= hi:
            return _BOTTOMS[i.real]
        if lo == hi:
            return i, c
        return Interval(a, a, i.real), c
    if lo == hi:
        if not cg.contains(c, lo):
            return _BOTTOMS[i.real]
        return i, Congruence(0, lo, i.real)
    if m == 1:
        return i, c
    r = c.residue
    nlo = next_congruent(m, r, lo) if type(lo) is int else lo
    nhi = prev_congruent(m, r, hi) if type(hi) is int else hi
    if nlo > nhi:
        return _BOTTOMS[False]
    if nlo == nhi:
        return Interval(nlo, nlo, False), Congruence(0, nlo, False)
    if nlo == lo and nhi == hi:
        return i, c
    return Interval(nlo, nhi, False), c


@attrs.frozen(slots=True, init=False, repr=False)
class IntervalCongruence:
    """γ(interval) ∩ γ(congruence), always reduced (see :func:`reduce`)."""

    interval: Interval
    congruence: Congruence

    def __init__(self, interval: Interval, congruence: Congruence):
        i, c = reduce(interval, congruence)
        object.__setattr__(self, "interval", i)
        object.__setattr__(self, "congruence", c)

    def __repr__(self) -> str:
        if self.interval.lo > self.interval.hi:
            return repr(self.interval)
        if self.congruence.modulus in (0, 1):
            return repr(self.interval)
        return f"{self.interval!r}∩{self.congruence!r}"

    @property
    def lo(self) -> Bound:
        return self.interval.lo

    @property
    def hi(self) -> Bound:
        return self.interval.hi

    @property
    def modulus(self) -> int:
        """m of mZ + r: 0 for a constant, 1 when unknown (or Real), -1 for bottom."""
        return self.congruence.modulus

    @property
    def residue(self):
        return self.congruence.residue

    @property
    def real(self) -> bool:
        return self.interval.real

    @property
    def is_bottom(self) -> bool:
        return self.interval.lo > self.interval.hi

    def __contains__(self, x: object) -> bool:
        return x in self.interval and cg.contains(self.congruence, x)


def _raw(i: Interval, c: Congruence) -> IntervalCongruence:
    """A value from an already reduced pair (skips :func:`reduce`)."""
    v = object.__new__(IntervalCongruence)
    object.__setattr__(v, "interval", i)
    object.__setattr__(v, "congruence", c)
    return v


_BOTTOMS = {False: (iv.BOTTOM_INT, cg.BOTTOM_INT), True: (iv.BOTTOM_REAL, cg.BOTTOM_REAL)}
TOP_INT = _raw(iv.TOP_INT, cg.TOP_INT)
TOP_REAL = _raw(iv.TOP_REAL, cg.TOP_REAL)
BOTTOM_INT = _raw(iv.BOTTOM_INT, cg.BOTTOM_INT)
BOTTOM_REAL = _raw(iv.BOTTOM_REAL, cg.BOTTOM_REAL)


def _bottom(real: bool) -> IntervalCongruence:
    return BOTTOM_REAL if real else BOTTOM_INT


def _may_be_zero(v: IntervalCongruence) -> bool:
    """0 ∈ γ(v)"""
    i = v.interval
    return i.lo <= 0 <= i.hi and cg.contains(v.congruence, 0)


# ---------------------------------------------------------------- forward


def _f_componentwise(t: Operation, args: Sequence[IntervalCongruence]) -> IntervalCongruence:
    kind = t.kind
    i = iv.FORWARD[kind](t, [a.interval for a in args])
    c = cg.FORWARD[kind](t, [a.congruence for a in args])
    return IntervalCongruence(i, c)


def _f_const(t, args):
    return _constant(t.data, t.sort)


def _f_var(t, args):
    return TOP_REAL if t.sort.real else TOP_INT


def _f_div(t, args):
    x, y = args
    zero = _may_be_zero(y)
    return IntervalCongruence(iv.div_int(x.interval, y.interval, zero), cg.div(x.congruence, y.congruence, zero))


def _f_mod(t, args):
    x, y = args
    zero = _may_be_zero(y)
    return IntervalCongruence(iv.mod_int(x.interval, y.interval, zero), cg.mod(x.congruence, y.congruence, zero))


FORWARD = {kind: _f_componentwise for kind in iv.FORWARD}
FORWARD.update({"const": _f_const, "var": _f_var, "div": _f_div, "mod": _f_mod})


# ---------------------------------------------------------------- backward


def _b_componentwise(t, result, args):
    kind = t.kind
    ib = iv.BACKWARD[kind](t, result.interval, [a.interval for a in args])
    cb = cg.BACKWARD[kind](t, result.congruence, [a.congruence for a in args])
    return [IntervalCongruence(i, c) for i, c in zip(ib, cb)]


def _b_unchanged(t, result, args):
    return args


def _b_div(t, result, args):
    x, y = args
    zero = _may_be_zero(y)
    nx = iv.div_back_dividend(x.interval, y.interval, result.interval, zero)
    if nx.lo > nx.hi:
        return [BOTTOM_INT, BOTTOM_INT]
    ny = y.interval if zero else iv.div_back_divisor(nx, y.interval, result.interval)
    return [IntervalCongruence(nx, x.congruence), IntervalCongruence(ny, y.congruence)]


def _b_mod(t, result, args):
    x, y = args
    zero = _may_be_zero(y)
    nxi, nyi = iv.mod_back(x.interval, y.interval, result.interval, zero)
    nxc = cg.mod_back(x.congruence, y.congruence, result.congruence, zero)
    return [IntervalCongruence(nxi, nxc), IntervalCongruence(nyi, y.congruence)]


BACKWARD = {kind: _b_componentwise for kind in iv.BACKWARD}
BACKWARD.update({"const": _b_unchanged, "var": _b_unchanged, "div": _b_div, "mod": _b_mod})


# ---------------------------------------------------------------- the domain adapter


def _constant(value, sort: Sort) -> IntervalCongruence:
    i = iv.INTERVAL.constant(value, sort)
    return _raw(i, Congruence(0, i.lo, i.real))


class SumTracker:
    """The value of a long sum ``Σ cᵢ·aᵢ + k`` kept up to date one operand at a time
    (:meth:`replace`): the interval by :class:`domains.bounds.BoundSum`, the congruence read
    again only when an operand's congruence changed. A fact that narrows one operand of a
    sum of thousands then costs O(1), not a re-reading of the sum. Equal to ``forward``."""

    __slots__ = ("coefs", "k", "real", "values", "low", "high", "congruence", "empty")

    def __init__(self, term: Operation, values: Sequence[IntervalCongruence]):
        self.coefs, self.k = term.data
        self.real = term.sort.real
        self.values = list(values)
        self.low, self.high = BoundSum(self.k, NEG_INF), BoundSum(self.k, INF)
        self.empty = 0
        self._count_all()
        self._congruence()

    def _count_all(self) -> None:
        """:meth:`_count` of every operand once, in one loop: a sum is registered with all its
        operands (a prefix sum of a jagged split has hundreds), and five calls per operand
        were most of registering it. ``c * ±inf`` is infinite for ``c != 0``, as ``mul_bound``."""
        low = high = 0
        low_inf = high_inf = empty = 0
        for c, v in zip(self.coefs, self.values):
            i = v.interval
            lo, hi = i.lo, i.hi
            if lo > hi:
                empty += 1
                continue
            if not c:
                continue
            if c < 0:
                lo, hi = hi, lo
            if type(lo) is float:
                low_inf += 1
            else:
                low += c * lo
            if type(hi) is float:
                high_inf += 1
            else:
                high += c * hi
        self.low.add(low)
        self.high.add(high)
        self.low.infinite += low_inf
        self.high.infinite += high_inf
        self.empty += empty

    def _count(self, c, v: IntervalCongruence, times: int) -> None:
        i = v.interval
        if i.lo > i.hi:
            self.empty += times
            return
        lo, hi = (i.lo, i.hi) if c > 0 else (i.hi, i.lo)
        self.low.add(mul_bound(c, lo), times)
        self.high.add(mul_bound(c, hi), times)

    def _congruence(self) -> None:
        self.congruence = cg.lin(self.coefs, self.k, [v.congruence for v in self.values], self.real)

    def replace(self, index: int, value: IntervalCongruence) -> None:
        """Operand ``index`` now lies in ``value``."""
        old = self.values[index]
        if old == value:
            return
        c = self.coefs[index]
        self._count(c, old, -1)
        self._count(c, value, 1)
        self.values[index] = value
        if old.congruence != value.congruence:
            self._congruence()

    def value(self) -> IntervalCongruence:
        if self.empty:
            return _bottom(self.real)
        return IntervalCongruence(Interval(self.low.total(), self.high.total(), self.real), self.congruence)


class IntervalCongruenceDomain:
    """The reduced product as a :class:`domains.lattice.ValueDomain`; calling the domain object,
    ``IC(interval, congruence)``, builds a (reduced) value."""

    __slots__ = ()

    def __call__(self, interval: Interval, congruence: Congruence) -> IntervalCongruence:
        return IntervalCongruence(interval, congruence)

    def top(self, sort: Sort) -> IntervalCongruence:
        return TOP_REAL if sort.real else TOP_INT

    def bottom(self, sort: Sort) -> IntervalCongruence:
        return BOTTOM_REAL if sort.real else BOTTOM_INT

    def is_bottom(self, v: IntervalCongruence) -> bool:
        return v.interval.lo > v.interval.hi

    def leq(self, a: IntervalCongruence, b: IntervalCongruence) -> bool:
        """(i1, c1) ⊑ (i2, c2) ⇔ i1 ⊑ i2 ∧ c1 ⊑ c2 (exact on reduced values)"""
        if a.interval.lo > a.interval.hi:
            return True
        return iv.leq(a.interval, b.interval) and cg.leq(a.congruence, b.congruence)

    def join(self, a: IntervalCongruence, b: IntervalCongruence) -> IntervalCongruence:
        """(i1, c1) ⊔ (i2, c2) = reduce(i1 ⊔ i2, c1 ⊔ c2)"""
        if a.interval.lo > a.interval.hi:
            return b
        if b.interval.lo > b.interval.hi:
            return a
        return IntervalCongruence(iv.join(a.interval, b.interval), cg.join(a.congruence, b.congruence))

    def meet(self, a: IntervalCongruence, b: IntervalCongruence) -> IntervalCongruence:
        """(i1, c1) ⊓ (i2, c2) = reduce(i1 ⊓ i2, c1 ⊓ c2)"""
        return IntervalCongruence(iv.meet(a.interval, b.interval), cg.meet(a.congruence, b.congruence))

    def constant(self, value, sort: Sort) -> IntervalCongruence:
        """c ↦ ([c, c], {c})"""
        return _constant(value, sort)

    def from_bounds(self, lo: Bound, hi: Bound, sort: Sort) -> IntervalCongruence:
        """([lo, hi], top) reduced (Int bounds rounded inward)."""
        real = sort.real
        return IntervalCongruence(iv.make(lo, hi, real), cg.top(real))

    def forward(self, term: Operation, args: Sequence[IntervalCongruence]) -> IntervalCongruence:
        for a in args:
            if a.interval.lo > a.interval.hi:
                return BOTTOM_REAL if term.sort.real else BOTTOM_INT
        try:
            return FORWARD[term.kind](term, args)
        except OVERFLOW:  # a bound beyond the float range met an infinity: no information
            return self.top(term.sort)

    def backward(
        self, term: Operation, result: IntervalCongruence, args: Sequence[IntervalCongruence]
    ) -> Sequence[IntervalCongruence]:
        if result.interval.lo > result.interval.hi or any(a.interval.lo > a.interval.hi for a in args):
            return [_bottom(a.real) for a in args]
        try:
            out = BACKWARD[term.kind](term, result, args)
        except OVERFLOW:  # a bound beyond the float range met an infinity: nothing narrowed
            return args
        for a in out:
            if a.interval.lo > a.interval.hi:
                return [_bottom(b.real) for b in args]
        return out

    def truth(self, kind: str, v: IntervalCongruence) -> bool | None:
        """The interval's verdict, else the congruence's (0 ∉ mZ + r decides eq / ne)."""
        t = iv.truth(kind, v.interval)
        if t is None:
            return cg.truth(kind, v.congruence)
        return t

    def restrict(self, kind: str, v: IntervalCongruence) -> IntervalCongruence:
        """reduce(restrict(i), restrict(c)): e.g. ([0, 8], 4Z) ∩ {t ≠ 0} = ([4, 8], 4Z)"""
        return IntervalCongruence(iv.restrict(kind, v.interval), cg.restrict(kind, v.congruence))

    def bounds(self, v: IntervalCongruence) -> tuple[Bound, Bound]:
        """(lo, hi) of the (reduced) interval; bottom gives (inf, -inf)."""
        return v.interval.lo, v.interval.hi

    def congruence(self, v: IntervalCongruence) -> tuple[int, object]:
        """(m, r) of the (reduced) congruence: 0 for a constant, 1 when unknown, -1 for bottom."""
        return v.congruence.modulus, v.congruence.residue

    def sum_tracker(self, term: Operation, args: Sequence[IntervalCongruence]) -> SumTracker:
        """``forward`` of a sum, kept up to date one operand at a time (:class:`SumTracker`)."""
        return SumTracker(term, args)


IC = IntervalCongruenceDomain()
