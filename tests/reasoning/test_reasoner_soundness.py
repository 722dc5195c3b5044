"""Soundness of the whole reasoner (all layers): random small programs, every verdict checked.

Two oracles:
* brute force: a TRUE must hold at every point of a box that satisfies the facts,
  a FALSE at none (points where a term is undefined, ``x div 0``, are skipped:
  SMT-LIB leaves those values free, so they prove nothing either way);
* Z3, where installed: TRUE means facts ∧ ¬guard is unsat, FALSE means facts ∧ guard
  is unsat, with SMT-LIB's own semantics for division by zero.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.lang.evaluator import NotEvaluable, evaluate
from absint.lang.printer import to_smtlib
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Truth
from term_strategies import programs, program_text

NAMES = ("x", "y", "z")
VARS = [T.var(n, T.INT) for n in NAMES]
BOX = range(-5, 6)
POINTS = [dict(zip(NAMES, p)) for p in itertools.product(BOX, repeat=len(NAMES))]
PROGRAMS = programs(VARS)


def _value(term, point):
    try:
        return evaluate(term, point)
    except NotEvaluable:
        return None


def _verdicts(facts, guards):
    r = Reasoner()
    for f in facts:
        r.assume(f)
    return r, [r.decide(g) for g in guards]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PROGRAMS)
def test_verdicts_hold_at_every_point_of_the_box_that_satisfies_the_facts(program):
    bounds, facts, guards = program
    facts = bounds + facts
    r, verdicts = _verdicts(facts, guards)
    models = [p for p in POINTS if all(_value(f, p) is True for f in facts)]
    if r.contradiction:
        assert not models, "facts reported contradictory but a point satisfies them"
        return
    for g, v in zip(guards, verdicts):
        if v.truth is Truth.UNKNOWN:
            continue
        expected = v.truth is Truth.TRUE
        for p in models:
            got = _value(g, p)
            assert got is None or got is expected, (
                f"{v} for {to_smtlib(g)} given {[to_smtlib(f) for f in facts]}, but at {p} it is {got}")




def _z3_unsat(facts, extra) -> bool | None:
    import z3 as _z3

    text = program_text(VARS, facts + [extra])
    s = _z3.Solver()
    s.set("timeout", 2000)
    s.add(_z3.parse_smt2_string(text))
    r = s.check()
    if r == _z3.unsat:
        return True
    if r == _z3.sat:
        return False
    return None


def _assert_z3_agrees(facts, guards) -> None:
    """Every TRUE/FALSE verdict (and a reported contradiction) must survive Z3."""
    r, verdicts = _verdicts(facts, guards)
    if r.contradiction:
        assert _z3_unsat(facts, T.TRUE) is not False, "facts reported contradictory but Z3 finds a model"
        return
    for g, v in zip(guards, verdicts):
        if v.truth is Truth.TRUE:
            assert _z3_unsat(facts, T.not_(g)) is not False, f"TRUE ({v.by}) but Z3 refutes {to_smtlib(g)}"
        elif v.truth is Truth.FALSE:
            assert _z3_unsat(facts, g) is not False, f"FALSE ({v.by}) but Z3 satisfies {to_smtlib(g)}"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PROGRAMS)
def test_no_verdict_is_refuted_by_z3(program):
    pytest.importorskip("z3")
    bounds, facts, guards = program
    facts = bounds + facts
    _assert_z3_agrees(facts, guards)


# relational programs: linear facts over several unbounded variables, the polyhedra layer's ground

LIN = st.tuples(st.lists(st.integers(-2, 2), min_size=3, max_size=3), st.integers(-4, 4)).map(
    lambda p: T.add(T.const(p[1]), *(T.scale(v, c) for v, c in zip(VARS, p[0]))))
REL_FACTS = st.lists(st.tuples(st.sampled_from([T.le, T.eq]), LIN).map(lambda p: p[0](p[1], T.ZERO)),
                     min_size=1, max_size=5)
REL_GUARDS = st.lists(st.tuples(st.sampled_from([T.le, T.lt, T.eq, T.ne]), LIN).map(lambda p: p[0](p[1], T.ZERO)),
                      min_size=1, max_size=3)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(REL_FACTS, REL_GUARDS)
def test_relational_verdicts_agree_with_z3(facts, guards):
    pytest.importorskip("z3")
    _assert_z3_agrees(facts, guards)


def test_relational_layer_decides_what_intervals_cannot():
    x, y, z = VARS
    r = Reasoner()
    for f in (T.le(T.add(x, y), z), T.ge(y, T.ZERO)):  # not differences: the zones cannot
        r.assume(f)
    v = r.decide(T.le(x, z))
    assert v.truth is Truth.TRUE and v.by.value == "polyhedra"


def test_difference_chains_are_decided_by_the_zones_before_isl():
    x, y, z = VARS
    r = Reasoner()
    for f in (T.le(x, y), T.le(y, z)):
        r.assume(f)
    v = r.decide(T.le(x, z))
    assert v.truth is Truth.TRUE and v.by.value == "difference-bounds"


def test_sum_of_parts_bounded_by_total():
    u = [T.var(f"u{i}", T.INT) for i in range(3)]
    s0 = T.var("s0", T.INT)
    r = Reasoner()
    for f in [T.ge(a, T.ZERO) for a in u] + [T.eq(T.add(*u), s0)]:
        r.assume(f)
    assert r.decide(T.le(T.add(u[0], u[1]), s0)).truth is Truth.TRUE


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PROGRAMS)
def test_quick_truth_never_contradicts_the_full_truth(program):
    """The unregistered fast path reads the same bounds the registered key would start
    from: when it answers, the full path (which may know more) gives the same answer."""
    bounds, facts, guards = program
    r = Reasoner(relational=False)
    for f in bounds + facts:
        r.assume(f)
    if r.contradiction:
        return
    for g in guards:
        for c in (g.args if g.kind in ("and", "or") else (g,)):
            n = r.normalize(c)
            quick = r.entailment.quick_truth(n)
            full = r.truth(n)
            if r.contradiction:
                return
            if quick is not None:
                assert full is quick, (to_smtlib(n), quick, full)
