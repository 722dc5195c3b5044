"""absint.lang.evaluator: exact SMT-LIB semantics, and 'not evaluable' where SMT-LIB leaves a value open."""

from __future__ import annotations

from fractions import Fraction

import pytest

from absint.lang import terms as T
from absint.lang.evaluator import NotEvaluable, evaluate
from absint.lang.terms import BOOL, INT, REAL

x, y = T.var("x", INT), T.var("y", INT)
r = T.var("r", REAL)
p = T.var("p", BOOL)
c = T.const

# x = y*q + m with 0 <= m < |y|, for every sign combination
EUCLIDEAN = [(7, 2, 3, 1), (-7, 2, -4, 1), (7, -2, -3, 1), (-7, -2, 4, 1),
             (6, 3, 2, 0), (-6, 3, -2, 0), (6, -3, -2, 0), (-6, -3, 2, 0), (0, -5, 0, 0)]


@pytest.mark.parametrize("a, d, quotient, remainder", EUCLIDEAN)
def test_div_and_mod_by_a_variable_are_euclidean(a, d, quotient, remainder):
    env = {"x": a, "y": d}
    assert evaluate(T.div(x, y), env) == quotient
    assert evaluate(T.mod(x, y), env) == remainder
    assert a == d * quotient + remainder and 0 <= remainder < abs(d)


@pytest.mark.parametrize("a, d, quotient, remainder", EUCLIDEAN)
def test_div_and_mod_by_a_constant_are_euclidean(a, d, quotient, remainder):
    env = {"x": a}
    assert evaluate(T.div(x, c(d)), env) == quotient
    assert evaluate(T.mod(x, c(d)), env) == remainder


def test_int_results_are_python_ints():
    v = evaluate(T.add(T.div(x, c(2)), T.mul(x, y)), {"x": 3, "y": 4})
    assert v == 13 and type(v) is int


def test_real_division_is_exact():
    assert evaluate(T.rdiv(x, c(3)), {"x": 1}) == Fraction(1, 3)
    assert evaluate(T.rdiv(x, y), {"x": 2, "y": -6}) == Fraction(-1, 3)


def test_real_sums_are_exact():
    t = T.add(T.rdiv(x, c(3)), T.rdiv(x, c(6)))
    assert evaluate(t, {"x": 1}) == Fraction(1, 2)


def test_to_int_is_floor_and_ceil_is_ceiling():
    assert evaluate(T.to_int(r), {"r": Fraction(-1, 3)}) == -1
    assert evaluate(T.to_int(r), {"r": Fraction(5, 3)}) == 1
    assert evaluate(T.ceil(r), {"r": Fraction(-1, 3)}) == 0
    assert evaluate(T.ceil(r), {"r": Fraction(5, 3)}) == 2
    assert evaluate(T.ceil(r), {"r": Fraction(2)}) == 2


def test_real_scaling_is_exact():
    assert evaluate(T.scale(r, 2), {"r": Fraction("0.25")}) == Fraction(1, 2)


def test_power_with_exact_root_evaluates():
    sqrt = T.power(r, c(Fraction(1, 2), REAL))
    assert sqrt.kind == "pow"
    assert evaluate(sqrt, {"r": 4}) == 2
    assert evaluate(sqrt, {"r": Fraction(9, 4)}) == Fraction(3, 2)


def test_power_with_inexact_root_is_not_evaluable():
    with pytest.raises(NotEvaluable):
        evaluate(T.power(r, c(Fraction(1, 2), REAL)), {"r": 2})


def test_square_root_of_negative_is_not_evaluable():
    with pytest.raises(NotEvaluable):
        evaluate(T.power(r, c(Fraction(1, 2), REAL)), {"r": -4})


def test_int_power_with_variable_exponent():
    t = T.power(x, y)
    assert evaluate(t, {"x": 2, "y": 10}) == 1024
    with pytest.raises(NotEvaluable):  # 2 ^ -1 is not an integer
        evaluate(t, {"x": 2, "y": -1})


def test_zero_to_a_negative_power_is_not_evaluable():
    with pytest.raises(NotEvaluable):
        evaluate(T.power(r, c(Fraction(-1), REAL)), {"r": 0})


@pytest.mark.parametrize("build", [T.div, T.mod, T.rdiv], ids=["div", "mod", "rdiv"])
def test_division_by_zero_is_not_evaluable(build):
    with pytest.raises(NotEvaluable, match="division by zero"):
        evaluate(build(x, y), {"x": 5, "y": 0})


def test_division_by_constant_zero_is_not_evaluable():
    with pytest.raises(NotEvaluable):
        evaluate(T.div(x, c(0)), {"x": 5})
    with pytest.raises(NotEvaluable):
        evaluate(T.rdiv(x, c(0)), {"x": 5})


