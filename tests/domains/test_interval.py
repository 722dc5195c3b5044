"""Intervals: lattice laws, and the precision each operator promises (soundness is in
test_domain_soundness.py)."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from domain_laws import LatticeLaws, int_intervals, real_intervals

from absint.lang import terms as T
from domains.interval import BOTTOM_INT, BOTTOM_REAL, INTERVAL, TOP_INT, TOP_REAL, Interval
from domains.bounds import NEG_INF

INF = float("inf")
x, y, z = (T.var(n, T.INT) for n in "xyz")
p, q = (T.var(n, T.REAL) for n in "pq")


def I(lo, hi):  # noqa: E743 - an Int interval
    return INTERVAL.from_bounds(lo, hi, T.INT)


def R(lo, hi):
    return INTERVAL.from_bounds(lo, hi, T.REAL)


def fwd(term, *args):
    return INTERVAL.forward(term, list(args))


def bwd(term, result, *args):
    return list(INTERVAL.backward(term, result, list(args)))


class TestIntIntervalLaws(LatticeLaws):
    domain = INTERVAL
    sort = T.INT
    elements = int_intervals()


class TestRealIntervalLaws(LatticeLaws):
    domain = INTERVAL
    sort = T.REAL
    elements = real_intervals()


# ---------------------------------------------------------------- values


def test_empty_bounds_normalise_to_the_one_bottom():
    assert I(3, 1) is BOTTOM_INT
    assert R(3, 1) is BOTTOM_REAL


def test_int_bounds_round_inward():
    assert I(F(1, 2), F(7, 2)) == Interval(1, 3)


def test_int_interval_without_integers_is_bottom():
    assert INTERVAL.is_bottom(I(F(1, 3), F(2, 3)))


def test_real_bounds_stay_rational():
    assert R(F(1, 2), F(7, 2)) == Interval(F(1, 2), F(7, 2), True)


def test_join_is_the_hull():
    assert INTERVAL.join(I(0, 1), I(5, 6)) == I(0, 6)


def test_meet_of_disjoint_intervals_is_bottom():
    assert INTERVAL.meet(I(0, 1), I(5, 6)) is BOTTOM_INT


# ---------------------------------------------------------------- forward


def test_lin_sums_scaled_bounds():
    t = T.add(T.scale(x, 3), T.scale(y, -2), T.const(1))
    assert fwd(t, I(0, 2), I(1, 4)) == I(-7, 5)


def test_lin_with_unbounded_atom():
    t = T.add(x, T.scale(y, -1))
    assert fwd(t, I(0, INF), I(0, 5)) == I(-5, INF)


def test_product_with_zero_factor_is_zero_despite_infinity():
    assert fwd(T.mul(x, y), I(0, 0), TOP_INT) == I(0, 0)


def test_product_corners():
    assert fwd(T.mul(x, y), I(-2, 3), I(-5, 4)) == I(-15, 12)


def test_square_is_non_negative():
    assert fwd(T.mul(x, x), I(-3, 2), I(-3, 2)) == I(0, 9)


def test_div_by_positive_constant_floors():
    assert fwd(T.div(x, y), I(7, 9), I(2, 2)) == I(3, 4)


def test_div_is_euclidean_for_negative_dividend():
    assert fwd(T.div(x, y), I(-7, -7), I(2, 2)) == I(-4, -4)


def test_div_by_negative_divisor():
    assert fwd(T.div(x, y), I(7, 7), I(-2, -2)) == I(-3, -3)
    assert fwd(T.div(x, y), I(-7, -7), I(-2, -2)) == I(4, 4)


def test_div_by_divisor_that_may_be_zero_is_top():
    assert fwd(T.div(x, y), I(1, 2), I(0, 3)) == TOP_INT


def test_div_by_unbounded_positive_divisor():
    assert fwd(T.div(x, y), I(-5, 5), I(1, INF)) == I(-5, 5)


def test_mod_is_below_the_largest_divisor():
    assert fwd(T.mod(x, y), I(-100, 100), I(1, 10)) == I(0, 9)


def test_mod_of_non_negative_is_at_most_the_dividend():
    assert fwd(T.mod(x, y), I(0, 4), I(3, 10)) == I(0, 4)


def test_mod_of_small_dividend_is_the_dividend():
    assert fwd(T.mod(x, y), I(2, 4), I(5, 10)) == I(2, 4)


def test_mod_within_one_period_is_exact():
    assert fwd(T.mod(x, T.const(8)), I(17, 19), I(8, 8)) == I(1, 3)


def test_mod_by_divisor_that_may_be_zero_is_top():
    assert fwd(T.mod(x, y), I(1, 2), I(-1, 3)) == TOP_INT


def test_mod_of_small_negative_dividend_adds_the_divisor():
    assert fwd(T.mod(x, y), I(-2, -1), I(5, 5)) == I(3, 4)


def test_rdiv_is_exact_on_rationals():
    assert fwd(T.rdiv(p, q), R(1, 2), R(3, 4)) == R(F(1, 4), F(2, 3))


def test_rdiv_by_interval_touching_zero_is_top():
    assert fwd(T.rdiv(p, q), R(1, 2), R(0, 4)) == TOP_REAL


def test_sqrt_of_square_is_exact():
    t = T.power(p, T.const(F(1, 2), T.REAL))
    assert fwd(t, R(F(9, 4), 16), INTERVAL.constant(F(1, 2), T.REAL)) == R(F(3, 2), 4)


def test_sqrt_of_non_square_rounds_outward():
    t = T.power(p, T.const(F(1, 2), T.REAL))
    v = fwd(t, R(2, 2), INTERVAL.constant(F(1, 2), T.REAL))
    assert v.lo * v.lo < 2 < v.hi * v.hi
    assert v.hi - v.lo < F(1, 1000)


def test_ceil_of_sqrt_is_tight():
    root = fwd(T.power(p, T.const(F(1, 2), T.REAL)), R(2, 10), INTERVAL.constant(F(1, 2), T.REAL))
    assert fwd(T.ceil(p), root) == I(2, 4)


def test_root_of_possibly_negative_base_is_top():
    t = T.power(p, T.const(F(1, 2), T.REAL))
    assert fwd(t, R(-1, 4), INTERVAL.constant(F(1, 2), T.REAL)) == TOP_REAL


def test_negative_fractional_power_decreases():
    t = T.power(p, T.const(F(-1, 2), T.REAL))
    assert fwd(t, R(F(1, 4), 4), INTERVAL.constant(F(-1, 2), T.REAL)) == R(F(1, 2), 2)


def test_power_with_variable_exponent_is_top():
    assert fwd(T.power(p, q), R(1, 2), R(1, 2)) == TOP_REAL


def test_large_int_power_of_possibly_negative_base():
    t = T.power(x, T.const(17))
    assert t.kind == "pow"
    assert fwd(t, I(-1, 2), I(17, 17)) == I(-1, 2**17)


def test_to_int_floors_and_ceil_ceils():
    assert fwd(T.to_int(p), R(F(-3, 2), F(5, 2))) == I(-2, 2)
    assert fwd(T.ceil(p), R(F(-3, 2), F(5, 2))) == I(-1, 3)


def test_to_real_keeps_the_bounds():
    assert fwd(T.to_real(x), I(1, 3)) == R(1, 3)


def test_min_and_max_take_bounds_pointwise():
    assert fwd(T.minimum(x, y), I(0, 10), I(3, 5)) == I(0, 5)
    assert fwd(T.maximum(x, y), I(0, 10), I(3, 5)) == I(3, 10)


def test_forward_of_bottom_operand_is_bottom():
    assert INTERVAL.is_bottom(fwd(T.add(x, y), BOTTOM_INT, I(0, 1)))


# ---------------------------------------------------------------- backward


def test_lin_backward_narrows_each_atom():
    t = T.add(x, y)
    assert bwd(t, I(10, 10), I(0, 100), I(0, 3)) == [I(7, 10), I(0, 3)]


def test_lin_backward_rounds_int_atoms_inward():
    t = T.scale(x, 2)
    t = T.add(t, T.scale(y, 3))
    assert bwd(t, I(0, 7), I(0, 100), I(1, 1)) == [I(0, 2), I(1, 1)]


def test_lin_backward_with_unbounded_other_atom_keeps_side_open():
    t = T.add(x, y)
    assert bwd(t, I(0, 0), I(-50, 50), I(0, INF)) == [I(-50, 0), I(0, 50)]


def test_mul_backward_divides_by_a_factor_excluding_zero():
    assert bwd(T.mul(x, y), I(12, 12), I(0, 100), I(3, 4)) == [I(3, 4), I(3, 4)]


def test_mul_backward_with_non_zero_product_bounds_factors():
    assert bwd(T.mul(x, y), I(6, 6), TOP_INT, TOP_INT) == [I(-6, 6), I(-6, 6)]


def test_mul_backward_shaves_zero_when_product_non_zero():
    assert bwd(T.mul(x, y), I(1, 5), I(0, 3), TOP_INT)[0] == I(1, 3)


def test_mul_backward_takes_the_root_of_a_repeated_factor():
    """``x*x*x <= 4194303`` with ``x >= 2``: ``x <= 161`` (dividing by the other two factors'
    lower bounds gave ``x <= 1048575``); with another factor ``y`` in ``[2, 4]``: ``x^2*y <= 100``
    gives ``x <= 7``."""
    assert bwd(T.mul(x, x, x), I(NEG_INF, 4194303), I(2, 880801), I(2, 880801), I(2, 880801))[0] == I(2, 161)
    assert bwd(T.mul(x, x, y), I(0, 100), I(0, 1000), I(0, 1000), I(2, 4))[0] == I(0, 7)


def _repeated_factor_cases():
    """Every x-range in -3..8, k in 2..3, y-range in -3..3 and result range in -40..40 (coarse)."""
    import itertools

    spans = [(lo, hi) for lo in range(-3, 9, 2) for hi in range(lo, 9, 3)]
    results = [(lo, hi) for lo in range(-40, 41, 20) for hi in range(lo, 41, 15)]
    ys = [(lo, hi) for lo in range(-3, 4, 2) for hi in range(lo, 4, 2)]
    return itertools.product(spans, (2, 3), ys, results)


def test_repeated_factors_keep_every_value_a_point_takes():
    """Brute force: for each x, y in their ranges with x^k*y in the result, x stays in the
    narrowed range of x (the root is rounded outward, never cutting a point off)."""
    for (xlo, xhi), k, (ylo, yhi), (rlo, rhi) in _repeated_factor_cases():
        t = T.mul(*([x] * k), y)
        got = bwd(t, I(rlo, rhi), *([I(xlo, xhi)] * k), I(ylo, yhi))
        for xv in range(xlo, xhi + 1):
            if any(rlo <= xv ** k * yv <= rhi for yv in range(ylo, yhi + 1)):
                assert all(g.lo <= xv <= g.hi for g in got[:k]), ((xlo, xhi), k, (ylo, yhi), (rlo, rhi), xv, got)


def test_planted_error_a_root_one_degree_too_high_is_caught(monkeypatch):
    """x^k read as x^(k+1): the root is too small, and points are cut off."""
    from domains import interval as iv

    real = iv.power_back
    monkeypatch.setattr(iv, "power_back", lambda base, e, r: real(base, Interval(e.lo + 1, e.hi + 1, e.real), r))
    with pytest.raises(AssertionError):
        test_repeated_factors_keep_every_value_a_point_takes()


def test_div_backward_by_positive_constant():
    t = T.div(x, T.const(4))
    assert bwd(t, I(2, 3), TOP_INT, I(4, 4))[0] == I(8, 15)


def test_div_backward_by_negative_constant():
    t = T.div(x, T.const(-4))
    assert bwd(t, I(2, 3), TOP_INT, I(-4, -4))[0] == I(-12, -5)


def test_div_backward_bounds_positive_divisor():
    assert bwd(T.div(x, y), I(2, 3), I(12, 12), I(1, 100))[1] == I(4, 6)


def test_div_backward_keeps_everything_when_divisor_may_be_zero():
    assert bwd(T.div(x, y), I(2, 3), I(0, 5), I(0, 5)) == [I(0, 5), I(0, 5)]


def test_mod_backward_by_constant_moves_bounds_to_matching_residues():
    t = T.mod(x, T.const(5))
    assert bwd(t, I(3, 3), I(0, 20), I(5, 5))[0] == I(3, 18)


def test_mod_backward_by_constant_detects_impossible_residue():
    t = T.mod(x, T.const(5))
    assert INTERVAL.is_bottom(bwd(t, I(7, 9), I(0, 20), I(5, 5))[0])


def test_mod_backward_bounds_divisor_away_from_zero():
    assert bwd(T.mod(x, y), I(4, 6), TOP_INT, I(1, 100))[1] == I(5, 100)


def test_mod_backward_keeps_zero_divisor():
    assert bwd(T.mod(x, y), I(4, 6), TOP_INT, I(0, 100))[1] == I(0, 100)


def test_to_int_backward_widens_by_one():
    assert bwd(T.to_int(p), I(1, 2), TOP_REAL) == [R(1, 3)]


def test_ceil_backward_widens_below():
    assert bwd(T.ceil(p), I(1, 2), TOP_REAL) == [R(0, 2)]


def test_to_real_backward_rounds_inward():
    assert bwd(T.to_real(x), R(F(1, 2), F(7, 2)), TOP_INT) == [I(1, 3)]


def test_min_backward_raises_both_lower_bounds():
    assert bwd(T.minimum(x, y), I(3, 5), I(0, 10), I(0, 10)) == [I(3, 10), I(3, 10)]


def test_min_backward_forces_the_only_possible_minimum():
    assert bwd(T.minimum(x, y), I(3, 5), I(0, 10), I(7, 10))[0] == I(3, 5)


def test_max_backward_lowers_both_upper_bounds():
    assert bwd(T.maximum(x, y), I(3, 5), I(0, 10), I(0, 10)) == [I(0, 5), I(0, 5)]


def test_sqrt_backward_squares_the_result():
    t = T.power(p, T.const(F(1, 2), T.REAL))
    assert bwd(t, R(2, 3), R(0, 100), R(F(1, 2), F(1, 2)))[0] == R(4, 9)


def test_backward_of_bottom_result_is_bottom():
    assert all(INTERVAL.is_bottom(v) for v in bwd(T.add(x, y), BOTTOM_INT, I(0, 1), I(0, 1)))


# ---------------------------------------------------------------- comparisons


def test_truth_of_le():
    assert INTERVAL.truth("le", I(-3, 0)) is True
    assert INTERVAL.truth("le", I(1, 3)) is False
    assert INTERVAL.truth("le", I(0, 3)) is None


def test_truth_of_eq_and_ne():
    assert INTERVAL.truth("eq", I(0, 0)) is True
    assert INTERVAL.truth("eq", I(1, 3)) is False
    assert INTERVAL.truth("ne", I(1, 3)) is True
    assert INTERVAL.truth("ne", I(-1, 3)) is None


def test_restrict_ne_shaves_zero_endpoint_of_int():
    assert INTERVAL.restrict("ne", I(0, 5)) == I(1, 5)
    assert INTERVAL.restrict("ne", I(-5, 0)) == I(-5, -1)


def test_restrict_ne_keeps_real_endpoint():
    assert INTERVAL.restrict("ne", R(0, 5)) == R(0, 5)


def test_restrict_lt_on_reals_keeps_closed_bound():
    assert INTERVAL.restrict("lt", R(-5, 5)) == R(-5, 0)


def test_restrict_le_to_empty():
    assert INTERVAL.is_bottom(INTERVAL.restrict("le", I(1, 5)))
