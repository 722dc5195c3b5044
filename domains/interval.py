"""Intervals: Z ∪ {±∞} bounds for Int terms, exact rationals for Real terms.

An :class:`Interval` is the closed set ``{v : lo <= v <= hi}`` of its sort.
Invariants, kept by every operation of this module:

* an Int interval (``real`` false) has ``int`` or infinite bounds: refinements
  round inward (⌈lo⌉, ⌊hi⌋);
* a Real interval has rational (``int`` or ``Fraction``) or infinite bounds;
  strict comparisons are dropped soundly (``x < 0`` keeps ``hi = 0``) and
  irrational results (roots) are rounded *outward* to rationals;
* a non-empty interval has ``lo < inf`` and ``hi > -inf``; every empty one is
  the sort's :data:`BOTTOM_INT` / :data:`BOTTOM_REAL` (``lo = inf, hi = -inf``).

The sort is part of the value because the lattice operations of the protocol do
not receive it, yet ``restrict(ne, ·)`` may only shave an endpoint of an Int.

Operators on intervals are module functions (``add_lin``, ``div_int``, ...), so
the interval × congruence product can call them with extra knowledge (a divisor
whose congruence excludes 0). :data:`INTERVAL` adapts them to
:class:`domains.lattice.ValueDomain` through one dispatch table keyed by term kind.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Sequence

import attrs

from domains.bounds import (
    INF,
    MAX_POWER,
    NEG_INF,
    OVERFLOW,
    Bound,
    ceil_bound,
    ceil_div,
    div_bound,
    div_pos_range,
    div_range,
    div_range_int,
    floor_bound,
    floor_div,
    linear_range,
    mul_bound,
    mul_range,
    next_residue_in,
    pow_ceil,
    pow_floor,
    pow_range,
    prev_residue_in,
    sub_bound,
)
from domains.lattice import Operation, Sort


@attrs.frozen(slots=True, repr=False)
class Interval:
    """``[lo, hi]`` over the integers (``real`` false) or the reals (``real`` true)."""

    lo: Bound
    hi: Bound
    real: bool = False

    def __repr__(self) -> str:
        if self.lo > self.hi:
            return "⊥" + ("ℝ" if self.real else "")
        return f"[{self.lo}, {self.hi}]" + ("ℝ" if self.real else "")

    @property
    def is_bottom(self) -> bool:
        return self.lo > self.hi

    @property
    def is_point(self) -> bool:
        return self.lo == self.hi

    def __contains__(self, x: object) -> bool:
        return self.lo <= x <= self.hi


TOP_INT = Interval(NEG_INF, INF, False)
TOP_REAL = Interval(NEG_INF, INF, True)
BOTTOM_INT = Interval(INF, NEG_INF, False)
BOTTOM_REAL = Interval(INF, NEG_INF, True)
ZERO_INT = Interval(0, 0, False)
ZERO_REAL = Interval(0, 0, True)


def top(real: bool) -> Interval:
    return TOP_REAL if real else TOP_INT


def bottom(real: bool) -> Interval:
    return BOTTOM_REAL if real else BOTTOM_INT


def make(lo: Bound, hi: Bound, real: bool) -> Interval:
    """The interval of this sort between ``lo`` and ``hi``: Int bounds rounded inward, empty -> bottom.
    A finite float bound is taken exactly (``Fraction(0.5)``), never kept as a float."""
    if type(lo) is float and lo != NEG_INF and lo != INF:
        lo = Fraction(lo)
    if type(hi) is float and hi != NEG_INF and hi != INF:
        hi = Fraction(hi)
    if not real:
        lo, hi = ceil_bound(lo), floor_bound(hi)
    if lo > hi or lo == INF or hi == NEG_INF:
        return BOTTOM_REAL if real else BOTTOM_INT
    return Interval(lo, hi, real)


def _fit(lo: Bound, hi: Bound, real: bool) -> Interval:
    """Like :func:`make` for bounds already of the right kind (skips the rounding)."""
    if lo > hi:
        return BOTTOM_REAL if real else BOTTOM_INT
    return Interval(lo, hi, real)


# ---------------------------------------------------------------- lattice


def join(a: Interval, b: Interval) -> Interval:
    """[a, b] ⊔ [c, d] = [min(a, c), max(b, d)]"""
    if a.lo > a.hi:
        return b
    if b.lo > b.hi:
        return a
    lo = a.lo if a.lo <= b.lo else b.lo
    hi = a.hi if a.hi >= b.hi else b.hi
    if lo is a.lo and hi is a.hi:
        return a
    return Interval(lo, hi, a.real)


def meet(a: Interval, b: Interval) -> Interval:
    """[a, b] ⊓ [c, d] = [max(a, c), min(b, d)] (bottom when empty)"""
    lo = a.lo if a.lo >= b.lo else b.lo
    hi = a.hi if a.hi <= b.hi else b.hi
    if lo > hi:
        return BOTTOM_REAL if a.real else BOTTOM_INT
    if lo == a.lo and hi == a.hi:
        return a
    if lo == b.lo and hi == b.hi:
        return b
    return Interval(lo, hi, a.real)


def leq(a: Interval, b: Interval) -> bool:
    """[a, b] ⊑ [c, d] ⇔ empty or c <= a ∧ b <= d"""
    return a.lo > a.hi or (b.lo <= a.lo and a.hi <= b.hi)


def shave_zero(v: Interval) -> Interval:
    """An Int interval without the value 0 where 0 is an endpoint ([0, 5] -> [1, 5])."""
    lo, hi = v.lo, v.hi
    if lo == 0:
        lo = 1
    if hi == 0:
        hi = -1
    if lo is v.lo and hi is v.hi:
        return v
    return _fit(lo, hi, v.real)


def contains_zero(v: Interval) -> bool:
    return v.lo <= 0 <= v.hi


# ---------------------------------------------------------------- forward operators


def add_lin(coefs: Sequence, k: Bound, args: Sequence[Interval], real: bool) -> Interval:
    """Σ cᵢ·[aᵢ, bᵢ] + k (see :func:`domains.bounds.linear_range`)"""
    lo, hi = linear_range(coefs, k, [(a.lo, a.hi) for a in args])
    return Interval(lo, hi, real)


def mul(args: Sequence[Interval], real: bool, same: Sequence[int] | None = None) -> Interval:
    """Π [aᵢ, bᵢ] by corner products (0·inf = 0); a factor repeated n times is raised to the n-th
    power, so ``x*x`` is non-negative. ``same[i]`` is the multiplicity of run ``i`` when given."""
    if same is None:
        lo, hi = args[0].lo, args[0].hi
        for a in args[1:]:
            lo, hi = mul_range(lo, hi, a.lo, a.hi)
    else:
        lo, hi = 1, 1
        for a, n in zip(args, same):
            al, ah = pow_range(a.lo, a.hi, n) if n > 1 else (a.lo, a.hi)
            lo, hi = mul_range(lo, hi, al, ah)
    return Interval(lo, hi, real)


def _nonzero_parts(y: Interval) -> tuple[tuple[Bound, Bound] | None, tuple[Bound, Bound] | None]:
    """The negative part [lo, -1] and the positive part [1, hi] of an Int divisor."""
    neg = (y.lo, y.hi if y.hi < -1 else -1) if y.lo <= -1 else None
    pos = (y.lo if y.lo > 1 else 1, y.hi) if y.hi >= 1 else None
    return neg, pos


def div_int(x: Interval, y: Interval, y_may_be_zero: bool) -> Interval:
    """x div y (Euclidean): top when y may be 0 (x div 0 is arbitrary); otherwise the hull over
    y's parts, ⌊x / y⌋ for y >= 1 and x div y = -(x div -y) for y <= -1."""
    if y_may_be_zero:
        return TOP_INT
    neg, pos = _nonzero_parts(y)
    lo, hi = INF, NEG_INF
    if pos is not None:
        lo, hi = div_pos_range(x.lo, x.hi, pos[0], pos[1])
    if neg is not None:
        nl, nh = div_pos_range(x.lo, x.hi, -neg[1], -neg[0])
        lo, hi = min(lo, -nh), max(hi, -nl)
    return _fit(lo, hi, False)


