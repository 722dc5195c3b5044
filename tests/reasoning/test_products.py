"""Products bounded through a bounded product of affinely related factors (absint.reasoning.products)."""

from __future__ import annotations

import itertools
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.lang.printer import to_smtlib
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.products import chain
from absint.reasoning.verdict import Truth
from z3_check import z3_implies

x, y, z = (T.var(n, T.INT) for n in ("x", "y", "z"))
k = T.const


def decide(facts, guard) -> Truth:
    rs = Reasoner(relational=False)  # the rule lives in layer 1: no isl behind it
    for f in facts:
        rs.assume(f)
    return rs.decide(guard).truth


def sizes(*vs, at_least=1):
    return [T.ge(v, k(at_least)) for v in vs]


def half(t, offset=0):
    return T.div(T.add(t, k(offset)), k(2))


# ---------------------------------------------------------------- chains


def test_chain_of_a_pooled_size_reaches_the_input_size():
    rs = Reasoner()
    f = T.sub(half(half(x, 1), 1), k(3))  # ((x + 1) div 2 + 1) div 2 - 3
    rs.network.register(f)
    links = chain(rs.network, f)
    assert list(links) == [f, half(half(x, 1), 1), half(x, 1), x]
    # each halving may drop a remainder of 0 or 1: x/4 - 3 <= f <= x/4 - 3 + 1/4 + 1/2
    assert links[x] == (Fraction(1, 4), -3, Fraction(-9, 4))
    assert links[f] == (1, 0, 0)


def test_known_parity_makes_a_link_exact():
    rs = Reasoner()
    rs.assume(T.eq(T.mod(x, k(2)), k(1)))
    f = half(x, 1)
    rs.network.register(f)
    links = chain(rs.network, f)
    assert links[x] == (Fraction(1, 2), Fraction(1, 2), Fraction(1, 2))  # (x + 1) div 2 = (x + 1)/2 for odd x


# ---------------------------------------------------------------- verdicts


def test_factor_of_a_bounded_product_with_a_large_cofactor_is_bounded():
    facts = sizes(y, z, at_least=0) + [T.ge(x, k(2)), T.le(T.mul(x, y, z), k(100))]
    guard = T.le(T.mul(y, z), k(50))
    assert decide(facts, guard) is Truth.TRUE and z3_implies(facts, guard)


def test_cofactor_that_may_be_one_does_not_halve_the_bound():
    facts = sizes(y, z, at_least=0) + [T.ge(x, k(1)), T.le(T.mul(x, y, z), k(100))]
    guard = T.le(T.mul(y, z), k(50))
    assert decide(facts, guard) is Truth.UNKNOWN and not z3_implies(facts, guard)


def test_halved_sizes_have_a_quarter_of_the_product():
    facts = sizes(x, y) + [T.le(T.mul(x, y), k(400))]
    guard = T.le(T.mul(T.div(x, k(2)), T.div(y, k(2))), k(100))
    assert decide(facts, guard) is Truth.TRUE and z3_implies(facts, guard)


def test_parity_makes_a_rounded_up_half_exact():
    odd = [T.eq(T.mod(v, k(2)), k(1)) for v in (x, y)]
    facts = sizes(x, y) + odd + [T.le(T.mul(x, y), k(400))]
    f = lambda v: T.sub(half(v, 1), k(1))  # (v + 1) div 2 - 1 = (v - 1)/2 for odd v
    guard = T.le(T.mul(f(x), f(y)), k(100))
    assert decide(facts, guard) is Truth.TRUE and z3_implies(facts, guard)


def test_rounded_up_half_without_parity_is_not_a_quarter():
    facts = sizes(x, y) + [T.le(T.mul(x, y), k(400))]
    guard = T.le(T.mul(half(x, 1), half(y, 1)), k(100))  # x = 1, y = 399: 1 * 200
    assert decide(facts, guard) is Truth.UNKNOWN and not z3_implies(facts, guard)


def test_chained_halves_are_bounded_through_the_intermediate_product():
    even = [T.eq(T.mod(half(v, 1), k(2)), k(0)) for v in (x, y)]
    facts = sizes(x, y, at_least=2) + even + [T.le(T.mul(half(x, 1), half(y, 1)), k(400))]
    guard = T.le(T.mul(half(half(x, 1), 1), half(half(y, 1), 1)), k(100))
    assert decide(facts, guard) is Truth.TRUE and z3_implies(facts, guard)


def test_lower_bound_of_a_product_of_rounded_up_halves():
    facts = sizes(x, y) + [T.ge(T.mul(x, y), k(100))]
    guard = T.ge(T.mul(half(x, 2), half(y, 2)), k(25))  # (v + 2) div 2 >= v/2
    assert decide(facts, guard) is Truth.TRUE and z3_implies(facts, guard)


def test_lower_bound_needs_the_rounding_to_go_up():
    facts = sizes(x, y) + [T.ge(T.mul(x, y), k(100))]
    guard = T.ge(T.mul(T.div(x, k(2)), T.div(y, k(2))), k(25))  # x = 1: 0 * ...
    assert decide(facts, guard) is Truth.UNKNOWN and not z3_implies(facts, guard)


# ---------------------------------------------------------------- soundness against brute force

BOX = range(-2, 41)
PARTS = st.tuples(st.integers(-3, 3), st.sampled_from([1, 2, 3, 4]), st.integers(-3, 3))


def _factor(v, part):
    c, d, shift = part
    return T.add(T.div(T.add(v, k(c)), k(d)), k(shift))


def _value(part, n):
    c, d, shift = part
    return (n + c) // d + shift  # Euclidean for d > 0


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(-1, 3), st.integers(-1, 3), st.integers(0, 1200), st.booleans(), st.sampled_from([None, 0, 1]),
       PARTS, PARTS, st.integers(0, 400), st.booleans())
def test_verdicts_hold_at_every_point_satisfying_the_facts(lo_x, lo_y, n, fact_upper, parity, px, py, m, upper):
    facts = [T.ge(x, k(lo_x)), T.ge(y, k(lo_y)), T.le(x, k(40)), T.le(y, k(40)),
             (T.le if fact_upper else T.ge)(T.mul(x, y), k(n))]
    if parity is not None:
        facts.append(T.eq(T.mod(x, k(2)), k(parity)))
    guard = (T.le if upper else T.ge)(T.mul(_factor(x, px), _factor(y, py)), k(m))
    verdict = decide(facts, guard)
    if verdict is Truth.UNKNOWN:
        return
    for a, b in itertools.product(BOX, BOX):
        if a < lo_x or b < lo_y or (a * b > n if fact_upper else a * b < n):
            continue
        if parity is not None and a % 2 != parity:
            continue
        p = _value(px, a) * _value(py, b)
        holds = p <= m if upper else p >= m
        assert holds is (verdict is Truth.TRUE), (verdict, a, b, to_smtlib(guard))
