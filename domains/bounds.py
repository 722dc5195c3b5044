"""Math on values: bounds with ±inf, integer rounding, Euclidean division, roots, gcds.

The domain modules only adapt these functions (as in Mopsa, where the arithmetic
lives in a utility module and the domain is a thin adapter).

A *bound* is an ``int``, a ``fractions.Fraction`` or one of the floats ``-inf`` /
``inf``. Finite floats never occur: every division here is exact (``Fraction``)
or explicitly floored / ceiled, and the only float operations are on
infinities. ``0 * inf`` is ``0`` (a bound product of an empty factor range never
arises, and an interval touching 0 really does contain the product 0).

Python converts an int to a float when it meets one in ``+``, ``-`` or ``*``, which
fails (OverflowError) beyond about 1e308. Comparisons never convert. So a bound that
large must never meet an infinity in arithmetic: :func:`mul_bound` and
:func:`linear_range` check, and the domains' adapters treat an ``OverflowError`` from
any other operator as "no information" (top forward, operands unchanged backward),
which is sound (:data:`OVERFLOW`).
"""

from __future__ import annotations

import math
from fractions import Fraction

INF = math.inf
NEG_INF = -math.inf

Bound = int | Fraction | float

# ---------------------------------------------------------------- rounding


def euclid_div(x: int, y: int) -> int:
    """SMT-LIB ``div`` (``y != 0``): ``x = y*q + r`` with ``0 <= r < |y|``."""
    r = x % abs(y)
    return (x - r) // y


def euclid_mod(x: int, y: int) -> int:
    """SMT-LIB ``mod`` (``y != 0``): the ``r`` of :func:`euclid_div`, always ``>= 0``."""
    return x % abs(y)


def is_finite(x: Bound) -> bool:
    """``x`` is a number, not ``±inf`` (the only floats a bound may be)."""
    return type(x) is not float


def floor_bound(x: Bound) -> Bound:
    """⌊x⌋, with ⌊±inf⌋ = ±inf."""
    t = type(x)
    if t is int or t is float:
        return x
    return math.floor(x)


def ceil_bound(x: Bound) -> Bound:
    """⌈x⌉, with ⌈±inf⌉ = ±inf."""
    t = type(x)
    if t is int or t is float:
        return x
    return math.ceil(x)


def floor_div(a: Bound, c: int | Fraction) -> Bound:
    """⌊a / c⌋ for a non-zero finite ``c`` (``a`` may be infinite)."""
    if type(a) is float:
        return a if c > 0 else -a
    if type(a) is int and type(c) is int:
        return a // c
    return math.floor(Fraction(a) / c)