def abs_range(y: Interval) -> tuple[Bound, Bound]:
    """[min |y|, max |y|] over y's non-zero values (min is 1 when y has both signs)."""
    if y.lo >= 1:
        return y.lo, y.hi
    if y.hi <= -1:
        return -y.hi, -y.lo
    return 1, max(-y.lo, y.hi)


def mod_int(x: Interval, y: Interval, y_may_be_zero: bool) -> Interval:
    """x mod y ∈ [0, max|y| - 1], also <= x when x >= 0; x itself when 0 <= x < min|y|;
    [x.lo mod d, x.hi mod d] when |y| = d and x lies in one period; top when y may be 0."""
    if y_may_be_zero:
        return TOP_INT
    dmin, dmax = abs_range(y)
    xl, xh = x.lo, x.hi
    if xl >= 0 and xh < dmin:
        return x
    hi = dmax - 1
    lo = 0
    if xl >= 0:
        if xh < hi:
            hi = xh
    elif xh < 0 and xl >= -dmin:
        # x mod y = x + |y| when -|y| <= x < 0
        lo = xl + dmin
        if xh + dmax < hi:
            hi = xh + dmax
    if dmin == dmax and type(xl) is int and type(xh) is int and xl // dmin == xh // dmin:
        lo, hi = xl % dmin, xh % dmin
    return _fit(lo, hi, False)


