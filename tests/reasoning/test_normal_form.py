"""Layer 0's conditional rewrites of division by a symbol (absint.reasoning.normal_form), each with the
case where its side condition is not implied, checked against Z3."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Truth
from z3_check import z3_implies

x, m, s = (T.var(n, T.INT) for n in ("x", "m", "s"))
k = T.const


def reasoner(facts) -> Reasoner:
    rs = Reasoner(relational=False)
    for f in facts:
        rs.assume(f)
    return rs


def decide(facts, guard) -> Truth:
    return reasoner(facts).decide(guard).truth


def implied(facts, guard) -> bool:
    """absint's verdict, which must agree with Z3's."""
    truth = decide(facts, guard)
    assert truth is not Truth.FALSE
    assert z3_implies(facts, guard) is (truth is Truth.TRUE)
    return truth is Truth.TRUE


# ---------------------------------------------------------------- x div (x div m)

EIGHTHS = T.div(x, k(8))


def test_dividing_by_an_exact_constant_quotient_gives_the_constant():
    facts = [T.ge(x, k(1)), T.eq(x, T.mul(k(8), EIGHTHS))]
    assert implied(facts, T.eq(T.div(x, EIGHTHS), k(8)))
    assert implied(facts, T.eq(T.mod(x, EIGHTHS), k(0)))
    assert implied(facts, T.eq(T.div(T.mul(k(3), x), EIGHTHS), k(24)))


def test_quotient_divisor_rule_knows_divisibility_from_a_mod_fact():
    facts = [T.ge(x, k(1)), T.eq(T.mod(x, k(8)), k(0))]
    assert reasoner(facts).normalize(T.div(x, EIGHTHS)) is k(8)


def test_inexact_quotient_is_not_the_divisor():
    facts = [T.ge(x, k(8))]  # x = 9: 9 div (9 div 8) = 9
    assert not implied(facts, T.eq(T.div(x, EIGHTHS), k(8)))
    assert not implied(facts, T.eq(T.mod(x, EIGHTHS), k(0)))


def test_quotient_that_may_be_zero_leaves_the_division_open():
    facts = [T.ge(x, k(0)), T.eq(T.mod(x, k(8)), k(0))]  # x = 0: 0 div 0 is unconstrained
    assert not implied(facts, T.eq(T.div(x, EIGHTHS), k(8)))
    assert not implied(facts, T.eq(T.mod(x, EIGHTHS), k(0)))


def test_dividing_by_an_exact_symbolic_quotient_gives_the_symbol():
    q = T.div(x, m)
    facts = [T.ge(m, k(1)), T.le(m, k(4)), T.ge(x, k(4)), T.eq(x, T.mul(m, q))]  # x div m >= 1
    assert implied(facts, T.eq(T.div(x, q), m))
    assert implied(facts, T.eq(T.mod(x, q), k(0)))


def test_inexact_symbolic_quotient_is_not_the_divisor():
    q = T.div(x, m)
    facts = [T.ge(x, k(1)), T.ge(m, k(1)), T.le(m, x)]  # x = 3, m = 2: 3 div 1 = 3
    assert not implied(facts, T.eq(T.div(x, q), m))


# ---------------------------------------------------------------- b * (a div b)


def test_divisor_times_exact_quotient_is_the_dividend():
    facts = [T.ge(m, k(1)), T.eq(T.mod(x, m), k(0))]
    assert implied(facts, T.eq(T.mul(m, T.div(x, m)), x))
    twice = T.mul(k(2), m)
    facts = [T.ge(m, k(1)), T.eq(T.mod(x, twice), k(0))]
    assert implied(facts, T.eq(T.mul(m, T.div(x, twice)), T.div(x, k(2))))


def test_divisor_times_inexact_quotient_is_not_the_dividend():
    facts = [T.ge(m, k(1))]  # x = 1, m = 2: 2 * 0 != 1
    assert not implied(facts, T.eq(T.mul(m, T.div(x, m)), x))


def test_divisor_that_may_be_zero_times_quotient_is_not_the_dividend():
    facts = [T.ge(m, k(0)), T.eq(T.mod(x, m), k(0))]  # m = 0: x mod 0 and x div 0 are free
    assert not implied(facts, T.eq(T.mul(m, T.div(x, m)), x))


# ---------------------------------------------------------------- k*(a div c) inside a sum


def test_multiple_of_an_exact_quotient_in_a_sum_is_the_dividend():
    """PyTorch's view: ``s36 != s30*s0`` and ``s30 % 8 == 0`` recorded, then asked
    ``s36 - 8*(s0*(s30 // 8)) != 0`` (test_inductor_view_issue_172693), the product's
    remainder known as well (there from ``(s64*s30*s0) % (8*s64) == 0``)."""
    product = T.mul(s, m)
    facts = [T.ge(m, k(2)), T.ge(s, k(2)), T.ne(x, product), T.eq(T.mod(s, k(8)), k(0)),
             T.eq(T.mod(product, k(8)), k(0))]
    assert implied(facts, T.ne(T.sub(x, T.scale(T.mul(m, T.div(s, k(8))), 8)), k(0)))
    assert implied(facts, T.eq(T.add(x, T.scale(T.div(s, k(8)), 16)), T.add(x, T.scale(s, 2))))


def test_multiple_of_an_inexact_quotient_in_a_sum_is_open():
    facts = [T.ge(s, k(2)), T.eq(T.mod(s, k(4)), k(0))]  # s = 4: 8*(4 div 8) = 0 != 4
    assert not implied(facts, T.eq(T.add(x, T.scale(T.div(s, k(8)), 8)), T.add(x, s)))



def test_a_multiple_of_a_quotient_among_many_lengths_is_found():
    """A long sum whose first quotient is inexact (3*(s div 8)) and a later one exact
    (8*(s div 8)): the matcher reads the kinds in C and tries each quotient in order."""
    us = [T.var(f"u{i}", T.INT) for i in range(12)]
    facts = [T.ge(s, k(2)), T.eq(T.mod(s, k(8)), k(0))] + [T.ge(u, k(0)) for u in us]
    inexact = T.scale(T.div(s, k(3)), 2)
    form = T.add(*us, inexact, T.scale(T.div(s, k(8)), 8))
    r = Reasoner()
    for f in facts:
        r.assume(f)
    assert r.normalize(form) is r.normalize(T.add(*us, inexact, s))  # the rule itself, no later layer
    assert implied(facts, T.eq(form, T.add(*us, inexact, s)))
    assert not implied(facts[:1] + facts[2:], T.eq(form, T.add(*us, inexact, s)))


# ---------------------------------------------------------------- a div a


def test_non_zero_sum_divided_by_itself_is_one():
    d = T.sub(s, k(1))
    facts = [T.ge(s, k(2))]
    assert implied(facts, T.eq(T.mod(d, d), k(0)))
    assert implied(facts, T.eq(T.div(d, d), k(1)))


def test_sum_that_may_be_zero_divided_by_itself_is_open():
    d = T.sub(s, k(1))
    facts = [T.ge(s, k(1))]  # s = 1: 0 mod 0 is unconstrained
    assert not implied(facts, T.eq(T.mod(d, d), k(0)))


# ---------------------------------------------------------------- random programs against Z3

DIVISORS = st.sampled_from([k(2), k(3), k(4), k(8), m, m, m, m])  # the symbolic rules need m


def _facts(draw):
    d = draw(DIVISORS)
    facts = [T.ge(x, k(draw(st.integers(-4, 16)))), T.le(x, k(40)),
             T.ge(m, k(draw(st.sampled_from([1, 1, 1, 0, -1])))), T.le(m, k(draw(st.integers(2, 5)))),
             T.ge(s, k(draw(st.integers(0, 3)))), T.le(s, k(20))]
    exactness = draw(st.sampled_from(["product", "mod", "mod-scaled", "mod-scaled", "none"]))
    if exactness == "product":
        facts.append(T.eq(x, T.mul(d, T.div(x, d))))
    elif exactness == "mod":
        facts.append(T.eq(T.mod(x, d), k(0)))
    elif exactness == "mod-scaled":
        facts.append(T.eq(T.mod(x, T.scale(d, 2)), k(0)))
    return d, facts


@st.composite
def programs(draw):
    d, facts = _facts(draw)
    c = k(draw(st.integers(1, 3)))
    q = T.div(x, d)
    sides = [
        (T.div(T.mul(c, x), q), T.mul(c, d)),                     # (c*x) div (x div d) = c*d
        (T.mod(T.mul(c, x), q), k(0)),                            # (c*x) mod (x div d) = 0
        (T.mul(d, q), x),                                         # d*(x div d) = x
        (T.mul(d, T.div(x, T.scale(d, 2))), T.div(x, k(2))),      # d*(x div 2d) = x div 2
        (T.div(T.sub(s, k(1)), T.sub(s, k(1))), k(1)),            # (s-1) div (s-1) = 1
        (T.mod(T.sub(s, k(1)), T.sub(s, k(1))), k(0)),            # (s-1) mod (s-1) = 0
    ]
    lhs, rhs = draw(st.sampled_from(sides))
    rhs = T.add(rhs, k(draw(st.sampled_from([0, 0, 0, 1, -1]))))
    compare = draw(st.sampled_from([T.eq, T.ne, T.le, T.ge]))
    return facts, compare(lhs, rhs)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_every_verdict_on_the_rewritten_shapes_agrees_with_z3(program):
    facts, guard = program
    if z3_implies(facts, T.FALSE):
        return  # contradictory facts: every verdict is vacuously right
    truth = decide(facts, guard)
    if truth is Truth.TRUE:
        assert z3_implies(facts, guard), f"TRUE but Z3 has a counterexample: {guard}"
    elif truth is Truth.FALSE:
        assert z3_implies(facts, T.not_(guard)), f"FALSE but Z3 has a model: {guard}"