def ceil_div(a: Bound, c: int | Fraction) -> Bound:
    """⌈a / c⌉ for a non-zero finite ``c`` (``a`` may be infinite)."""
    if type(a) is float:
        return a if c > 0 else -a
    if type(a) is int and type(c) is int:
        return -((-a) // c)
    return math.ceil(Fraction(a) / c)


# ---------------------------------------------------------------- exact bound arithmetic


#: what an operator may raise when a huge finite bound meets an infinity; callers fall back
#: to a sound answer that needs no arithmetic
OVERFLOW = OverflowError


def is_infinite(x: Bound) -> bool:
    """``x`` is ``±inf`` (never converts ``x``, however large)."""
    return type(x) is float


def sub_bound(a: Bound, b: Bound) -> Bound:
    """a - b for bounds that are not the same infinity (exact for any size of finite bound)."""
    if type(a) is float:
        return a
    if type(b) is float:
        return -b
    return a - b


def mul_bound(a: Bound, b: Bound) -> Bound:
    """a · b with 0 · ±inf = 0 (exact for any size of finite bound)."""
    if a == 0 or b == 0:
        return 0
    if type(a) is float or type(b) is float:
        return INF if (a > 0) == (b > 0) else NEG_INF
    return a * b


def div_bound(a: Bound, b: Bound) -> Bound:
    """a / b exactly, for ``b ≠ 0``; finite / ±inf = 0 and ±inf / ±inf = 0.

    The last convention is only used for interval corners: whenever a corner is
    ``±inf / ±inf`` another corner (``±inf / finite``) already carries the
    unbounded side, so 0 is a sound value there.
    """
    if type(b) is float:
        return 0
    if type(a) is float:
        return a if b > 0 else -a
    if type(a) is int and type(b) is int:
        return Fraction(a, b)
    return Fraction(a) / b


def linear_range(coefs, k: Bound, ranges) -> tuple[Bound, Bound]:
    """Σ cᵢ·[aᵢ, bᵢ] + k = [Σ cᵢ·(cᵢ > 0 ? aᵢ : bᵢ) + k, Σ cᵢ·(cᵢ > 0 ? bᵢ : aᵢ) + k] for
    a sequence ``ranges`` of ``(aᵢ, bᵢ)`` pairs."""
    lo = hi = k
    try:
        for c, (a, b) in zip(coefs, ranges):
            if c > 0:
                lo += c * a
                hi += c * b
            else:
                lo += c * b
                hi += c * a
        return lo, hi
    except OverflowError:  # a huge finite bound met an infinity: add exactly, side by side
        return _exact_sum(k, (mul_bound(c, a if c > 0 else b) for c, (a, b) in zip(coefs, ranges))), \
            _exact_sum(k, (mul_bound(c, b if c > 0 else a) for c, (a, b) in zip(coefs, ranges)))


class BoundSum:
    """``k + Σ tᵢ`` over bounds kept one term at a time: finite terms added exactly, infinite
    ones counted (a sum of lower bounds meets only -inf, of upper bounds only +inf), so a
    term is taken out again in O(1): a long sum follows one changed operand cheaply."""

    __slots__ = ("finite", "infinite", "infinity")

    def __init__(self, k: Bound, infinity: float):
        self.finite, self.infinite, self.infinity = k, 0, infinity

    def add(self, t: Bound, times: int = 1) -> None:
        if type(t) is float:
            self.infinite += times
        else:
            self.finite += times * t

    def total(self) -> Bound:
        return self.infinity if self.infinite else self.finite


#: ``Σ cᵢ·[aᵢ, bᵢ]`` kept so that a term can be added *or taken out* in O(1):
#: ``(lo's finite part, how many -inf it met, hi's finite part, how many +inf)``
RangeSum = tuple


def range_sum(coefs, ranges) -> RangeSum | None:
    """:func:`linear_range`'s sum (no constant) as a :data:`RangeSum`; None when a range is
    empty (its lower bound +inf or its upper bound -inf: then no sum is kept)."""
    lo = hi = 0
    lo_inf = hi_inf = 0
    for c, (a, b) in zip(coefs, ranges):
        positive = c > 0
        low, high = (a, b) if positive else (b, a)
        if type(low) is float:
            if (low > 0) is positive:  # c·low is +inf: the range is empty
                return None
            lo_inf += 1
        else:
            lo += c * low
        if type(high) is float:
            if (high > 0) is not positive:  # c·high is -inf
                return None
            hi_inf += 1
        else:
            hi += c * high
    return lo, lo_inf, hi, hi_inf


def range_sum_add(s: RangeSum, c, a: Bound, b: Bound, times: int = 1) -> RangeSum | None:
    """``s`` with ``c·[a, b]`` added (``times=-1``: taken out, when ``s`` holds it); None
    for an empty range."""
    lo, lo_inf, hi, hi_inf = s
    positive = c > 0
    low, high = (a, b) if positive else (b, a)
    if type(low) is float:
        if (low > 0) is positive:
            return None
        lo_inf += times
    else:
        lo += times * c * low
    if type(high) is float:
        if (high > 0) is not positive:
            return None
        hi_inf += times
    else:
        hi += times * c * high
    return lo, lo_inf, hi, hi_inf


def range_sum_bounds(s: RangeSum, k: Bound) -> tuple[Bound, Bound]:
    """``(lo, hi)`` of ``s + k`` (an infinite part absorbs the finite one, no conversion)."""
    lo, lo_inf, hi, hi_inf = s
    return (NEG_INF if lo_inf else lo + k), (INF if hi_inf else hi + k)


def _exact_sum(k: Bound, terms) -> Bound:
    """``k + sum(terms)`` where an infinite term absorbs every finite one (no conversion)."""
    out = k
    for t in terms:
        if type(t) is float:
            out = t
        elif type(out) is not float:
            out = out + t
    return out


def mul_range(a: Bound, b: Bound, c: Bound, d: Bound) -> tuple[Bound, Bound]:
    """[a, b] · [c, d] = [min, max] of the four corner products (0 · inf = 0)."""
    if a >= 0 and c >= 0:
        return mul_bound(a, c), mul_bound(b, d)
    p1, p2, p3, p4 = mul_bound(a, c), mul_bound(a, d), mul_bound(b, c), mul_bound(b, d)
    return min(p1, p2, p3, p4), max(p1, p2, p3, p4)


def div_range(a: Bound, b: Bound, c: Bound, d: Bound) -> tuple[Bound, Bound]:
    """[a, b] / [c, d] = hull of the corner quotients, for 0 ∉ [c, d] (exact rationals)."""
    p1, p2, p3, p4 = div_bound(a, c), div_bound(a, d), div_bound(b, c), div_bound(b, d)
    return min(p1, p2, p3, p4), max(p1, p2, p3, p4)


def div_range_int(a: Bound, b: Bound, c: Bound, d: Bound) -> tuple[Bound, Bound]:
    """The integers of [a, b] / [c, d] for 0 ∉ [c, d]: [min ⌈corner⌉, max ⌊corner⌋] (⌈·⌉ and ⌊·⌋ are
    monotone, so this is ⌈min⌉, ⌊max⌋ of the exact hull) without building fractions."""
    lo = hi = None
    for n in (a, b):
        for m in (c, d):
            if type(m) is float:
                ql = qh = 0
            elif type(n) is float:
                ql = qh = n if m > 0 else -n
            else:
                ql, qh = -((-n) // m), n // m
            if lo is None or ql < lo:
                lo = ql
            if hi is None or qh > hi:
                hi = qh
    return lo, hi


def pow_range(lo: Bound, hi: Bound, n: int) -> tuple[Bound, Bound]:
    """[lo, hi]^n for a natural ``n`` (even powers fold the negative side onto the positive);
    an end whose power would pass :data:`MAX_POWER_BITS` widens to the infinity beyond it."""
    if n == 0:
        return 1, 1
    if n == 1:
        return lo, hi
    pl, ph = _bounded_power(lo, n), _bounded_power(hi, n)
    if n % 2 or lo >= 0:
        return pl, ph
    if hi <= 0:
        return ph, pl
    return 0, max(pl, ph)


# ---------------------------------------------------------------- Euclidean division


def floor_div_pos(a: Bound, y: Bound) -> Bound:
    """⌊a / y⌋ for ``y >= 1`` (``y`` may be inf: the limit value 0 for a >= 0, -1 for a < 0)."""
    if type(y) is float:
        if type(a) is float:
            return 0 if a > 0 else -1
        return 0 if a >= 0 else -1
    if type(a) is float:
        return a
    return a // y


def div_pos_range(a: Bound, b: Bound, c: Bound, d: Bound) -> tuple[Bound, Bound]:
    """x div y for x ∈ [a, b], y ∈ [c, d] with 1 <= c: ⌊x / y⌋ is monotone in each argument,
    so [min(⌊a/c⌋, ⌊a/d⌋), max(⌊b/c⌋, ⌊b/d⌋)]."""
    l1, l2 = floor_div_pos(a, c), floor_div_pos(a, d)
    h1, h2 = floor_div_pos(b, c), floor_div_pos(b, d)
    return (l1 if l1 < l2 else l2), (h1 if h1 > h2 else h2)


def next_congruent(m: int, r: int, a: int) -> int:
    """The least element of mZ + r that is >= a (m > 0)."""
    return a + (r - a) % m


def prev_congruent(m: int, r: int, a: int) -> int:
    """The greatest element of mZ + r that is <= a (m > 0)."""
    return a - (a - r) % m


def next_residue_in(d: int, r1: int, r2: int, a: int) -> int:
    """The least v >= a with v mod d ∈ [r1, r2] (0 <= r1 <= r2 < d)."""
    m = a % d
    if m < r1:
        return a + (r1 - m)
    if m <= r2:
        return a
    return a + (d - m) + r1


def prev_residue_in(d: int, r1: int, r2: int, a: int) -> int:
    """The greatest v <= a with v mod d ∈ [r1, r2] (0 <= r1 <= r2 < d)."""
    m = a % d
    if m > r2:
        return a - (m - r2)
    if m >= r1:
        return a
    return a - m - (d - r2)


# ---------------------------------------------------------------- gcd, CRT, linear congruences


def crt(m1: int, r1: int, m2: int, r2: int) -> tuple[int, int] | None:
    """(m1Z + r1) ∩ (m2Z + r2) = lcm(m1, m2)Z + r, or None when empty (m1, m2 > 0)."""
    g = math.gcd(m1, m2)
    diff = r2 - r1
    if diff % g:
        return None
    m2g = m2 // g
    t = (diff // g) * pow(m1 // g, -1, m2g) % m2g if m2g > 1 else 0
    m = m1 * m2g
    return m, (r1 + m1 * t) % m


def solve_scaled(c: int, m: int, r: int) -> tuple[int, int] | None:
    """{x : c·x ∈ mZ + r} as (m', r') meaning m'Z + r', or None when empty (c ≠ 0, m >= 0)."""
    if m == 0:
        if r % c:
            return None
        return 0, r // c
    g = math.gcd(c, m)
    if r % g:
        return None
    mg = m // g
    if mg == 1:
        return 1, 0
    return mg, (r // g) * pow((c // g) % mg, -1, mg) % mg


# ---------------------------------------------------------------- roots


def iroot(n: int, k: int) -> int:
    """⌊n^(1/k)⌋ for n >= 0, k >= 1 (integer Newton iteration)."""
    if n < 2 or k == 1:
        return n
    if k >= n.bit_length():  # 1 <= n^(1/k) < 2
        return 1
    if k == 2:
        return math.isqrt(n)
    x = 1 << -(-n.bit_length() // k)
    while True:
        y = ((k - 1) * x + n // x ** (k - 1)) // k
        if y >= x:
            return x
        x = y


def _exact_iroot(n: int, k: int) -> int | None:
    r = iroot(n, k)
    return r if r**k == n else None


def _precision(q: Fraction, k: int) -> int:
    """Bits after the point: enough that ⌈·⌉/⌊·⌋ of the rounded root of an integer are exact."""
    return 16 + max(0, q.numerator.bit_length() - q.denominator.bit_length()) // k


def _rational_root(q: Fraction, k: int) -> Fraction | None:
    """q^(1/k) when it is rational (numerator and denominator exact k-th powers), else None."""
    num, den = _exact_iroot(q.numerator, k), _exact_iroot(q.denominator, k)
    if num is None or den is None:
        return None
    return Fraction(num, den)


def root_floor(q: int | Fraction, k: int) -> int | Fraction:
    """A rational <= q^(1/k) (q >= 0): exact when the root is rational, else ⌊q^(1/k)·2^p⌋ / 2^p."""
    q = Fraction(q)
    exact = _rational_root(q, k)
    if exact is not None:
        return exact
    p = _precision(q, k)
    n = (q.numerator << (p * k)) // q.denominator
    return Fraction(iroot(n, k), 1 << p)


def root_ceil(q: int | Fraction, k: int) -> int | Fraction:
    """A rational >= q^(1/k) (q >= 0): exact when the root is rational, else ⌈q^(1/k)·2^p⌉ / 2^p."""
    q = Fraction(q)
    exact = _rational_root(q, k)
    if exact is not None:
        return exact
    p = _precision(q, k)
    n = -((-(q.numerator << (p * k))) // q.denominator)
    t = iroot(n, k)
    if t**k < n:
        t += 1
    return Fraction(t, 1 << p)


def power_too_large(b: int | Fraction, e: int | Fraction) -> bool:
    """Whether ``b ** e`` would take more than :data:`MAX_POWER_BITS` bits to write (or the
    root taken is beyond :data:`MAX_POWER`): such a power is left unevaluated."""
    b, e = Fraction(b), Fraction(e)
    if e.denominator > MAX_POWER:
        return True
    size = max(b.numerator.bit_length(), b.denominator.bit_length())
    return size > 1 and abs(e.numerator) * size > MAX_POWER_BITS


def _bounded_power(x: Bound, n: int) -> Bound:
    if type(x) is not float and power_too_large(x, n):
        return INF if x > 0 or n % 2 == 0 else NEG_INF
    return x**n


def pow_exact(b: int | Fraction, e: int | Fraction) -> int | Fraction | None:
    """``b ** e`` when it is rational (None where it is not, or undefined: ``0 ** -1``, or
    too large to compute: :func:`power_too_large`)."""
    b, e = Fraction(b), Fraction(e)
    if power_too_large(b, e):
        return None
    if e.denominator == 1:
        if b == 0 and e < 0:
            return None
        return b ** int(e)
    if b < 0:
        return None
    root = _rational_root(b, e.denominator)
    if root is None or (root == 0 and e < 0):
        return None
    return root ** e.numerator


#: exponent numerators (and root degrees) beyond this are not expanded (the result would be huge)
MAX_POWER = 256
#: a computed power has at most this many bits (about 315,000 decimal digits)
MAX_POWER_BITS = 1 << 20


def pow_floor(x: Bound, e: Fraction) -> Bound:
    """A rational <= x^e for x >= 0 and a rational e ≠ 0 (x = inf: inf for e > 0, 0 for e < 0)."""
    if type(x) is float:
        return INF if e > 0 else 0
    if x == 0 or power_too_large(x, e):
        return 0
    return root_floor(Fraction(x) ** e.numerator, e.denominator)


def pow_ceil(x: Bound, e: Fraction) -> Bound:
    """A rational >= x^e for x >= 0 and a rational e ≠ 0 (x = inf: inf for e > 0, 0 for e < 0)."""
    if type(x) is float:
        return INF if e > 0 else 0
    if x == 0:
        return 0
    if power_too_large(x, e):
        return INF
    return root_ceil(Fraction(x) ** e.numerator, e.denominator)