def rdiv(x: Interval, y: Interval) -> Interval:
    """x / y over the reals = hull of corner quotients when 0 ∉ y; top otherwise (x / 0 is arbitrary
    and x / ε is unbounded)."""
    if y.lo <= 0 <= y.hi:
        return TOP_REAL
    lo, hi = div_range(x.lo, x.hi, y.lo, y.hi)
    return Interval(lo, hi, True)


def power(base: Interval, exponent: Interval, real: bool) -> Interval:
    """base ^ e for a constant e: natural e by monotone pieces ([lo, hi]^n); a negative integer e as
    1 / base^|e| when 0 ∉ base (Real only); a fractional e on base >= 0 (base > 0 for e < 0) with
    roots rounded outward. Anything else (a non-constant exponent, a possibly negative base under a
    root, 0^negative) is top: SMT-LIB leaves those values unspecified."""
    if exponent.lo != exponent.hi or type(exponent.lo) is float:
        return top(real)
    e = Fraction(exponent.lo)
    lo, hi = base.lo, base.hi
    if e.denominator == 1:
        n = e.numerator
        if abs(n) > MAX_POWER:
            return top(real)
        if n >= 0:
            pl, ph = pow_range(lo, hi, n)
            return Interval(pl, ph, real)
        if not real or lo <= 0 <= hi:
            return top(real)
        pl, ph = pow_range(lo, hi, -n)
        rl, rh = div_range(1, 1, pl, ph)
        return Interval(rl, rh, True)
    if abs(e.numerator) > MAX_POWER or e.denominator > MAX_POWER or lo < 0 or (e < 0 and lo == 0):
        return top(real)
    if e > 0:
        return make(pow_floor(lo, e), pow_ceil(hi, e), real)
    return make(pow_floor(hi, e), pow_ceil(lo, e), real)


def to_int(x: Interval) -> Interval:
    """⌊[a, b]⌋ = [⌊a⌋, ⌊b⌋]"""
    return Interval(floor_bound(x.lo), floor_bound(x.hi), False)


def ceil(x: Interval) -> Interval:
    """⌈[a, b]⌉ = [⌈a⌉, ⌈b⌉]"""
    return Interval(ceil_bound(x.lo), ceil_bound(x.hi), False)


def minimum(args: Sequence[Interval], real: bool) -> Interval:
    """min([a, b], [c, d]) = [min(a, c), min(b, d)]"""
    return Interval(min(a.lo for a in args), min(a.hi for a in args), real)


def maximum(args: Sequence[Interval], real: bool) -> Interval:
    """max([a, b], [c, d]) = [max(a, c), max(b, d)]"""
    return Interval(max(a.lo for a in args), max(a.hi for a in args), real)


def runs(term: Operation) -> list[int] | None:
    """Multiplicities of repeated factors of a ``mul`` (factors are sorted, so repeats are
    adjacent); None when every factor is distinct."""
    args = term.args
    out: list[int] | None = None
    for i in range(1, len(args)):
        if args[i] is args[i - 1]:
            out = []
            break
    if out is None:
        return None
    prev = None
    for a in args:
        if a is prev:
            out[-1] += 1
        else:
            out.append(1)
        prev = a
    return out


def distinct_factors(term: Operation, args: Sequence) -> list:
    """The values of the distinct factors of a ``mul``, in order (one per run)."""
    out = []
    prev = None
    for t, a in zip(term.args, args):
        if t is not prev:
            out.append(a)
        prev = t
    return out


# ---------------------------------------------------------------- backward operators


def _narrow(v: Interval, lo: Bound, hi: Bound) -> Interval:
    """v ⊓ [lo, hi] (bounds already rounded for the sort)."""
    nlo = v.lo if v.lo >= lo else lo
    nhi = v.hi if v.hi <= hi else hi
    if nlo is v.lo and nhi is v.hi:
        return v
    return _fit(nlo, nhi, v.real)


