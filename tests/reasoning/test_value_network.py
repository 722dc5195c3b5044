"""The reasoner over terms: facts in, three-valued verdicts out (layers 0 and 1)."""

from __future__ import annotations

import math

import pytest

from absint.lang import terms as T
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Layer, Truth

x, y, z, w = (T.var(n, T.INT) for n in ("x", "y", "z", "w"))
s0, s1, s2 = (T.var(n, T.INT) for n in ("s0", "s1", "s2"))
r = T.var("r", T.REAL)
k = T.const


def truth(rs, guard):
    return rs.decide(guard).truth


def test_trivial_guard_is_decided_by_the_normal_form():
    v = Reasoner().decide(T.not_(T.lt(x, x)))
    assert v.truth is Truth.TRUE and v.by is Layer.NORMAL_FORM


def test_unconstrained_guard_is_unknown():
    assert truth(Reasoner(), T.ge(x, k(0))) is Truth.UNKNOWN


def test_bound_implies_weaker_bound(reasoner_with):
    assert truth(reasoner_with(T.ge(x, k(5))), T.gt(x, k(2))) is Truth.TRUE


def test_bound_refutes_contrary_guard(reasoner_with):
    v = reasoner_with(T.ge(x, k(5))).decide(T.lt(x, k(3)))
    assert v.truth is Truth.FALSE and v.by is Layer.INTERVAL


def test_nonnegative_and_nonzero_give_positive(reasoner_with):
    rs = reasoner_with(T.ge(x, k(0)), T.ne(x, k(0)))
    assert truth(rs, T.ge(x, k(1))) is Truth.TRUE


def test_product_of_positive_sizes_is_nonzero(reasoner_with):
    rs = reasoner_with(T.ge(s0, k(1)), T.ge(s1, k(1)), T.ge(s2, k(1)))
    assert truth(rs, T.ne(T.mul(s0, s1, s2), k(0))) is Truth.TRUE


def test_equality_between_symbols_makes_terms_identical(reasoner_with):
    rs = reasoner_with(T.eq(s0, s1))
    assert truth(rs, T.eq(T.mul(s0, s2), T.mul(s1, s2))) is Truth.TRUE


def test_equality_to_constant_folds_later_guards(reasoner_with):
    rs = reasoner_with(T.eq(x, k(64)))
    v = rs.decide(T.eq(T.mod(T.mul(x, y), k(8)), k(0)))
    assert v.truth is Truth.TRUE


def test_facts_about_a_term_survive_a_later_substitution(reasoner_with):
    rs = reasoner_with(T.ge(T.mul(x, y), k(10)), T.eq(x, z))
    assert truth(rs, T.ge(T.mul(z, y), k(10))) is Truth.TRUE


def test_linear_combination_fact_decides_same_combination(reasoner_with):
    rs = reasoner_with(T.le(T.add(x, y), s0))
    assert truth(rs, T.le(T.add(x, y), s0)) is Truth.TRUE
    assert truth(rs, T.le(T.add(x, y), T.add(s0, k(3)))) is Truth.TRUE


def test_backward_propagation_bounds_the_operands_of_a_sum(reasoner_with):
    rs = reasoner_with(T.ge(x, k(0)), T.ge(y, k(0)), T.le(T.add(x, y), k(10)))
    assert truth(rs, T.le(x, k(10))) is Truth.TRUE


def test_congruence_from_mod_fact(reasoner_with):
    rs = reasoner_with(T.eq(T.mod(x, k(8)), k(0)))
    assert truth(rs, T.eq(T.mod(x, k(4)), k(0))) is Truth.TRUE


def test_disequality_is_remembered(reasoner_with):
    rs = reasoner_with(T.ne(x, k(3)))
    assert truth(rs, T.ne(x, k(3))) is Truth.TRUE
    assert truth(rs, T.eq(x, k(3))) is Truth.FALSE


def test_contradictory_facts_are_reported_and_make_guards_vacuous(reasoner_with):
    rs = reasoner_with(T.ge(x, k(5)), T.le(x, k(2)))
    assert rs.contradiction
    v = rs.decide(T.eq(y, k(1)))
    assert v.truth is Truth.TRUE and v.by is Layer.CONTRADICTION


def test_bounds_of_a_term(reasoner_with):
    rs = reasoner_with(T.ge(x, k(2)), T.le(x, k(7)))
    assert rs.bounds(T.add(T.mul(k(2), x), k(1))) == (5, 15)
    lo, hi = Reasoner().bounds(x)
    assert lo == -math.inf and hi == math.inf


def test_division_by_a_possibly_zero_symbol_is_not_bounded(reasoner_with):
    rs = reasoner_with(T.ge(x, k(0)), T.le(x, k(10)), T.ge(y, k(0)))
    assert truth(rs, T.le(T.div(x, y), k(10))) is Truth.UNKNOWN


def test_division_by_a_positive_symbol_is_bounded(reasoner_with):
    rs = reasoner_with(T.ge(x, k(0)), T.le(x, k(10)), T.ge(y, k(1)))
    assert truth(rs, T.le(T.div(x, y), k(10))) is Truth.TRUE


def test_disjunction_with_one_open_branch_is_assumed(reasoner_with):
    rs = reasoner_with(T.or_(T.lt(x, k(0)), T.gt(y, k(5))), T.ge(x, k(0)))
    assert truth(rs, T.gt(y, k(5))) is Truth.TRUE


def test_real_division_by_constant_is_linear(reasoner_with):
    rs = reasoner_with(T.ge(x, k(4)))
    assert truth(rs, T.ge(T.rdiv(x, k(2)), k(2))) is Truth.TRUE


