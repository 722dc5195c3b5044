"""What every abstract domain must satisfy, written once and reused by each domain's tests.

* :class:`LatticeLaws` — the lattice laws (bottom least, top greatest, join / meet
  commutative, associative, idempotent, absorbing, order consistent with both) and
  the agreement of the order and the operations with concretisation. A domain's
  test module subclasses it with ``domain``, ``sort`` and an ``elements`` strategy
  (as Lyra's ``unittests/abstract_tests.py``, with hypothesis instead of fixtures).
* ``gamma`` — membership of a concrete value in an abstract value, written here
  independently of the domains' own ``__contains__`` so that soundness tests do
  not trust the code they test.
* Strategies for small abstract values and the concrete windows they are checked on.
"""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar

from hypothesis import given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.lang.terms import INT, REAL, Sort
from domains import congruence as cg
from domains import interval as iv
from domains.congruence import Congruence
from domains.interval import Interval
from domains.interval_congruence import IC, IntervalCongruence

INF = float("inf")

#: concrete Int values soundness is checked on
INT_WINDOW = tuple(range(-12, 13))
#: concrete Real values soundness is checked on (squares and non-squares, both signs, zero)
REAL_POINTS = tuple(
    sorted(
        {Fraction(v) for v in (-4, -3, -2, -1, 0, 1, 2, 3, 4)}
        | {Fraction(n, d) for n, d in ((-5, 2), (-3, 2), (-2, 3), (-1, 2), (-1, 3), (1, 4), (1, 3), (1, 2),
                                       (2, 3), (4, 3), (3, 2), (9, 4), (5, 2))}
    )
)
REAL_WINDOW = REAL_POINTS + (Fraction(-6), Fraction(6), Fraction(9), Fraction(16))


class Irrational:
    """An exact positive real ``base ** exponent`` that is not rational (``sqrt 2``), compared exactly."""

    def __init__(self, base: Fraction, exponent: Fraction):
        self.base, self.exponent = Fraction(base), Fraction(exponent)

    def cmp(self, t) -> int:
        """sign(base^(p/q) - t) by comparing base^p with t^q (both sides positive)."""
        if t == -INF:
            return 1
        if t == INF:
            return -1
        if t <= 0:
            return 1
        p, q = self.exponent.numerator, self.exponent.denominator
        lhs, rhs = self.base**p, Fraction(t) ** q
        return (lhs > rhs) - (lhs < rhs)

    def __repr__(self) -> str:
        return f"{self.base}^{self.exponent}"


def _is_int(x) -> bool:
    return not isinstance(x, Irrational) and Fraction(x).denominator == 1


def in_interval(v: Interval, x) -> bool:
    """x ∈ γ([lo, hi]): lo <= x <= hi, and x an integer for an Int interval."""
    if v.lo > v.hi:
        return False
    if isinstance(x, Irrational):
        return v.real and x.cmp(v.lo) >= 0 and x.cmp(v.hi) <= 0
    if not v.real and not _is_int(x):
        return False
    return v.lo <= x <= v.hi


def in_congruence(c: Congruence, x) -> bool:
    """x ∈ γ(mZ + r): x = m·k + r for some integer k (any real for Real top)."""
    m = c.modulus
    if m < 0:
        return False
    if isinstance(x, Irrational):
        return c.real and m == 1
    if m == 0:
        return x == c.residue
    if c.real:
        return True
    return _is_int(x) and (int(x) - c.residue) % m == 0


def in_ic(v: IntervalCongruence, x) -> bool:
    return in_interval(v.interval, x) and in_congruence(v.congruence, x)


def gamma(v, x) -> bool:
    """x ∈ γ(v) for any of the three value kinds."""
    if isinstance(v, Interval):
        return in_interval(v, x)
    if isinstance(v, Congruence):
        return in_congruence(v, x)
    return in_ic(v, x)


def window(sort: Sort) -> tuple:
    return REAL_WINDOW if sort is REAL else INT_WINDOW


def concretise(v, sort: Sort) -> list:
    """γ(v) within the test window of its sort."""
    return [x for x in window(sort) if gamma(v, x)]