def narrow(v: Interval, lo: Bound, hi: Bound) -> Interval:
    """v ⊓ [lo, hi], rounding the new bounds inward for an Int ``v``."""
    if not v.real:
        lo, hi = ceil_bound(lo), floor_bound(hi)
    return _narrow(v, lo, hi)


def lin_back(coefs: Sequence, k: Bound, result: Interval, args: Sequence[Interval]) -> list[Interval]:
    """cᵢ·xᵢ ∈ result - k - Σ_{j≠i} cⱼ·xⱼ, so xᵢ ∈ that / cᵢ (Int: rounded inward), each ⊓ xᵢ.

    The sums of the others are the total minus the own term; infinite contributions are counted
    separately so that no ``inf - inf`` ever arises.
    """
    n = len(args)
    los: list[Bound] = [0] * n
    his: list[Bound] = [0] * n
    lo_fin = hi_fin = 0
    lo_inf = hi_inf = 0
    for i in range(n):
        c, a = coefs[i], args[i]
        if c > 0:
            l, h = mul_bound(c, a.lo), mul_bound(c, a.hi)
        else:
            l, h = mul_bound(c, a.hi), mul_bound(c, a.lo)
        los[i], his[i] = l, h
        if l == NEG_INF:
            lo_inf += 1
        else:
            lo_fin += l
        if h == INF:
            hi_inf += 1
        else:
            hi_fin += h
    rlo, rhi = sub_bound(result.lo, k), sub_bound(result.hi, k)
    out = []
    for i in range(n):
        l, h = los[i], his[i]
        if l == NEG_INF:
            others_lo = NEG_INF if lo_inf > 1 else lo_fin
        else:
            others_lo = NEG_INF if lo_inf else lo_fin - l
        if h == INF:
            others_hi = INF if hi_inf > 1 else hi_fin
        else:
            others_hi = INF if hi_inf else hi_fin - h
        tlo = sub_bound(rlo, others_hi)  # bounds of cᵢ·xᵢ
        thi = sub_bound(rhi, others_lo)
        c, a = coefs[i], args[i]
        if a.real:
            if c > 0:
                nlo, nhi = div_bound(tlo, c), div_bound(thi, c)
            else:
                nlo, nhi = div_bound(thi, c), div_bound(tlo, c)
        elif c > 0:
            nlo, nhi = ceil_div(tlo, c), floor_div(thi, c)
        else:
            nlo, nhi = ceil_div(thi, c), floor_div(tlo, c)
        out.append(_narrow(a, nlo, nhi))
    return out


def mul_back(result: Interval, args: Sequence[Interval], real: bool) -> list[Interval]:
    """xᵢ ∈ result / Π_{j≠i} xⱼ when that product P excludes 0 (Int: also when result excludes 0,
    dividing by the non-zero parts of P, and then xᵢ ≠ 0)."""
    n = len(args)
    # suffix products of the factors after i
    suffix: list[tuple[Bound, Bound]] = [(1, 1)] * (n + 1)
    for i in range(n - 1, -1, -1):
        a = args[i]
        suffix[i] = mul_range(a.lo, a.hi, suffix[i + 1][0], suffix[i + 1][1])
    out = []
    plo, phi = 1, 1  # prefix product of the factors before i
    rlo, rhi = result.lo, result.hi
    r_excludes_zero = rlo > 0 or rhi < 0
    for i in range(n):
        a = args[i]
        olo, ohi = mul_range(plo, phi, suffix[i + 1][0], suffix[i + 1][1])
        if olo > 0 or ohi < 0:
            if real:
                nlo, nhi = div_range(rlo, rhi, olo, ohi)
            else:
                nlo, nhi = div_range_int(rlo, rhi, olo, ohi)
            new = _narrow(a, nlo, nhi)
        elif not real and r_excludes_zero:
            nlo, nhi = INF, NEG_INF
            if olo <= -1:
                ql, qh = div_range_int(rlo, rhi, olo, -1)
                nlo, nhi = min(nlo, ql), max(nhi, qh)
            if ohi >= 1:
                ql, qh = div_range_int(rlo, rhi, 1, ohi)
                nlo, nhi = min(nlo, ql), max(nhi, qh)
            new = shave_zero(_narrow(a, nlo, nhi)) if nlo <= nhi else BOTTOM_INT
        else:
            new = a
        out.append(new)
        plo, phi = mul_range(plo, phi, a.lo, a.hi)
    return out


