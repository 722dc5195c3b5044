"""Miné's re-reading of a sum (absint.reasoning.linearize): the value it gives holds at every
point of a box the facts allow, on random sums of quotients by constants whose dividends
share atoms (exact remainders where a congruence fixes them); the verdicts it leads to agree
with Z3; it decides PyTorch's view question; and two planted errors (a remainder taken as
fixed without a congruence; quotients unfolded with the remainder dropped) are caught."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from absint.lang import terms as T
from absint.lang.kinds import LIN
from absint.lang.printer import to_smtlib
from absint.reasoning import linearize
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Layer, Truth
from verdict_checks import check_verdicts, value_at

I = T.INT
a, b = T.var("a", I), T.var("b", I)
c = T.const
LO, HI = -4, 9
POINTS = [{"a": p, "b": q} for p, q in itertools.product(range(LO, HI + 1), repeat=2)]

DIVIDENDS = st.sampled_from([a, b, T.mul(a, b), T.add(a, b), T.sub(T.scale(a, 2), c(1)), T.add(T.mul(a, b), c(3))])
QUOTIENTS = st.tuples(st.integers(-3, 3), DIVIDENDS, st.sampled_from([2, 3, 4, 8])).map(
    lambda p: T.scale(T.div(p[1], c(p[2])), p[0]))
SUMS = st.tuples(st.lists(QUOTIENTS, min_size=1, max_size=3), st.integers(-2, 2), st.integers(-2, 2),
                 st.integers(-5, 5)).map(lambda p: T.add(*p[0], T.scale(a, p[1]), T.scale(b, p[2]), c(p[3])))
#: bounds in the box, and sometimes a congruence that fixes a remainder
FACTS = st.tuples(st.integers(LO, 2), st.integers(0, 7), st.integers(LO, 2), st.integers(0, 7),
                  st.sampled_from([None, (a, 2), (a, 4), (b, 8), (T.mul(a, b), 4)])).map(
    lambda p: [T.ge(a, c(p[0])), T.le(a, c(p[0] + p[1])), T.ge(b, c(p[2])), T.le(b, c(p[2] + p[3]))]
    + ([] if p[4] is None else [T.eq(T.mod(p[4][0], c(p[4][1])), T.ZERO)]))
READ = [0]


def check_value_holds(facts, s) -> bool:
    """The re-read value of ``s`` contains ``s`` at every point of the box the facts allow;
    returns whether there was a re-read value to check."""
    r = Reasoner(cases=None)
    for f in facts:
        r.assume(f)
    t = r.normalize(s)
    if r.contradiction or t.kind != LIN:
        return False
    r.network.register(t)
    v = r.linearized_value(t)
    if v is None:
        return False
    lo, hi = r.network.domain.bounds(v)
    for p in POINTS:
        if all(value_at(f, p) is True for f in facts):
            x = value_at(s, p)
            assert x is None or lo <= Fraction(x) <= hi, f"{to_smtlib(t)} = {x} at {p}, outside [{lo}, {hi}]"
    return True


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(FACTS, SUMS)
def test_the_re_read_value_holds_at_every_point(facts, s):
    READ[0] += check_value_holds(facts, s)


def test_the_random_sums_were_re_read():
    assert READ[0] >= 20, READ  # runs after the property above (file order)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(FACTS, SUMS, st.sampled_from([T.le, T.lt, T.eq, T.ne]))
def test_verdicts_hold_by_brute_force_and_z3(facts, s, compare):
    check_verdicts(facts, compare(s, T.ZERO), POINTS)


S30, S0 = T.var("s30", I), T.var("s0", I)
#: PyTorch's test_inductor_view_issue_172693: s30 a multiple of 8 other than 8, s0 >= 2
VIEW = [T.ge(S30, c(2)), T.ge(S0, c(2)), T.eq(T.mod(S30, c(8)), T.ZERO), T.ne(S30, c(8))]
BELOW = T.lt(T.div(S30, c(8)), T.div(T.mul(S30, S0), c(8)))


def test_two_quotients_that_share_a_dividend_atom_are_read_together():
    """``s30 div 8 < (s30*s0) div 8``: each quotient alone shares nothing with the sum."""
    r = Reasoner(cases=None)
    for f in VIEW:
        r.assume(f)
    assert r.decide(BELOW).by is Layer.INTERVAL and r.decide(BELOW).truth is Truth.TRUE
    question = T.ne(T.mod(T.div(S30, c(8)), T.div(T.mul(S30, S0), c(8))), T.ZERO)
    assert r.decide(question).truth is Truth.TRUE  # a mod b = a once 0 <= a < b is read


def test_planted_remainder_fixed_without_a_congruence_is_caught(monkeypatch):
    monkeypatch.setattr(linearize, "remainder_range", lambda network, arg, d: (0, 0))
    with pytest.raises(AssertionError, match="outside"):
        check_value_holds([T.ge(a, c(0)), T.le(a, c(9))], T.sub(T.div(a, c(4)), T.scale(a, 1)))


def test_planted_remainder_dropped_is_caught(monkeypatch):
    real = linearize.remainder_range
    monkeypatch.setattr(linearize, "remainder_range", lambda network, arg, d: (real(network, arg, d)[0],) * 2)
    with pytest.raises(AssertionError, match="outside"):
        check_value_holds([T.ge(a, c(1)), T.le(a, c(9))], T.sub(T.div(T.add(a, c(1)), c(3)), a))
