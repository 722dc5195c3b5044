"""Congruences ``mZ + r`` (Granger), adapted to the term kinds of :mod:`absint.lang.terms`.

A :class:`Congruence` with ``modulus`` m and ``residue`` r is the set {m·k + r : k ∈ Z}:

* m > 0: r is normalised to ``0 <= r < m``; m = 1 is every integer (Int top);
* m = 0: the single constant r (an ``int``, or a rational for a Real term);
* m = -1: bottom (no value), the sort's :data:`BOTTOM_INT` / :data:`BOTTOM_REAL`.

Real-sorted terms only know constants: a Real congruence is a constant, bottom,
or :data:`TOP_REAL` (every real; stored as modulus 1 with ``real`` set, never read
as "integer"). The sort travels with the value because ``join`` of two Real
constants is top, not the integers between them.

The arithmetic (gcd, CRT, solving c·x ≡ r) lives in :mod:`domains.bounds`; the
operators here are module functions so the interval × congruence product can call
them with what the interval knows (a divisor that excludes 0).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Sequence

import attrs

from domains.bounds import INF, MAX_POWER, NEG_INF, crt, euclid_div, pow_exact, solve_scaled
from domains.lattice import Operation, Sort


@attrs.frozen(slots=True, repr=False)
class Congruence:
    """{modulus·k + residue : k ∈ Z}; modulus 0 is a constant, -1 is bottom (see the module doc)."""

    modulus: int
    residue: int | Fraction
    real: bool = False

    def __repr__(self) -> str:
        m, r = self.modulus, self.residue
        tag = "ℝ" if self.real else ""
        if m < 0:
            return "⊥" + tag
        if m == 0:
            return f"{{{r}}}" + tag
        if m == 1:
            return ("ℝ" if self.real else "Z")
        return f"{m}Z+{r}"

    @property
    def is_constant(self) -> bool:
        return self.modulus == 0

    def __contains__(self, x: object) -> bool:
        return contains(self, x)


TOP_INT = Congruence(1, 0, False)
TOP_REAL = Congruence(1, 0, True)
BOTTOM_INT = Congruence(-1, 0, False)
BOTTOM_REAL = Congruence(-1, 0, True)

#: moduli are kept below 2**MAX_MODULUS_BITS: a cycle of facts such as ``y = 2w, x = y*y,
#: x = y`` squares a modulus at every round of propagation (2, 4, 16, 256, ...), and the
#: arithmetic on it then takes longer than any budget of steps allows. Past the cap a
#: product is top and a meet keeps its first argument (the value already known): sound,
#: only less precise, and no shape program has a stride near 2**256.
MAX_MODULUS_BITS = 256


def top(real: bool) -> Congruence:
    return TOP_REAL if real else TOP_INT


def bottom(real: bool) -> Congruence:
    return BOTTOM_REAL if real else BOTTOM_INT


def const(value: int | Fraction, real: bool) -> Congruence:
    """{value}; a Real constant is stored as an int when it is integral."""
    if real and type(value) is not int:
        value = Fraction(value)
        if value.denominator == 1:
            value = value.numerator
    return Congruence(0, value, real)


def make(m: int, r: int, real: bool = False) -> Congruence:
    """mZ + r normalised (m < 0: bottom; a Real non-constant is top)."""
    if m < 0:
        return BOTTOM_REAL if real else BOTTOM_INT
    if m == 0:
        return const(r, real)
    if real or m == 1:
        return TOP_REAL if real else TOP_INT
    return Congruence(m, r % m, False)


def contains(c: Congruence, x: object) -> bool:
    """x ∈ mZ + r"""
    m = c.modulus
    if m < 0:
        return False
    if m == 0:
        return x == c.residue
    if c.real:
        return True
    if isinstance(x, Fraction):
        if x.denominator != 1:
            return False
        x = x.numerator
    return (x - c.residue) % m == 0


# ---------------------------------------------------------------- lattice


def join(a: Congruence, b: Congruence) -> Congruence:
    """(m1Z + r1) ⊔ (m2Z + r2) = gcd(m1, m2, |r1 - r2|)Z + r1"""
    if a.modulus < 0:
        return b
    if b.modulus < 0:
        return a
    if a.real:
        return a if a == b else TOP_REAL
    m = math.gcd(a.modulus, b.modulus, a.residue - b.residue)
    if m == a.modulus:
        return a
    if m == 0:
        return a
    return Congruence(m, a.residue % m, False)


def meet(a: Congruence, b: Congruence) -> Congruence:
    """(m1Z + r1) ⊓ (m2Z + r2) by the Chinese remainder theorem (bottom when incompatible)"""
    am, bm = a.modulus, b.modulus
    if am < 0:
        return a
    if bm < 0:
        return b
    if am == 0:
        return a if contains(b, a.residue) else bottom(a.real)
    if bm == 0:
        return b if contains(a, b.residue) else bottom(a.real)
    if a.real or bm == 1:
        return a
    if am == 1:
        return b
    mr = crt(am, a.residue, bm, b.residue)
    if mr is None:
        return BOTTOM_INT
    if mr[0].bit_length() > MAX_MODULUS_BITS:
        return a  # see MAX_MODULUS_BITS: a superset of the meet, below a
    return Congruence(mr[0], mr[1], False)


def leq(a: Congruence, b: Congruence) -> bool:
    """(m1Z + r1) ⊑ (m2Z + r2) ⇔ m2 | m1 ∧ m2 | r1 - r2 (bottom below all; constants: equal)"""
    am, bm = a.modulus, b.modulus
    if am < 0:
        return True
    if bm < 0:
        return False
    if bm == 0:
        return am == 0 and a.residue == b.residue
    if a.real:
        return bm == 1
    return am % bm == 0 and (a.residue - b.residue) % bm == 0


# ---------------------------------------------------------------- forward operators


def add(a: Congruence, b: Congruence) -> Congruence:
    """(m1Z + r1) + (m2Z + r2) = gcd(m1, m2)Z + (r1 + r2)"""
    if a.real:
        if a.modulus == 0 and b.modulus == 0:
            return const(a.residue + b.residue, True)
        return TOP_REAL
    m = math.gcd(a.modulus, b.modulus)
    if m == 0:
        return Congruence(0, a.residue + b.residue, False)
    return Congruence(m, (a.residue + b.residue) % m, False)


def scale(a: Congruence, k: int | Fraction) -> Congruence:
    """k·(mZ + r) = |k|mZ + k·r"""
    if k == 0:
        return const(0, a.real)
    if a.real:
        return const(a.residue * k, True) if a.modulus == 0 else TOP_REAL
    m = abs(k) * a.modulus
    return Congruence(m, k * a.residue % m if m else k * a.residue, False)


def lin(coefs: Sequence, k, args: Sequence[Congruence], real: bool) -> Congruence:
    """Σ cᵢ·(mᵢZ + rᵢ) + k = gcd(|cᵢ|mᵢ)Z + (Σ cᵢrᵢ + k)"""
    if real:
        total = k
        for c, a in zip(coefs, args):
            if a.modulus != 0:
                return TOP_REAL
            total += c * a.residue
        return const(total, True)
    m = 0
    r = k
    for c, a in zip(coefs, args):
        m = math.gcd(m, c * a.modulus)
        r += c * a.residue
    if m == 0:
        return Congruence(0, r, False)
    return Congruence(m, r % m, False)


def mul2(a: Congruence, b: Congruence) -> Congruence:
    """(m1Z + r1)·(m2Z + r2) = gcd(m1m2, m1r2, m2r1)Z + r1r2"""
    if a.real:
        if (a.modulus == 0 and a.residue == 0) or (b.modulus == 0 and b.residue == 0):
            return const(0, True)
        if a.modulus == 0 and b.modulus == 0:
            return const(a.residue * b.residue, True)
        return TOP_REAL
    m1, r1, m2, r2 = a.modulus, a.residue, b.modulus, b.residue
    m = math.gcd(m1 * m2, m1 * r2, m2 * r1)
    if m == 0:
        return Congruence(0, r1 * r2, False)
    if m.bit_length() > MAX_MODULUS_BITS:
        return TOP_INT  # see MAX_MODULUS_BITS
    return Congruence(m, r1 * r2 % m, False)


def mul(args: Sequence[Congruence], real: bool) -> Congruence:
    out = args[0]
    for a in args[1:]:
        out = mul2(out, a)
    return out


def may_be_zero(c: Congruence) -> bool:
    """0 ∈ mZ + r"""
    return contains(c, 0)


def div(x: Congruence, y: Congruence, y_may_be_zero: bool) -> Congruence:
    """x div d for a constant d ≠ 0 with |d| dividing m: (m/|d|)Z + (r div |d|), negated for d < 0;
    0 div y = 0 for y ≠ 0; top otherwise (in particular when y may be 0)."""
    if y_may_be_zero:
        return TOP_INT
    if y.modulus == 0:
        d = y.residue
        if x.modulus == 0:
            return Congruence(0, euclid_div(x.residue, d), False)
        ad = abs(d)
        if x.modulus % ad == 0:
            return make(x.modulus // ad, (x.residue // ad) * (1 if d > 0 else -1))
        return TOP_INT
    if x.modulus == 0 and x.residue == 0:
        return x
    return TOP_INT


def mod(x: Congruence, y: Congruence, y_may_be_zero: bool) -> Congruence:
    """x mod y = x - |y|·q ≡ r (mod g) where g = gcd(m, all |y|) = gcd(m, my, ry); a constant
    r mod |d| when y = d and |d| divides m; top when y may be 0."""
    if y_may_be_zero:
        return TOP_INT
    if y.modulus == 0:
        d = abs(y.residue)
        if x.modulus % d == 0:
            return Congruence(0, x.residue % d, False)
    g = math.gcd(x.modulus, y.modulus, y.residue)
    return make(g, x.residue)


def rdiv(x: Congruence, y: Congruence) -> Congruence:
    """c1 / c2 for constants (c2 ≠ 0); 0 / y = 0 for y ≠ 0; top otherwise"""
    if y.modulus == 0 and y.residue != 0:
        if x.modulus == 0:
            return const(Fraction(x.residue) / y.residue, True)
    elif x.modulus == 0 and x.residue == 0 and not may_be_zero(y):
        return x
    return TOP_REAL


def power(base: Congruence, exponent: Congruence, real: bool) -> Congruence:
    """Constants: the exact power when it is rational; an Int base to a natural constant n: the
    n-fold product (square-and-multiply); top otherwise."""
    if exponent.modulus != 0:
        return top(real)
    e = exponent.residue
    if base.modulus == 0:
        v = pow_exact(base.residue, e)
        if v is None or (not real and v.denominator != 1):
            return top(real)
        return const(v if real else int(v), real)
    if real or Fraction(e).denominator != 1 or not 0 <= e <= MAX_POWER:
        return top(real)
    n = int(e)
    out = Congruence(0, 1, False)
    b = base
    while n:
        if n & 1:
            out = mul2(out, b)
        n >>= 1
        if n:
            b = mul2(b, b)
    return out


def to_int(x: Congruence) -> Congruence:
    """⌊c⌋ of a constant; top otherwise"""
    if x.modulus == 0:
        return Congruence(0, math.floor(x.residue), False)
    return TOP_INT


def ceil(x: Congruence) -> Congruence:
    """⌈c⌉ of a constant; top otherwise"""
    if x.modulus == 0:
        return Congruence(0, math.ceil(x.residue), False)
    return TOP_INT


def to_real(x: Congruence) -> Congruence:
    """the constant as a Real; top otherwise"""
    if x.modulus == 0:
        return Congruence(0, x.residue, True)
    return TOP_REAL


def min_max(args: Sequence[Congruence], real: bool) -> Congruence:
    """min(a, b), max(a, b) ∈ γ(a) ∪ γ(b) ⊆ γ(a ⊔ b)"""
    out = args[0]
    for a in args[1:]:
        out = join(out, a)
    return out


# ---------------------------------------------------------------- backward operators


def solve(c, target: Congruence) -> Congruence:
    """{x : c·x ∈ target} for a constant c ≠ 0 (bottom when no x)."""
    if target.modulus < 0:
        return target
    if target.real:
        if target.modulus == 0:
            return const(Fraction(target.residue) / c, True)
        return TOP_REAL
    mr = solve_scaled(c, target.modulus, target.residue)
    if mr is None:
        return BOTTOM_INT
    return make(mr[0], mr[1])


def lin_back(coefs: Sequence, k, result: Congruence, args: Sequence[Congruence], real: bool) -> list[Congruence]:
    """cᵢ·xᵢ ∈ result - k - Σ_{j≠i} cⱼ·xⱼ, so xᵢ ∈ {x : cᵢ·x ∈ that} ⊓ xᵢ.

    On Int the sum of the others is gcd(|cⱼ|mⱼ : j ≠ i)Z + (Σ cⱼrⱼ - cᵢrᵢ): prefix and suffix
    gcds on plain integers, no intermediate values.
    """
    if real:
        return _lin_back_real(coefs, k, result, args)
    n = len(args)
    mods = [c * a.modulus for c, a in zip(coefs, args)]
    total = sum(c * a.residue for c, a in zip(coefs, args))
    suffix = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        suffix[i] = math.gcd(mods[i], suffix[i + 1])
    rm, rr = result.modulus, result.residue - k
    out = []
    prefix = 0
    for i in range(n):
        a, c = args[i], coefs[i]
        m = math.gcd(rm, prefix, suffix[i + 1])
        # cᵢ·xᵢ ∈ mZ + (result - k - others)
        mr = solve_scaled(c, m, rr - (total - c * a.residue))
        if mr is None:
            return [BOTTOM_INT] * n
        if mr[0] != 1:
            a = meet(a, make(mr[0], mr[1]))
            if a.modulus < 0:
                return [BOTTOM_INT] * n
        out.append(a)
        prefix = math.gcd(prefix, mods[i])
    return out


def _lin_back_real(coefs, k, result, args) -> list[Congruence]:
    """Real congruences are constants or top: an atom is fixed when the result and all others are."""
    if result.modulus != 0:
        return list(args)
    unknown = [i for i, a in enumerate(args) if a.modulus != 0]
    if len(unknown) > 1:
        return list(args)
    total = sum(c * a.residue for c, a in zip(coefs, args) if a.modulus == 0)
    rest = result.residue - k - total
    if not unknown:
        return list(args) if rest == 0 else [BOTTOM_REAL] * len(args)
    out = list(args)
    i = unknown[0]
    out[i] = const(Fraction(rest) / coefs[i], True)
    return out


def mul_back(result: Congruence, args: Sequence[Congruence], real: bool) -> list[Congruence]:
    """When the product p of the other factors is a constant: p ≠ 0 ⇒ xᵢ ∈ {x : p·x ∈ result};
    p = 0 ⇒ result must contain 0."""
    n = len(args)
    out = []
    for i in range(n):
        p = const(1, real)
        for j in range(n):
            if j != i:
                p = mul2(p, args[j])
                if p.modulus != 0:
                    break
        a = args[i]
        if p.modulus == 0:
            if p.residue == 0:
                if not contains(result, 0):
                    return [bottom(real)] * n
            else:
                a = meet(a, solve(p.residue, result))
        out.append(a)
    return out


def mod_back(x: Congruence, y: Congruence, r: Congruence, y_may_be_zero: bool) -> Congruence:
    """x = |y|·q + (x mod y), so x ≡ r (mod gcd(mr, all |y|)) = gcd(mr, my, ry) when y ≠ 0."""
    if y_may_be_zero:
        return x
    g = math.gcd(r.modulus, y.modulus, y.residue)
    return meet(x, make(g, r.residue))


# ---------------------------------------------------------------- comparisons with zero

_CMP = {
    "le": lambda v: v <= 0,
    "lt": lambda v: v < 0,
    "eq": lambda v: v == 0,
    "ne": lambda v: v != 0,
}


def truth(kind: str, c: Congruence) -> bool | None:
    """A constant decides every comparison; 0 ∉ mZ + r decides eq (False) and ne (True).
    Bottom is vacuously True."""
    m = c.modulus
    if m < 0:
        return True
    if m == 0:
        return _CMP[kind](c.residue)
    if c.real or c.residue == 0:
        return None
    if kind == "eq":
        return False
    if kind == "ne":
        return True
    return None


def restrict(kind: str, c: Congruence) -> Congruence:
    """c ∩ {t : t <kind> 0}: eq -> c ⊓ {0}; a decided comparison keeps c or gives bottom."""
    if kind == "eq":
        return meet(c, const(0, c.real))
    t = truth(kind, c)
    if t is False:
        return bottom(c.real)
    return c


# ---------------------------------------------------------------- the domain adapter


def _f_const(t, args):
    return const(t.data, t.sort.real)


def _f_var(t, args):
    return TOP_REAL if t.sort.real else TOP_INT


def _f_lin(t, args):
    coefs, k = t.data
    return lin(coefs, k, args, t.sort.real)


def _f_mul(t, args):
    return mul(args, t.sort.real)


def _f_div(t, args):
    return div(args[0], args[1], may_be_zero(args[1]))


def _f_mod(t, args):
    return mod(args[0], args[1], may_be_zero(args[1]))


def _f_rdiv(t, args):
    return rdiv(args[0], args[1])


def _f_pow(t, args):
    return power(args[0], args[1], t.sort.real)


def _f_to_int(t, args):
    return to_int(args[0])


def _f_ceil(t, args):
    return ceil(args[0])


def _f_to_real(t, args):
    return to_real(args[0])


def _f_min_max(t, args):
    return min_max(args, t.sort.real)


def _f_def(t, args):
    """A named sum equals each of its definitions: the meet of their values."""
    out = args[0]
    for a in args[1:]:
        out = meet(out, a)
    return out


FORWARD = {
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
    "min": _f_min_max,
    "max": _f_min_max,
    "def": _f_def,
}


def _b_unchanged(t, result, args):
    return args


def _b_lin(t, result, args):
    coefs, k = t.data
    return lin_back(coefs, k, result, args, t.sort.real)


def _b_mul(t, result, args):
    return mul_back(result, args, t.sort.real)


def _b_mod(t, result, args):
    x, y = args
    return [mod_back(x, y, result, may_be_zero(y)), y]


def _b_rdiv(t, result, args):
    """x / y = q with y a non-zero constant and q a constant ⇒ x = q·y"""
    x, y = args
    if y.modulus == 0 and y.residue != 0 and result.modulus == 0:
        return [meet(x, const(result.residue * y.residue, True)), y]
    return args


def _b_to_real(t, result, args):
    """to_real(x) = c ⇒ x = c (bottom when c is not an integer)"""
    if result.modulus == 0:
        v = Fraction(result.residue)
        if v.denominator != 1:
            return [BOTTOM_INT]
        return [meet(args[0], Congruence(0, v.numerator, False))]
    return args


def _b_def(t, result, args):
    """Each definition of a named sum has the name's value."""
    return [meet(a, result) for a in args]