def div_back_dividend(x: Interval, y: Interval, q: Interval, y_may_be_zero: bool) -> Interval:
    """x = y·q + r with 0 <= r <= |y| - 1, so x ∈ ⋃ over y's non-zero parts P of P·q + [0, max|P| - 1]
    (unchanged when y may be 0: x div 0 is arbitrary)."""
    if y_may_be_zero:
        return x
    neg, pos = _nonzero_parts(y)
    lo, hi = INF, NEG_INF
    for part in (neg, pos):
        if part is None:
            continue
        pl, ph = mul_range(part[0], part[1], q.lo, q.hi)
        span = max(-part[0], part[1]) - 1
        lo, hi = min(lo, pl), max(hi, ph + span)
    return _narrow(x, lo, hi)


def _divisor_pos(x: Interval, q: Interval, y: Interval) -> Interval:
    """For y >= 1 and x >= 0: y·q <= x < y·(q + 1), so y <= x.hi div q.lo (q.lo >= 1) and
    y >= x.lo div (q.hi + 1) + 1."""
    lo, hi = y.lo, y.hi
    if q.lo >= 1 and type(x.hi) is int:
        hi = min(hi, x.hi // q.lo)
    if type(q.hi) is int and q.hi >= 0:
        lo = max(lo, x.lo // (q.hi + 1) + 1)
    return _narrow(y, lo, hi)


def div_back_divisor(x: Interval, y: Interval, q: Interval) -> Interval:
    """Bounds on a one-signed divisor of a non-negative dividend from the quotient (negative y by
    the mirror x div y = -(x div -y))."""
    if x.lo < 0:
        return y
    if y.lo >= 1:
        return _divisor_pos(x, q, y)
    if y.hi <= -1:
        m = _divisor_pos(x, Interval(-q.hi, -q.lo), Interval(-y.hi, -y.lo))
        return _fit(-m.hi, -m.lo, False)
    return y


def mod_back(x: Interval, y: Interval, r: Interval, y_may_be_zero: bool) -> tuple[Interval, Interval]:
    """r = x mod y. Constant |y| = d: x's bounds move to the nearest values whose residue mod d lies
    in r. Otherwise (y ≠ 0): r ∈ [0, |y| - 1] so |y| >= r.lo + 1, x >= r.lo when x >= 0, and
    x ∈ r when 0 <= x < min|y|. A y that may be 0 keeps 0 (x mod 0 is arbitrary) and keeps x."""
    rlo = r.lo if r.lo > 0 else 0
    if y_may_be_zero:
        # y = 0 is consistent with anything; other values of y need |y| >= rlo + 1
        ny = _abs_at_least(y, rlo + 1, keep_zero=True) if r.hi >= 0 else _narrow(y, 0, 0)
        return x, ny
    if r.hi < 0:
        return BOTTOM_INT, BOTTOM_INT
    dmin, dmax = abs_range(y)
    if dmin == dmax:
        d = dmin
        rhi = r.hi if r.hi < d - 1 else d - 1
        if rlo > rhi:
            return BOTTOM_INT, BOTTOM_INT
        lo, hi = x.lo, x.hi
        if type(lo) is int:
            lo = next_residue_in(d, rlo, rhi, lo)
        if type(hi) is int:
            hi = prev_residue_in(d, rlo, rhi, hi)
        nx = _narrow(x, lo, hi)
        return (nx, y) if nx.lo <= nx.hi else (BOTTOM_INT, BOTTOM_INT)
    ny = _abs_at_least(y, rlo + 1, keep_zero=False)
    nx = x
    if x.lo >= 0:
        if x.hi < dmin:
            nx = _narrow(x, r.lo, r.hi)
        else:
            nx = _narrow(x, rlo, INF)
    if ny.lo > ny.hi or nx.lo > nx.hi:
        return BOTTOM_INT, BOTTOM_INT
    return nx, ny


def _abs_at_least(y: Interval, m: int, keep_zero: bool) -> Interval:
    """Hull of {y : |y| >= m} (plus 0 if ``keep_zero`` and 0 ∈ y) within y."""
    lo, hi = INF, NEG_INF
    if y.lo <= -m:
        lo, hi = y.lo, min(y.hi, -m)
    if y.hi >= m:
        lo, hi = min(lo, max(y.lo, m)), y.hi
    if keep_zero and y.lo <= 0 <= y.hi:
        lo, hi = min(lo, 0), max(hi, 0)
    return _narrow(y, lo, hi) if lo <= hi else BOTTOM_INT


def rdiv_back(x: Interval, y: Interval, q: Interval) -> tuple[Interval, Interval]:
    """q = x / y with y ≠ 0: x ∈ q·y and y ∈ x / q when 0 ∉ q (only when 0 ∉ y: x / 0 is arbitrary)."""
    if y.lo <= 0 <= y.hi:
        return x, y
    lo, hi = mul_range(q.lo, q.hi, y.lo, y.hi)
    nx = _narrow(x, lo, hi)
    if nx.lo > nx.hi:
        return BOTTOM_REAL, BOTTOM_REAL
    ny = y
    if q.lo > 0 or q.hi < 0:
        lo, hi = div_range(nx.lo, nx.hi, q.lo, q.hi)
        ny = _narrow(y, lo, hi)
        if ny.lo > ny.hi:
            return BOTTOM_REAL, BOTTOM_REAL
    return nx, ny


def power_back(base: Interval, exponent: Interval, result: Interval) -> Interval:
    """y = x^e for a constant e > 0 is increasing on x >= 0, so x >= 0 lies in
    [⌊y.lo^(1/e)⌋, ⌈y.hi^(1/e)⌉] (outward); x < 0 is kept when e is fractional (unspecified
    value) and the base is left alone for integer e with a possibly negative base."""
    if exponent.lo != exponent.hi or type(exponent.lo) is float:
        return base
    e = Fraction(exponent.lo)
    if e <= 0 or abs(e.denominator) > MAX_POWER:
        return base
    if e.denominator == 1 and base.lo < 0:
        return base
    inv = 1 / e
    if result.hi < 0:
        lo, hi = INF, NEG_INF
    else:
        lo = pow_floor(result.lo, inv) if result.lo > 0 else 0
        hi = pow_ceil(result.hi, inv)
    if base.lo < 0:  # fractional e: the negative part of the base is unconstrained
        lo = min(lo, base.lo)
        hi = max(hi, min(base.hi, 0))
    return narrow(base, lo, hi)


# ---------------------------------------------------------------- comparisons with zero


def truth(kind: str, v: Interval) -> bool | None:
    """Whether ``t <kind> 0`` holds on all of v (True), none of v (False), or is undecided.
    An empty v makes every comparison vacuously True."""
    lo, hi = v.lo, v.hi
    if lo > hi:
        return True
    if kind == "le":
        return True if hi <= 0 else False if lo > 0 else None
    if kind == "lt":
        return True if hi < 0 else False if lo >= 0 else None
    if kind == "eq":
        return True if lo == hi == 0 else False if lo > 0 or hi < 0 else None
    if kind == "ne":
        return False if lo == hi == 0 else True if lo > 0 or hi < 0 else None
    raise ValueError(f"not a comparison kind: {kind}")


def restrict(kind: str, v: Interval) -> Interval:
    """v ∩ {t : t <kind> 0}: le -> hi <= 0; lt -> hi <= 0 (Real, closed) or hi <= -1 (Int);
    eq -> [0, 0]; ne -> an endpoint 0 of an Int is shaved, [0, 0] becomes bottom."""
    lo, hi = v.lo, v.hi
    if kind == "le":
        return v if hi <= 0 else _fit(lo, 0, v.real)
    if kind == "lt":
        bound = 0 if v.real else -1
        return v if hi <= bound else _fit(lo, bound, v.real)
    if kind == "eq":
        if lo <= 0 <= hi:
            return ZERO_REAL if v.real else ZERO_INT
        return BOTTOM_REAL if v.real else BOTTOM_INT
    if kind == "ne":
        if lo == hi == 0:
            return BOTTOM_REAL if v.real else BOTTOM_INT
        return v if v.real else shave_zero(v)
    raise ValueError(f"not a comparison kind: {kind}")


# ---------------------------------------------------------------- the domain adapter

Forward = Callable[[Operation, Sequence[Interval]], Interval]
Backward = Callable[[Operation, Interval, Sequence[Interval]], Sequence[Interval]]


def _constant(value, sort: Sort) -> Interval:
    real = sort.real
    if real:
        value = Fraction(value)
        if value.denominator == 1:
            value = value.numerator
    return Interval(value, value, real)


def _f_const(t, args):
    return _constant(t.data, t.sort)


def _f_var(t, args):
    return TOP_REAL if t.sort.real else TOP_INT


def _f_lin(t, args):
    coefs, k = t.data
    return add_lin(coefs, k, args, t.sort.real)


def _f_mul(t, args):
    same = runs(t)
    if same is None:
        return mul(args, t.sort.real)
    return mul(distinct_factors(t, args), t.sort.real, same)


def _f_div(t, args):
    x, y = args
    return div_int(x, y, y.lo <= 0 <= y.hi)


def _f_mod(t, args):
    x, y = args
    return mod_int(x, y, y.lo <= 0 <= y.hi)


def _f_rdiv(t, args):
    return rdiv(args[0], args[1])


def _f_pow(t, args):
    return power(args[0], args[1], t.sort.real)


def _f_to_int(t, args):
    return to_int(args[0])


def _f_ceil(t, args):
    return ceil(args[0])


def _f_to_real(t, args):
    a = args[0]
    return Interval(a.lo, a.hi, True)


def _f_min(t, args):
    return minimum(args, t.sort.real)


def _f_max(t, args):
    return maximum(args, t.sort.real)


def _f_def(t, args):
    """A named sum equals each of its definitions: the meet of their values."""
    out = args[0]
    for a in args[1:]:
        out = meet(out, a)
    return out


FORWARD: dict[str, Forward] = {
    "fn": lambda t, args: top(t.sort.real),  # an opaque function: any value
    "const": _f_const,
    "var": _f_var,
    "lin": _f_lin,
    "mul": _f_mul,
    "div": _f_div,
    "mod": _f_mod,
    "rdiv": _f_rdiv,
    "pow": _f_pow,
    "to_int": _f_to_int,
    "ceil": _f_ceil,
    "to_real": _f_to_real,
    "min": _f_min,
    "max": _f_max,
    "def": _f_def,
}


def _b_unchanged(t, result, args):
    return args


def _b_lin(t, result, args):
    coefs, k = t.data
    return lin_back(coefs, k, result, args)


def _b_mul(t, result, args):
    out = mul_back(result, args, t.sort.real)
    return out if len(set(t.args)) == len(t.args) else repeated_factors_back(t.args, result, out)


def repeated_factors_back(factors: Sequence, result: Interval, args: list[Interval]) -> list[Interval]:
    """A factor ``x`` that occurs ``k >= 2`` times (the same term, hence the same value),
    the other factors' product ``O`` excluding 0: ``x^k`` lies in ``result / O``, so a
    non-negative ``x`` lies in its ``k``-th root (:func:`power_back`), where the factor by
    factor division of :func:`mul_back` divides by ``x``'s own bound ``k - 1`` times:
    ``n*n*n <= 4194303`` with ``n >= 2`` gives ``n <= 161`` (there: ``n <= 1048575``)."""
    out = list(args)
    positions: dict = {}
    for i, f in enumerate(factors):
        positions.setdefault(f, []).append(i)
    for at in positions.values():
        if len(at) < 2:
            continue
        olo, ohi = 1, 1
        for j, a in enumerate(out):
            if j not in at:
                olo, ohi = mul_range(olo, ohi, a.lo, a.hi)
        if not (olo > 0 or ohi < 0):
            continue
        plo, phi = div_range(result.lo, result.hi, olo, ohi)
        x = out[at[0]]
        nx = power_back(x, Interval(len(at), len(at), x.real), Interval(plo, phi, True))
        for j in at:
            out[j] = nx
    return out


def _b_div(t, result, args):
    x, y = args
    zero = y.lo <= 0 <= y.hi
    nx = div_back_dividend(x, y, result, zero)
    if nx.lo > nx.hi:
        return [BOTTOM_INT, BOTTOM_INT]
    ny = y if zero else div_back_divisor(nx, y, result)
    if ny.lo > ny.hi:
        return [BOTTOM_INT, BOTTOM_INT]
    return [nx, ny]


def _b_mod(t, result, args):
    x, y = args
    return list(mod_back(x, y, result, y.lo <= 0 <= y.hi))


def _b_rdiv(t, result, args):
    return list(rdiv_back(args[0], args[1], result))


def _b_pow(t, result, args):
    base, e = args
    return [power_back(base, e, result), e]


def _b_to_int(t, result, args):
    """⌊x⌋ ∈ [a, b] ⇒ x ∈ [a, b + 1) ⊆ [a, b + 1]"""
    return [_narrow(args[0], result.lo, result.hi + 1)]


def _b_ceil(t, result, args):
    """⌈x⌉ ∈ [a, b] ⇒ x ∈ (a - 1, b] ⊆ [a - 1, b]"""
    return [_narrow(args[0], result.lo - 1, result.hi)]


def _b_to_real(t, result, args):
    return [narrow(args[0], result.lo, result.hi)]


def _b_min(t, result, args):
    """min(a, b) ∈ R ⇒ a, b >= R.lo; and a <= R.hi when b > R.hi (b cannot be the minimum)."""
    a, b = args
    na = _narrow(a, result.lo, result.hi if b.lo > result.hi else INF)
    nb = _narrow(b, result.lo, result.hi if a.lo > result.hi else INF)
    return [na, nb]


def _b_max(t, result, args):
    """max(a, b) ∈ R ⇒ a, b <= R.hi; and a >= R.lo when b < R.lo (b cannot be the maximum)."""
    a, b = args
    na = _narrow(a, result.lo if b.hi < result.lo else NEG_INF, result.hi)
    nb = _narrow(b, result.lo if a.hi < result.lo else NEG_INF, result.hi)
    return [na, nb]


def _b_def(t, result, args):
    """Each definition of a named sum has the name's value."""
    return [meet(a, result) for a in args]


BACKWARD: dict[str, Backward] = {
    "fn": _b_unchanged,
    "const": _b_unchanged,
    "var": _b_unchanged,
    "lin": _b_lin,
    "mul": _b_mul,
    "div": _b_div,
    "mod": _b_mod,
    "rdiv": _b_rdiv,
    "pow": _b_pow,
    "to_int": _b_to_int,
    "ceil": _b_ceil,
    "to_real": _b_to_real,
    "min": _b_min,
    "max": _b_max,
    "def": _b_def,
}


class IntervalDomain:
    """Intervals as a :class:`domains.lattice.ValueDomain` (operators in :data:`FORWARD` /
    :data:`BACKWARD`, one entry per term kind)."""

    __slots__ = ()

    def top(self, sort: Sort) -> Interval:
        return TOP_REAL if sort.real else TOP_INT

    def bottom(self, sort: Sort) -> Interval:
        return BOTTOM_REAL if sort.real else BOTTOM_INT

    def is_bottom(self, v: Interval) -> bool:
        return v.lo > v.hi

    def leq(self, a: Interval, b: Interval) -> bool:
        """[a, b] ⊑ [c, d] ⇔ empty or c <= a ∧ b <= d"""
        return a.lo > a.hi or (b.lo <= a.lo and a.hi <= b.hi)

    def join(self, a: Interval, b: Interval) -> Interval:
        """[a, b] ⊔ [c, d] = [min(a, c), max(b, d)]"""
        return join(a, b)

    def meet(self, a: Interval, b: Interval) -> Interval:
        """[a, b] ⊓ [c, d] = [max(a, c), min(b, d)]"""
        return meet(a, b)

    def constant(self, value, sort: Sort) -> Interval:
        """c ↦ [c, c]"""
        return _constant(value, sort)

    def from_bounds(self, lo: Bound, hi: Bound, sort: Sort) -> Interval:
        """[lo, hi] of this sort (Int: rounded inward; empty -> bottom)."""
        return make(lo, hi, sort.real)

    def forward(self, term: Operation, args: Sequence[Interval]) -> Interval:
        for a in args:
            if a.lo > a.hi:
                return BOTTOM_REAL if term.sort.real else BOTTOM_INT
        try:
            return FORWARD[term.kind](term, args)
        except OVERFLOW:  # a bound beyond the float range met an infinity: no information
            return self.top(term.sort)

    def backward(self, term: Operation, result: Interval, args: Sequence[Interval]) -> Sequence[Interval]:
        if result.lo > result.hi or any(a.lo > a.hi for a in args):
            return [bottom(a.real) for a in args]
        try:
            out = BACKWARD[term.kind](term, result, args)
        except OVERFLOW:  # a bound beyond the float range met an infinity: nothing narrowed
            return args
        for a in out:
            if a.lo > a.hi:
                return [bottom(b.real) for b in args]
        return out

    def truth(self, kind: str, v: Interval) -> bool | None:
        return truth(kind, v)

    def restrict(self, kind: str, v: Interval) -> Interval:
        return restrict(kind, v)

    def bounds(self, v: Interval) -> tuple[Bound, Bound]:
        """(lo, hi); bottom gives (inf, -inf)."""
        return v.lo, v.hi


INTERVAL = IntervalDomain()
