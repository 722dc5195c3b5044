"""A disjunction the facts keep decides a question whose disjuncts include all of its own.

PyTorch asks its own runtime asserts again as questions (``((u0 >= 0) | (s86 + u0 <= 0)) &
...``, PyTorch's test_narrow_unbacked_start): the layers read one disjunct at a time and
left them open. Checked here by brute force over a box and by Z3; the planted error (a
question whose disjuncts are a *subset* of a kept clause's, which does not follow) is
caught by the same oracles.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.lang.evaluator import evaluate
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Truth

NAMES = ("x", "y", "z")
VARS = [T.var(n, T.INT) for n in NAMES]
BOX = [dict(zip(NAMES, p)) for p in itertools.product(range(-4, 5), repeat=3)]
SETTINGS = settings(max_examples=80, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

LINEAR = st.tuples(st.lists(st.integers(-2, 2), min_size=3, max_size=3), st.integers(-4, 4)).map(
    lambda p: T.add(*(T.mul(T.const(k), v) for k, v in zip(p[0], VARS)), T.const(p[1])))
ATOMS = st.tuples(st.sampled_from([T.le, T.lt, T.eq, T.ne]), LINEAR).map(lambda p: p[0](p[1], T.ZERO))
CLAUSES = st.lists(ATOMS, min_size=2, max_size=3)


@st.composite
def programs(draw):
    """Box bounds, kept clauses, and questions built from them: a clause with more
    disjuncts (follows), one disjunct of it (does not, in general), a conjunction of
    clauses, or a fresh clause."""
    facts = [T.and_(T.ge(v, T.const(-4)), T.le(v, T.const(4))) for v in VARS]
    clauses = draw(st.lists(CLAUSES, min_size=1, max_size=3))
    facts += [T.or_(*c) for c in clauses]
    questions = []
    for c in clauses:
        extra = draw(st.lists(ATOMS, max_size=2))
        order = draw(st.permutations(c + extra))
        questions += [T.or_(*order), T.or_(*draw(st.permutations(c))[:-1]) if len(c) > 2 else c[0]]
    questions.append(T.and_(*(T.or_(*c) for c in clauses)) if len(clauses) > 1 else T.or_(*draw(CLAUSES)))
    return facts, questions


def _holds(term, point) -> bool:
    return evaluate(term, point) is True


@SETTINGS
@given(programs())
def test_kept_clauses_decide_only_what_follows_by_brute_force(program):
    facts, questions = program
    r = Reasoner()
    for f in facts:
        r.assume(f)
    if r.contradiction:
        return
    models = [p for p in BOX if all(_holds(f, p) for f in facts)]
    for q in questions:
        v = r.decide(q)
        if v.truth is Truth.TRUE:
            assert all(_holds(q, p) for p in models), (q, facts)
        elif v.truth is Truth.FALSE:
            assert not any(_holds(q, p) for p in models), (q, facts)


def test_a_fact_asked_again_is_true_and_a_part_of_it_is_not_decided():
    """PyTorch's test_narrow_unbacked_start, in small: the assert asked as it was made."""
    u0, s = T.var("u0", T.INT), T.var("s86", T.INT)
    clause = [T.or_(T.ge(u0, T.ZERO), T.le(T.add(s, u0), T.ZERO)),
              T.or_(T.lt(u0, T.ZERO), T.le(T.add(s, u0), T.const(6)))]
    r = Reasoner()
    for f in (T.ge(s, T.ZERO), T.ge(u0, T.const(-6)), T.le(u0, T.const(6)), *clause):
        r.assume(f)
    assert r.decide(T.and_(*clause)).truth is Truth.TRUE
    assert r.decide(T.or_(T.le(T.add(s, u0), T.const(6)), T.lt(u0, T.ZERO), T.eq(s, T.const(3)))).truth is Truth.TRUE
    assert r.decide(T.ge(u0, T.ZERO)).truth is Truth.UNKNOWN


def test_kept_clauses_agree_with_z3():
    z3 = pytest.importorskip("z3")
    from absint.lang.printer import to_smtlib

    @SETTINGS
    @given(programs())
    def check(program):
        facts, questions = program
        r = Reasoner()
        for f in facts:
            r.assume(f)
        decls = "".join(f"(declare-const {n} Int)" for n in NAMES)
        for q in questions:
            v = r.decide(q)
            if v.truth is Truth.UNKNOWN:
                continue
            goal = to_smtlib(T.not_(q) if v.truth is Truth.TRUE else q)
            s = z3.Solver()
            s.from_string(decls + "".join(f"(assert {to_smtlib(f)})" for f in facts) + f"(assert {goal})")
            assert s.check() == z3.unsat, (q, facts)

    check()