# ---------------------------------------------------------------- strategies

_int_bound = st.integers(-8, 8)
_real_bound = st.sampled_from(REAL_POINTS)


def _interval_of(bound: st.SearchStrategy, real: bool, unbounded: bool) -> st.SearchStrategy:
    lo = st.one_of(st.just(-INF), bound) if unbounded else bound
    hi = st.one_of(st.just(INF), bound) if unbounded else bound
    return st.tuples(lo, hi).map(lambda p: iv.make(min(p), max(p), real))


def int_intervals(bottom: bool = True) -> st.SearchStrategy:
    """Int intervals inside [-8, 8], possibly half or fully unbounded (and sometimes bottom)."""
    s = _interval_of(_int_bound, False, True)
    return st.one_of(st.just(iv.BOTTOM_INT), s) if bottom else s


def real_intervals(bottom: bool = True) -> st.SearchStrategy:
    s = _interval_of(_real_bound, True, True)
    return st.one_of(st.just(iv.BOTTOM_REAL), s) if bottom else s


def int_congruences(bottom: bool = True) -> st.SearchStrategy:
    """mZ + r with m in 0..6 (0: a constant in [-8, 8])."""
    s = st.builds(lambda m, r: cg.make(m, r), st.integers(0, 6), st.integers(-8, 8))
    return st.one_of(st.just(cg.BOTTOM_INT), s) if bottom else s


def real_congruences(bottom: bool = True) -> st.SearchStrategy:
    s = st.one_of(st.just(cg.TOP_REAL), _real_bound.map(lambda r: cg.const(r, True)))
    return st.one_of(st.just(cg.BOTTOM_REAL), s) if bottom else s


def int_ics(bottom: bool = True) -> st.SearchStrategy:
    return st.builds(IC, int_intervals(bottom), int_congruences(bottom))


def real_ics(bottom: bool = True) -> st.SearchStrategy:
    return st.builds(IC, real_intervals(bottom), real_congruences(bottom))


# ---------------------------------------------------------------- the law suite


def law(check):
    """Marks ``check(self, data)`` as a law; each subclass gets its own hypothesis test of it."""
    check.is_law = True
    return check


def _law_test(cls: type, name: str, check):
    def test(self, data):
        check(self, data)

    test.__name__ = name
    test.__qualname__ = f"{cls.__name__}.{name}"
    test.__doc__ = check.__doc__
    return settings(max_examples=40, deadline=None)(given(st.data())(test))


