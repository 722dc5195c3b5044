"""The reduced product interval × congruence: laws, the reduction rules, and what each
component gains from the other (soundness is in test_domain_soundness.py)."""

from __future__ import annotations

from fractions import Fraction as F

from domain_laws import LatticeLaws, in_ic, int_ics, real_ics
from hypothesis import given, settings

from absint.lang import terms as T
from domains import congruence as cg
from domains.congruence import Congruence
from domains.interval import Interval
from domains.interval_congruence import IC, IntervalCongruence, reduce

INF = float("inf")
x, y = (T.var(n, T.INT) for n in "xy")
p = T.var("p", T.REAL)


def V(lo, hi, m=1, r=0):
    """([lo, hi], mZ + r) as an Int value."""
    return IC(Interval(lo, hi), cg.make(m, r))


def K(v):
    return IC.constant(v, T.INT)


class TestIntICLaws(LatticeLaws):
    domain = IC
    sort = T.INT
    elements = int_ics()


class TestRealICLaws(LatticeLaws):
    domain = IC
    sort = T.REAL
    elements = real_ics()


# ---------------------------------------------------------------- reduction


def test_bounds_tighten_to_congruent_values():
    v = V(0, 10, 4, 1)
    assert (v.lo, v.hi) == (1, 9)


def test_singleton_interval_makes_congruence_constant():
    v = IC(Interval(3, 3), cg.TOP_INT)
    assert (v.modulus, v.residue) == (0, 3)


def test_no_congruent_value_in_interval_is_bottom():
    assert IC.is_bottom(V(1, 3, 4, 0))


def test_constant_congruence_makes_interval_a_point():
    v = IC(Interval(-INF, INF), cg.make(0, 7))
    assert (v.lo, v.hi) == (7, 7)


def test_constant_outside_interval_is_bottom():
    assert IC.is_bottom(IC(Interval(0, 5), cg.make(0, 7)))


def test_bounds_tighten_to_a_single_value_become_constant():
    v = V(1, 5, 4, 2)
    assert (v.lo, v.hi, v.modulus, v.residue) == (2, 2, 0, 2)


def test_half_unbounded_interval_tightens_its_finite_side():
    v = V(-INF, 10, 3, 0)
    assert (v.lo, v.hi) == (-INF, 9)


def test_real_interval_is_not_rounded():
    v = IC(Interval(F(1, 2), F(3, 2), True), cg.TOP_REAL)
    assert (v.lo, v.hi) == (F(1, 2), F(3, 2))


def test_every_constructor_reduces():
    v = IntervalCongruence(Interval(0, 10), Congruence(4, 1))
    assert v == V(1, 9, 4, 1)


@settings(max_examples=200, deadline=None)
@given(int_ics())
def test_reduction_preserves_concretisation(v):
    for n in range(-12, 13):
        assert in_ic(v, n) == (n in v.interval and n in v.congruence)


@settings(max_examples=200, deadline=None)
@given(int_ics())
def test_reduce_is_idempotent(v):
    assert reduce(v.interval, v.congruence) == (v.interval, v.congruence)


# ---------------------------------------------------------------- operators use both components


def test_join_keeps_common_congruence():
    j = IC.join(K(1), K(9))
    assert (j.lo, j.hi, j.modulus, j.residue) == (1, 9, 8, 1)


def test_meet_of_parities_of_a_range():
    m = IC.meet(V(0, 10, 2, 0), V(0, 10, 3, 0))
    assert (m.lo, m.hi, m.modulus) == (0, 6, 6)


def test_lin_forward_carries_both_parts():
    t = T.add(T.scale(x, 2), T.const(1))
    v = IC.forward(t, [V(0, 5)])
    assert (v.lo, v.hi, v.modulus, v.residue) == (1, 11, 2, 1)


def test_division_by_odd_divisor_around_zero_is_not_top():
    v = IC.forward(T.div(x, y), [V(0, 6), V(-3, 3, 2, 1)])
    assert (v.lo, v.hi) == (-6, 6)


def test_mod_by_odd_divisor_around_zero_is_bounded():
    v = IC.forward(T.mod(x, y), [V(-100, 100), V(-3, 3, 2, 1)])
    assert (v.lo, v.hi) == (0, 2)


def test_mod_forward_combines_period_and_congruence():
    v = IC.forward(T.mod(x, T.const(4)), [V(0, 100, 8, 5), K(4)])
    assert (v.lo, v.hi) == (1, 1)


def test_mod_backward_gives_congruence_and_tight_bounds():
    t = T.mod(x, T.const(5))
    nx, _ = IC.backward(t, K(3), [V(0, 20), K(5)])
    assert (nx.lo, nx.hi, nx.modulus, nx.residue) == (3, 18, 5, 3)


def test_lin_backward_narrows_bounds_and_congruence():
    t = T.add(T.scale(x, 3), T.scale(y, -2), T.const(1))
    nx, ny = IC.backward(t, K(0), [V(0, 10), V(0, 10)])
    assert (nx.lo, nx.hi, nx.modulus, nx.residue) == (1, 5, 2, 1)
    assert (ny.lo, ny.hi, ny.modulus, ny.residue) == (2, 8, 3, 2)


def test_sqrt_then_ceil_through_the_product():
    root = IC.forward(T.power(p, T.const(F(1, 2), T.REAL)),
                      [IC.from_bounds(2, 10, T.REAL), IC.constant(F(1, 2), T.REAL)])
    v = IC.forward(T.ceil(p), [root])
    assert (v.lo, v.hi) == (2, 4)


# ---------------------------------------------------------------- comparisons


def test_eq_decided_by_congruence_when_interval_cannot():
    assert IC.truth("eq", V(-10, 10, 4, 1)) is False
    assert IC.truth("ne", V(-10, 10, 4, 1)) is True


def test_restrict_ne_moves_to_next_congruent_value():
    v = IC.restrict("ne", V(0, 8, 4, 0))
    assert (v.lo, v.hi) == (4, 8)


def test_restrict_le_tightens_to_congruence():
    v = IC.restrict("le", V(-9, 8, 4, 1))
    assert (v.lo, v.hi) == (-7, -3)


def test_bounds_are_the_reduced_interval():
    assert IC.bounds(V(0, 10, 4, 1)) == (1, 9)