def test_undefined_subterm_makes_enclosing_comparison_not_evaluable():
    with pytest.raises(NotEvaluable):
        evaluate(T.le(T.div(x, y), c(0)), {"x": 5, "y": 0})


def test_ite_whose_untaken_branch_divides_by_zero_is_evaluable():
    t = T.ite(T.eq(y, c(0)), c(0), T.div(x, y))
    assert t.kind == "ite"
    assert evaluate(t, {"x": 5, "y": 0}) == 0
    assert evaluate(t, {"x": 5, "y": 2}) == 2


def test_ite_whose_taken_branch_divides_by_zero_is_not_evaluable():
    t = T.ite(T.eq(y, c(0)), T.div(x, y), c(0))
    with pytest.raises(NotEvaluable):
        evaluate(t, {"x": 5, "y": 0})


def test_ite_with_undefined_condition_is_not_evaluable():
    t = T.ite(T.le(T.div(x, y), c(0)), c(1), c(2))
    with pytest.raises(NotEvaluable):
        evaluate(t, {"x": 5, "y": 0})


def test_or_with_a_true_disjunct_ignores_undefined_ones():
    t = T.or_(T.eq(y, c(0)), T.gt(T.div(x, y), c(0)))
    assert evaluate(t, {"x": 5, "y": 0}) is True


def test_and_with_a_false_conjunct_ignores_undefined_ones():
    t = T.and_(T.ne(y, c(0)), T.gt(T.div(x, y), c(0)))
    assert evaluate(t, {"x": 5, "y": 0}) is False


def test_and_with_only_true_and_undefined_conjuncts_is_not_evaluable():
    t = T.and_(T.eq(y, c(0)), T.gt(T.div(x, y), c(0)))
    with pytest.raises(NotEvaluable):
        evaluate(t, {"x": 5, "y": 0})


def test_missing_symbol_is_not_evaluable():
    with pytest.raises(NotEvaluable, match="x"):
        evaluate(T.add(x, c(1)), {})


def test_int_symbol_with_fractional_value_is_not_evaluable():
    with pytest.raises(NotEvaluable):
        evaluate(T.add(x, c(1)), {"x": Fraction(1, 2)})


def test_bool_variables_and_negation():
    assert evaluate(T.not_(p), {"p": False}) is True
    assert evaluate(T.and_(p, T.le(x, c(0))), {"p": True, "x": 0}) is True


def test_comparisons_return_bools():
    assert evaluate(T.lt(x, y), {"x": 1, "y": 2}) is True
    assert evaluate(T.ne(x, y), {"x": 1, "y": 1}) is False
    assert evaluate(T.le(r, c(Fraction(1, 2), REAL)), {"r": Fraction(1, 2)}) is True


def test_min_and_max():
    assert evaluate(T.minimum(x, y), {"x": 3, "y": -2}) == -2
    assert evaluate(T.maximum(x, y), {"x": 3, "y": -2}) == 3


def test_shared_memo_reuses_values_between_calls():
    memo: dict = {}
    d = T.div(x, y)
    assert evaluate(T.add(d, c(1)), {"x": 9, "y": 2}, memo) == 5
    assert memo[d.id] == 4
    assert evaluate(T.mul(d, d), {"x": 9, "y": 2}, memo) == 16


def test_deep_chain_of_mods_and_divs_evaluates_without_recursion_error():
    t = x
    expected = 12345
    for k in range(5000):
        if k % 2:
            t = T.mod(T.add(t, y), c(1000003))
            expected = (expected + 7) % 1000003
        else:
            t = T.div(T.add(t, y), c(2))
            expected = (expected + 7) // 2
    assert len(T.subterms(t)) > 5000
    assert evaluate(t, {"x": 12345, "y": 7}) == expected


def test_deep_chain_with_variable_divisors_evaluates():
    t = x
    expected = 10**6
    for _ in range(5000):
        t = T.div(T.add(t, y), y)
        expected = (expected + 3) // 3
    assert evaluate(t, {"x": 10**6, "y": 3}) == expected


def test_deep_undefined_chain_is_not_evaluable():
    t = T.div(x, y)
    for _ in range(5000):
        t = T.mod(T.add(t, c(1)), c(7))
    with pytest.raises(NotEvaluable):
        evaluate(t, {"x": 1, "y": 0})


def test_division_by_zero_under_a_deep_term_is_not_evaluable_not_a_crash():
    deep = x
    for _ in range(3000):
        deep = T.mod(T.add(deep, c(1)), c(7))
    t = T.ite(T.eq(y, c(0)), c(0), T.div(deep, y))
    assert evaluate(t, {"x": 1, "y": 0}) == 0
    with pytest.raises(NotEvaluable, match="division by zero"):
        evaluate(T.div(deep, y), {"x": 1, "y": 0})