class LatticeLaws:
    """Subclass with ``domain``, ``sort`` and ``elements`` (a strategy of values of that sort)."""

    domain: ClassVar[object]
    sort: ClassVar[Sort] = INT
    elements: ClassVar[st.SearchStrategy]

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name, check in vars(LatticeLaws).items():
            if getattr(check, "is_law", False):
                test_name = "test_" + name.removeprefix("law_")
                setattr(cls, test_name, _law_test(cls, test_name, check))

    def _draw(self, data, n: int = 1):
        out = [data.draw(self.elements) for _ in range(n)]
        return out[0] if n == 1 else out

    def _equal(self, a, b) -> bool:
        d = self.domain
        return d.leq(a, b) and d.leq(b, a)

    @law
    def law_bottom_is_bottom(self, data):
        assert self.domain.is_bottom(self.domain.bottom(self.sort))

    @law
    def law_top_is_not_bottom(self, data):
        assert not self.domain.is_bottom(self.domain.top(self.sort))

    @law
    def law_bottom_is_least(self, data):
        a = self._draw(data)
        assert self.domain.leq(self.domain.bottom(self.sort), a)

    @law
    def law_top_is_greatest(self, data):
        a = self._draw(data)
        assert self.domain.leq(a, self.domain.top(self.sort))

    @law
    def law_leq_is_reflexive(self, data):
        a = self._draw(data)
        assert self.domain.leq(a, a)

    @law
    def law_leq_is_antisymmetric_on_canonical_values(self, data):
        a, b = self._draw(data, 2)
        if self.domain.leq(a, b) and self.domain.leq(b, a):
            assert a == b

    @law
    def law_leq_is_transitive(self, data):
        a, b, c = self._draw(data, 3)
        d = self.domain
        ab = d.join(a, b)
        abc = d.join(ab, c)
        assert d.leq(a, ab) and d.leq(ab, abc) and d.leq(a, abc)
        if d.leq(a, b) and d.leq(b, c):
            assert d.leq(a, c)

    @law
    def law_join_is_commutative(self, data):
        a, b = self._draw(data, 2)
        assert self.domain.join(a, b) == self.domain.join(b, a)

    @law
    def law_meet_is_commutative(self, data):
        a, b = self._draw(data, 2)
        assert self.domain.meet(a, b) == self.domain.meet(b, a)

    @law
    def law_join_is_associative(self, data):
        a, b, c = self._draw(data, 3)
        d = self.domain
        assert d.join(d.join(a, b), c) == d.join(a, d.join(b, c))

    @law
    def law_meet_is_associative(self, data):
        a, b, c = self._draw(data, 3)
        d = self.domain
        assert d.meet(d.meet(a, b), c) == d.meet(a, d.meet(b, c))

    @law
    def law_join_is_idempotent(self, data):
        a = self._draw(data)
        assert self.domain.join(a, a) == a

    @law
    def law_meet_is_idempotent(self, data):
        a = self._draw(data)
        assert self.domain.meet(a, a) == a

    @law
    def law_join_absorbs_meet(self, data):
        a, b = self._draw(data, 2)
        d = self.domain
        assert d.join(a, d.meet(a, b)) == a

    @law
    def law_meet_absorbs_join(self, data):
        a, b = self._draw(data, 2)
        d = self.domain
        assert d.meet(a, d.join(a, b)) == a

    @law
    def law_join_is_an_upper_bound(self, data):
        a, b = self._draw(data, 2)
        j = self.domain.join(a, b)
        assert self.domain.leq(a, j) and self.domain.leq(b, j)

    @law
    def law_meet_is_a_lower_bound(self, data):
        a, b = self._draw(data, 2)
        m = self.domain.meet(a, b)
        assert self.domain.leq(m, a) and self.domain.leq(m, b)

    @law
    def law_bottom_is_join_identity(self, data):
        a = self._draw(data)
        assert self.domain.join(a, self.domain.bottom(self.sort)) == a

    @law
    def law_top_is_meet_identity(self, data):
        a = self._draw(data)
        assert self.domain.meet(a, self.domain.top(self.sort)) == a

    @law
    def law_leq_agrees_with_join(self, data):
        a, b = self._draw(data, 2)
        assert self.domain.leq(a, b) == (self.domain.join(a, b) == b)

    @law
    def law_leq_agrees_with_meet(self, data):
        a, b = self._draw(data, 2)
        assert self.domain.leq(a, b) == (self.domain.meet(a, b) == a)

    @law
    def law_is_bottom_means_empty_concretisation(self, data):
        a = self._draw(data)
        if self.domain.is_bottom(a):
            assert concretise(a, self.sort) == []

    @law
    def law_join_over_approximates_union(self, data):
        a, b = self._draw(data, 2)
        j = self.domain.join(a, b)
        for x in window(self.sort):
            if gamma(a, x) or gamma(b, x):
                assert gamma(j, x), x

    @law
    def law_meet_is_exact_intersection(self, data):
        a, b = self._draw(data, 2)
        m = self.domain.meet(a, b)
        for x in window(self.sort):
            assert gamma(m, x) == (gamma(a, x) and gamma(b, x)), x

    @law
    def law_leq_implies_inclusion(self, data):
        a, b = self._draw(data, 2)
        if self.domain.leq(a, b):
            for x in window(self.sort):
                if gamma(a, x):
                    assert gamma(b, x), x

    @law
    def law_constant_is_exactly_that_value(self, data):
        x = data.draw(st.sampled_from(window(self.sort)))
        c = self.domain.constant(x, self.sort)
        assert [y for y in window(self.sort) if gamma(c, y)] == [x]

    @law
    def law_bounds_enclose_concretisation(self, data):
        a = self._draw(data)
        lo, hi = self.domain.bounds(a)
        for x in concretise(a, self.sort):
            assert lo <= x <= hi

    @law
    def law_congruence_holds_for_every_value(self, data):
        a = self._draw(data)
        assert congruence_breaks(self.domain, a, self.sort) is None