def test_min_of_bounded_terms(reasoner_with):
    rs = reasoner_with(T.ge(x, k(3)), T.ge(y, k(5)))
    assert truth(rs, T.ge(T.minimum(x, y), k(3))) is Truth.TRUE


@pytest.mark.parametrize("budget", [1, 5, 50])
def test_small_budget_is_still_sound(budget):
    rs = Reasoner(budget=budget)
    for f in (T.le(x, y), T.le(y, z), T.le(z, k(10)), T.ge(x, k(0))):
        rs.assume(f)
    assert truth(rs, T.gt(x, k(10))) in (Truth.FALSE, Truth.UNKNOWN)
    assert truth(rs, T.le(x, k(10))) in (Truth.TRUE, Truth.UNKNOWN)


def test_opaque_functions_are_the_same_on_the_same_operand_and_monotone_where_known(reasoner_with):
    log2 = "OpaqueUnaryFn_log2"  # PyTorch's math.log2 of a float: non-decreasing where defined
    f, g = T.apply(log2, x), T.apply(log2, y)
    rs = reasoner_with(T.le(x, y), T.ge(x, k(1)))
    assert truth(rs, T.eq(T.apply(log2, x), f)) is Truth.TRUE
    assert truth(rs, T.le(f, g)) is Truth.TRUE  # log2 does not decrease
    assert truth(rs, T.lt(f, g)) is Truth.UNKNOWN  # x = y is possible
    assert truth(rs, T.le(T.apply("OpaqueUnaryFn_sin", x), T.apply("OpaqueUnaryFn_sin", y))) is Truth.UNKNOWN
    assert truth(rs, T.le(T.apply("log2", x), T.apply("log2", y))) is Truth.UNKNOWN  # a file's own log2


def test_a_monotone_opaque_function_is_not_ordered_outside_its_domain(reasoner_with):
    log2 = "OpaqueUnaryFn_log2"
    rs = reasoner_with(T.le(x, y))  # x may be 0 or negative: log2(x) has no value
    assert truth(rs, T.le(T.apply(log2, x), T.apply(log2, y))) is Truth.UNKNOWN


def _squaring_cycle():
    """``x >= y*y``, ``y >= x``, both ``>= 2``: each propagation step squares the lower bounds
    (no integer point; from a validation property test that ran out of memory on CI)."""
    x, y = T.var("x", T.INT), T.var("y", T.INT)
    r = Reasoner()
    for f in (T.ge(x, T.const(2)), T.ge(y, T.const(2)), T.ge(x, T.mul(y, y)), T.ge(y, x)):
        r.assume(f)
    return r, x


def test_a_squaring_cycle_stops_at_the_bound_size_limit_and_stays_sound():
    from absint.reasoning import network

    r, x = _squaring_cycle()
    lo, hi = r.bounds(x)
    assert lo.bit_length() <= network.MAX_BOUND_BITS and hi == float("inf")
    assert lo >= 2  # a lower bound that every point satisfies (there is none), no wrong upper one


def test_without_the_limit_the_cycle_outgrows_it(monkeypatch):
    """The planted error: no limit; the bounds climb far past it (and, with a larger
    propagation budget, until memory runs out)."""
    from absint.reasoning import network

    monkeypatch.setattr(network, "_outgrown", lambda old, new: False)
    r, x = _squaring_cycle()
    lo = r.bounds(x)[0]
    assert r.contradiction or lo.bit_length() > network.MAX_BOUND_BITS


# ---------------------------------------------------------------- a repeated factor's root

from hypothesis import given, settings, strategies as st  # noqa: E402

from verdict_checks import assert_holds  # noqa: E402

POWER_POINTS = [{"x": a, "y": b} for a in range(-2, 70) for b in range(-2, 5)]
ROOTS_DECIDED = [0]


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.integers(2, 3), st.integers(0, 3), st.integers(1, 3), st.integers(0, 40000), st.booleans(),
       st.sampled_from([T.le, T.lt, T.ge, T.eq]), st.integers(0, 4000))
def test_a_power_bound_reaches_its_base_by_brute_force_and_z3(degree, lo, ylo, c, with_y, make, bound):
    """``x^k*y <= c`` (or ``x^k <= c``) with ``x >= lo``, ``y`` in ``[ylo, 3]``: verdicts on ``x``
    and ``x*x`` hold on a box and for Z3 (``duck`` makes PyTorch's ``s0*s1*s2*s3`` a power)."""
    product = T.mul(*([x] * degree), *([y] if with_y else []))
    facts = [T.ge(x, k(lo)), T.ge(y, k(ylo)), T.le(y, k(3)), T.le(product, k(c)), T.le(x, k(69))]
    rs = Reasoner(cases=None)
    for f in facts:
        rs.assume(f)
    for guard in (make(x, k(bound % 70)), make(T.mul(x, x), k(bound))):
        v = rs.decide(guard)
        if v.truth is not Truth.UNKNOWN:
            ROOTS_DECIDED[0] += 1
            assert_holds(facts, guard, v.truth, POWER_POINTS)


def test_the_random_powers_were_decided():
    assert ROOTS_DECIDED[0] > 100, ROOTS_DECIDED  # runs after the property above (file order)


def test_a_cube_bound_bounds_its_base():
    """eca_botnext26ts under duck: ``n*n*n <= 4194303`` with ``n >= 2`` proves ``n*n <= 1048575``."""
    rs = Reasoner(cases=None)
    for f in (T.ge(x, k(2)), T.le(x, k(880801)), T.le(T.mul(x, x, x), k(4194303))):
        rs.assume(f)
    assert rs.bounds(x) == (2, 161)
    assert truth(rs, T.le(T.mul(x, x), k(1048575))) is Truth.TRUE
