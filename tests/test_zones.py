"""Difference bounds (absint.reasoning.zones): long chains by shortest paths, against Z3."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Layer, Truth
from z3_check import z3_implies

V = [T.var(f"v{i}", T.INT) for i in range(6)]
k = T.const


def test_a_long_chain_is_transitive():
    us = [T.var(f"u{i}", T.INT) for i in range(200)]
    r = Reasoner()
    for a, b in zip(us, us[1:]):
        r.assume(T.le(a, b))
    v = r.decide(T.le(us[0], us[-1]))
    assert v.truth is Truth.TRUE and v.by is Layer.ZONES
    assert r.decide(T.lt(us[-1], us[0])).truth is Truth.FALSE
    assert r.decide(T.le(us[-1], us[0])).truth is Truth.UNKNOWN  # all equal is possible, not forced


def test_offsets_and_bounds_combine_through_zero():
    r = Reasoner()
    r.assume(T.le(T.add(V[0], k(3)), V[1]))   # v1 - v0 >= 3
    r.assume(T.le(V[1], T.add(V[2], k(-2))))  # v2 - v1 >= 2
    r.assume(T.le(V[3], k(4)))
    r.assume(T.ge(V[0], k(0)))
    assert r.decide(T.ge(T.sub(V[2], V[0]), k(5))).truth is Truth.TRUE
    assert r.decide(T.eq(V[2], V[0])).truth is Truth.FALSE
    assert r.decide(T.le(T.sub(V[3], V[2]), k(-1))).truth is Truth.TRUE  # v3 <= 4 < 5 <= v2


DIFFS = st.tuples(st.sampled_from(range(6)), st.sampled_from(range(6)), st.integers(-3, 4)).filter(
    lambda t: t[0] != t[1])



@st.composite
def programs(draw):
    """A chain ``v_p0 - v_p1 <= c1, v_p1 - v_p2 <= c2, ...`` (so that long paths exist), more
    differences and bounds, and a guard on the chain's ends or on any pair."""
    order = draw(st.permutations(range(6)))[:draw(st.integers(2, 6))]
    chain = [(a, b, draw(st.integers(-3, 4))) for a, b in zip(order, order[1:])]
    diffs = chain + draw(st.lists(DIFFS, max_size=5))
    bounds = draw(st.lists(st.tuples(st.sampled_from(range(6)), st.integers(-5, 5), st.booleans()), max_size=3))
    ends = (order[0], order[-1], draw(st.integers(-6, 8)))
    guard = draw(st.sampled_from([ends, ends[1::-1] + ends[2:], draw(DIFFS)]))
    return diffs, bounds, guard, draw(st.sampled_from(["le", "lt", "eq", "ne"]))


PROGRAMS = programs()

DECIDED: list[int] = [0]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(PROGRAMS)
def test_difference_verdicts_agree_with_z3(program):
    diffs, bounds, (i, j, c), kind = program
    facts = [T.le(T.sub(V[a], V[b]), k(d)) for a, b, d in diffs]
    facts += [T.le(V[a], k(v)) if upper else T.ge(V[a], k(v)) for a, v, upper in bounds]
    guard = {"le": T.le, "lt": T.lt, "eq": T.eq, "ne": T.ne}[kind](T.sub(V[i], V[j]), k(c))
    r = Reasoner(relational=False)
    for f in facts:
        r.assume(f)
    if r.contradiction:
        return
    v = r.decide(guard)
    DECIDED[0] += v.by is Layer.ZONES
    if v.truth is Truth.TRUE:
        assert z3_implies(facts, guard), (facts, guard)
    elif v.truth is Truth.FALSE:
        assert z3_implies(facts, T.not_(guard)), (facts, guard)


def test_the_random_programs_reached_the_zone_layer():
    assert DECIDED[0] > 10, DECIDED  # runs after the property above (file order)