def congruence_breaks(domain, a, sort: Sort):
    """A value of ``a`` (in the test window) that ``domain.congruence(a)`` gets wrong, or None:
    ``(m, r)`` says every value is ``r`` mod ``m`` (``m = 0``: is ``r``; ``-1``: there is none)."""
    m, r = domain.congruence(a)
    values = concretise(a, sort)
    if m < 0:
        return values[0] if values else None
    for x in values:
        if (x != r) if m == 0 else (m > 1 and (x - r) % m):
            return x
    return None


# ---------------------------------------------------------------- the terms checked, one kind or more each

x, y, z = (T.var(n, T.INT) for n in "xyz")
p, q = (T.var(n, T.REAL) for n in "pq")


def _half(n=1, d=2):
    return T.const(Fraction(n, d), T.REAL)


#: (name, term, kind): the terms whose operators every domain's soundness test checks, at least one
#: per kind (test_operator_table.py asks); test_domain_soundness.py checks each term's kind, so
#: canonical forms cannot silently change it
CASES = [
    ("lin", T.add(T.scale(x, 3), T.scale(y, -2), T.const(1)), "lin"),
    ("lin-one-atom", T.add(T.scale(x, -2), T.const(5)), "lin"),
    ("lin-three-atoms", T.add(x, T.scale(y, 2), T.neg(z), T.const(4)), "lin"),
    ("lin-real", T.add(T.scale(p, Fraction(1, 2)), T.scale(q, -2), _half(1, 3)), "lin"),
    ("mul", T.mul(x, y), "mul"),
    ("mul-three", T.mul(x, y, z), "mul"),
    ("mul-square", T.mul(x, x), "mul"),
    ("mul-square-times", T.mul(x, x, y), "mul"),
    ("mul-real", T.mul(p, q), "mul"),
    ("mul-real-square", T.mul(p, p), "mul"),
    ("div", T.div(x, y), "div"),
    ("div-const", T.div(x, T.const(3)), "div"),
    ("div-neg-const", T.div(x, T.const(-3)), "div"),
    ("div-zero", T.div(x, T.const(0)), "div"),
    ("mod", T.mod(x, y), "mod"),
    ("mod-const", T.mod(x, T.const(3)), "mod"),
    ("mod-zero", T.mod(x, T.const(0)), "mod"),
    ("rdiv", T.rdiv(p, q), "rdiv"),
    ("sqrt", T.power(p, _half()), "pow"),
    ("pow-3/2", T.power(p, _half(3, 2)), "pow"),
    ("pow--1/2", T.power(p, _half(-1, 2)), "pow"),
    ("pow--1-real", T.power(p, T.const(Fraction(-1), T.REAL)), "pow"),
    ("pow-17-real", T.power(p, T.const(Fraction(17), T.REAL)), "pow"),
    ("pow-var-real", T.power(p, q), "pow"),
    ("pow-17-int", T.power(x, T.const(17)), "pow"),
    ("pow--1-int", T.power(x, T.const(-1)), "pow"),
    ("pow-var-int", T.power(x, y), "pow"),
    ("to_int", T.to_int(p), "to_int"),
    ("ceil", T.ceil(p), "ceil"),
    ("to_real", T.to_real(x), "to_real"),
    ("min", T.minimum(x, y), "min"),
    ("max", T.maximum(x, y), "max"),
    ("min-real", T.minimum(p, q), "min"),
    ("max-real", T.maximum(p, q), "max"),
    ("fn", T.apply("log2", p), "fn"),
    # a named sum over one operand (interned directly: ``define`` names sums only); its
    # second operand, when it has one, is equal to the first by construction (an alias)
    ("def", T._intern("def", T.INT, (x,), ("d", 1, 0)), "def"),
    ("def-real", T._intern("def", T.REAL, (p,), ("d", 1, 0)), "def"),
]