BACKWARD = {
    "fn": _b_unchanged,
    "const": _b_unchanged,
    "var": _b_unchanged,
    "lin": _b_lin,
    "mul": _b_mul,
    "div": _b_unchanged,
    "mod": _b_mod,
    "rdiv": _b_rdiv,
    "pow": _b_unchanged,
    "to_int": _b_unchanged,
    "ceil": _b_unchanged,
    "to_real": _b_to_real,
    "min": _b_unchanged,
    "max": _b_unchanged,
    "def": _b_def,
}


class CongruenceDomain:
    """Congruences as a :class:`domains.lattice.ValueDomain` (operators in :data:`FORWARD` /
    :data:`BACKWARD`, one entry per term kind)."""

    __slots__ = ()

    def top(self, sort: Sort) -> Congruence:
        return TOP_REAL if sort.real else TOP_INT

    def bottom(self, sort: Sort) -> Congruence:
        return BOTTOM_REAL if sort.real else BOTTOM_INT

    def is_bottom(self, v: Congruence) -> bool:
        return v.modulus < 0

    def leq(self, a: Congruence, b: Congruence) -> bool:
        """(m1Z + r1) ⊑ (m2Z + r2) ⇔ m2 | m1 ∧ m2 | r1 - r2"""
        return leq(a, b)

    def join(self, a: Congruence, b: Congruence) -> Congruence:
        """(m1Z + r1) ⊔ (m2Z + r2) = gcd(m1, m2, |r1 - r2|)Z + r1"""
        return join(a, b)

    def meet(self, a: Congruence, b: Congruence) -> Congruence:
        """(m1Z + r1) ⊓ (m2Z + r2) = lcm(m1, m2)Z + crt(r1, r2), bottom when incompatible"""
        return meet(a, b)

    def constant(self, value, sort: Sort) -> Congruence:
        """c ↦ 0Z + c"""
        return const(value, sort.real)

    def from_bounds(self, lo, hi, sort: Sort) -> Congruence:
        """The constant when lo = hi, bottom when lo > hi, top otherwise."""
        if lo > hi:
            return self.bottom(sort)
        if lo == hi:
            if not sort.real and Fraction(lo).denominator != 1:
                return BOTTOM_INT
            return const(lo if sort.real else int(lo), sort.real)
        return self.top(sort)

    def forward(self, term: Operation, args: Sequence[Congruence]) -> Congruence:
        for a in args:
            if a.modulus < 0:
                return BOTTOM_REAL if term.sort.real else BOTTOM_INT
        return FORWARD[term.kind](term, args)

    def backward(self, term: Operation, result: Congruence, args: Sequence[Congruence]) -> Sequence[Congruence]:
        if result.modulus < 0 or any(a.modulus < 0 for a in args):
            return [bottom(a.real) for a in args]
        out = BACKWARD[term.kind](term, result, args)
        for a in out:
            if a.modulus < 0:
                return [bottom(b.real) for b in args]
        return out

    def truth(self, kind: str, v: Congruence) -> bool | None:
        return truth(kind, v)

    def restrict(self, kind: str, v: Congruence) -> Congruence:
        return restrict(kind, v)

    def bounds(self, v: Congruence) -> tuple[object, object]:
        """(c, c) for a constant, (-inf, inf) otherwise, (inf, -inf) for bottom."""
        if v.modulus < 0:
            return INF, NEG_INF
        if v.modulus == 0:
            return v.residue, v.residue
        return NEG_INF, INF


CONGRUENCE = CongruenceDomain()
