"""Products of sums read multiplied out (absint.reasoning.rules.distribute, the MULTIPLY_OUT rows), against Z3."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.lang.evaluator import evaluate
from absint.reasoning.rules import distribute
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Truth
from z3_check import z3_implies

s0, s1, n = (T.var(v, T.INT) for v in ("s0", "s1", "n"))
k = T.const


def test_a_bounded_product_bounds_its_factored_neighbours():
    r = Reasoner(relational=False)
    for f in (T.ge(s0, k(1)), T.ge(s1, k(1)), T.le(T.mul(s0, s1), n)):
        r.assume(f)
    guard = T.le(T.add(T.mul(s1, T.sub(s0, k(1))), s1, k(-1)), n)  # s1*(s0 - 1) + s1 - 1 <= n
    assert r.decide(guard).truth is Truth.TRUE
    assert r.decide(T.le(T.add(T.mul(s1, T.sub(s0, k(1))), s1, k(1)), n)).truth is Truth.UNKNOWN


SUMS = st.tuples(st.sampled_from([s0, s1, n]), st.integers(-2, 2), st.integers(-3, 3)).map(
    lambda p: T.add(T.scale(p[0], p[1]), k(p[2])))
PRODUCTS = st.tuples(SUMS, SUMS).map(lambda p: T.mul(*p))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(-2, 2), PRODUCTS), min_size=1, max_size=3), st.integers(-5, 5),
       st.dictionaries(st.sampled_from(["s0", "s1", "n"]), st.integers(-6, 6), min_size=3))
def test_the_multiplied_out_sum_has_the_same_value(parts, c, point):
    t = T.add(k(c), *(T.scale(p, v) for v, p in parts))
    d = distribute(t)
    if d is not None:
        assert evaluate(d, point) == evaluate(t, point)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(PRODUCTS, st.integers(-4, 4), st.sampled_from([T.le, T.ge, T.eq]), st.integers(-2, 3))
def test_verdicts_on_products_of_sums_agree_with_z3(product, c, compare, lo):
    facts = [T.ge(s0, k(lo)), T.ge(s1, k(lo)), T.le(s0, k(5)), T.le(s1, k(5)), T.le(T.mul(s0, s1), n),
             T.le(n, k(12))]
    guard = compare(T.add(product, k(c)), n)
    r = Reasoner(relational=False)
    for f in facts:
        r.assume(f)
    v = r.decide(guard).truth
    if v is Truth.TRUE:
        assert z3_implies(facts, guard)
    elif v is Truth.FALSE:
        assert z3_implies(facts, T.not_(guard))


def test_the_multiplied_out_sum_meets_the_rules():
    """PyTorch's view (test_inductor_view_issue_172693): ``s30 % 8 == 0`` and ``s30*s0 % 8 ==
    0`` known, ``-7*s0*(s30 // 8) - s0*(s30 // 8 - 1) + s0*(s30 - 1) + 1 <= 0`` is
    ``1 <= 0`` once multiplied out, ``s0*(s30 // 8)`` is ``(s30*s0) // 8`` and
    ``8*((s30*s0) // 8)`` is ``s30*s0``: the expanded sum is normalised, not only bounded."""
    eighth = T.div(s1, k(8))
    facts = [T.ge(s0, k(2)), T.ge(s1, k(2)), T.eq(T.mod(s1, k(8)), k(0)), T.eq(T.mod(T.mul(s1, s0), k(8)), k(0))]
    guard = T.le(T.add(T.scale(T.mul(s0, eighth), -7), T.scale(T.mul(s0, T.sub(eighth, k(1))), -1),
                       T.mul(s0, T.sub(s1, k(1))), k(1)), k(0))
    r = Reasoner(relational=False)
    for f in facts:
        r.assume(f)
    assert r.decide(guard).truth is Truth.FALSE
    assert z3_implies(facts, T.not_(guard))


def test_every_product_is_multiplied_out_or_none():
    """A product past MAX_EXPANDED monomials leaves the whole sum factored (the MULTIPLY_OUT
    row does not match it), so the small product beside it is not multiplied out alone."""
    from absint.reasoning.monomials import MAX_EXPANDED
    small = T.mul(T.add(s0, k(1)), T.add(s1, k(2)))
    large = T.mul(*(T.add(T.var(f"v{i}", T.INT), k(1)) for i in range(7)))  # 2**7 monomials
    assert 2 ** 7 > MAX_EXPANDED
    assert distribute(T.add(small, n)) is not None
    assert distribute(T.add(small, large, n)) is None
    assert distribute(T.add(s0, n)) is None  # no product of sums
