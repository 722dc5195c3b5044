"""The one search engine (``absint.search.engine``): a point is only ever returned after the
caller's check accepts it; on small boxes it finds a point whenever brute force and Z3 do;
each strategy is reached in its order; the budget is kept; the reasoner is left as it was."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.lang.evaluator import truth_at
from absint.lang.printer import to_smtlib
from absint.reasoning.reasoner import Reasoner
from absint.search import engine
from benchmarks.generators import PRELUDE_TEXT
from term_strategies import int_terms

z3 = pytest.importorskip("z3")

NAMES = ("x", "y")
VARS = [T.var(n, T.INT) for n in NAMES]
k = T.const
SETTINGS = settings(max_examples=80, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
COMPARE = st.sampled_from([T.le, T.lt, T.ge, T.gt, T.eq, T.ne])
ATOMS = st.tuples(COMPARE, int_terms(VARS, max_leaves=4), int_terms(VARS, max_leaves=4)).map(
    lambda p: p[0](p[1], p[2]))
#: each variable in a box of at most 9 values, then one to three constraints
PROGRAMS = st.tuples(st.tuples(*[st.integers(-4, 4) for _ in VARS]), st.lists(ATOMS, min_size=1, max_size=3))


def _box(lows):
    return [T.and_(T.ge(v, k(lo)), T.le(v, k(lo + 8))) for v, lo in zip(VARS, lows)]


def _points(lows):
    return [dict(zip(NAMES, p)) for p in itertools.product(*[range(lo, lo + 9) for lo in lows])]


def _z3_sat(facts) -> bool:
    text = PRELUDE_TEXT + "".join(f"(declare-const {n} Int)\n" for n in NAMES)
    text += "".join(f"(assert {to_smtlib(f)})\n" for f in facts)
    s = z3.Solver()
    s.set("timeout", 10_000)
    s.add(z3.parse_smt2_string(text))
    r = s.check()
    assert r != z3.unknown
    return r == z3.sat


def _holds(facts):
    return lambda p: all(truth_at(f, p) is True for f in facts)


def _find(facts, hints=None, accept=None, **budget):
    r = Reasoner()
    for f in facts:
        r.assume(f)
    return engine.find_point(r, engine.Query(accept or _holds(facts), tuple(VARS), hints or {}), **budget)


def _check_small_box(program, accept=None):
    """The engine finds a point iff brute force does (a box of 81 points), and only a solution."""
    lows, atoms = program
    facts = _box(lows) + atoms
    found = _find(facts, {"x": lows[0] + 4, "y": lows[1] + 4}, accept, points=400, seconds=2.0)
    brute = [p for p in _points(lows) if _holds(facts)(p)]
    if brute:
        assert _z3_sat(facts)  # (Z3 may find more: x div 0 has a value for it, none for the evaluator)
    if found.point is not None:
        assert found.point in brute, f"{found.point} is no solution"
    else:
        assert not brute, f"brute force finds {brute[0]}, the engine none ({found.why})"


@SETTINGS
@given(PROGRAMS)
def test_on_small_boxes_a_point_is_found_whenever_one_exists(program):
    _check_small_box(program)


def test_a_planted_check_that_accepts_anything_is_caught():
    """The property with the caller's check replaced by one that accepts every candidate."""
    x, y = VARS
    program = ([0, 0], [T.eq(T.add(x, y), k(13)), T.eq(T.mod(x, k(3)), k(2))])
    _check_small_box(program)
    with pytest.raises(AssertionError, match="is no solution"):
        _check_small_box(program, accept=lambda p: True)


def test_strategies_are_tried_in_order():
    x, y = VARS
    # the example point itself
    assert _find([T.ge(x, k(2))], {"x": 5, "y": 0}).strategy == "example"
    # one symbol moved by one from the example
    found = _find([T.eq(T.mod(x, k(2)), k(0))], {"x": 5, "y": 0})
    assert found.strategy == "neighbours" and found.point == {"x": 4, "y": 0}
    # the example clipped into the bounds propagation leaves
    found = _find([T.ge(x, k(900)), T.le(x, k(1000)), T.eq(T.mod(x, k(97)), k(30))], {"x": 5, "y": 0})
    assert found.point == {"x": 903, "y": 0} and found.strategy == "example"
    # a labelling: x at its hint clipped to its low end, then y forced by propagation
    found = _find([T.ge(x, k(900)), T.le(x, k(1000)), T.eq(T.add(x, y), k(2000))], {"x": 5, "y": 0})
    assert found.point == {"x": 900, "y": 1100} and found.strategy == "boundary"
    # an unbacked symbol (no example value) moved below zero by the draws or labellings
    found = _find([T.le(y, k(-50))], {"x": 1})
    assert found.point["y"] <= -50 and found.strategy in ("example", "boundary", "draws")


def test_budget_and_contradiction_and_the_reasoner_left_as_it_was():
    x, y = VARS
    facts = [T.ge(x, k(0)), T.le(x, k(10)), T.eq(T.mul(x, y), k(7919 * 7907))]  # no small solution
    r = Reasoner()
    for f in facts:
        r.assume(f)
    before = (r.bounds(x), r.bounds(y), len(r.facts))
    found = engine.find_point(r, engine.Query(_holds(facts), tuple(VARS), {"x": 3, "y": 3}), points=50)
    assert found.point is None and found.tried == 50 and found.why == "budget spent: 50 points checked"
    assert (r.bounds(x), r.bounds(y), len(r.facts)) == before
    r.assume(T.lt(x, k(0)))
    assert engine.find_point(r, engine.Query(lambda p: True, tuple(VARS))).why == "the conditions are contradictory"


def test_counterexample_checks_the_goal_and_the_facts():
    x, y = VARS
    facts = [T.ge(x, k(1)), T.ge(y, k(1))]
    r = Reasoner()
    for f in facts:
        r.assume(f)
    goal = T.not_(T.le(T.add(x, y), k(10)))
    p = engine.counterexample(r, facts, goal, {"x": 3, "y": 4})
    assert p is not None and engine.holds(facts, goal, p)
    assert engine.counterexample(r, facts, T.lt(x, k(1)), {"x": 3}) is None  # refuted: none exists
