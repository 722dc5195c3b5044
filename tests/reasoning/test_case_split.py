"""Bounded case splitting (absint.reasoning.case_split): the identities it exists for, its
verdicts against brute force and Z3 on random programs over min/max/ite/div/mod and on
and/or questions over variables with few values and on comparisons over one variable under a
div/mod/product, and four planted errors (a branch dropped; a value dropped; the divisor-zero
branch dropped; a value the guard allows dropped) that those checks catch."""

from __future__ import annotations

import itertools

import attrs
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from absint.lang import terms as T
from absint.lang.evaluator import NotEvaluable, evaluate
from absint.lang.printer import to_smtlib
from absint.reasoning import case_split
from absint.reasoning.case_split import CaseBudget
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Layer, Truth
from repo_paths import DOCS
from term_strategies import int_terms
from verdict_checks import assert_holds
from z3_check import z3_implies

I = T.INT
a, b, x, y = (T.var(n, I) for n in "abxy")
c = T.const
#: the budget validation uses: constant divisors too, isl in branches, full propagation
WIDE = CaseBudget(constant_divisors=True, relational=True, propagation=None, backoff=False)

IDENTITIES = [
    ("max(a, b) = b under a <= b", [T.le(a, b)], T.eq(T.maximum(a, b), b), CaseBudget()),
    ("max(x, y) = -min(-x, -y)", [], T.eq(T.maximum(x, y), T.neg(T.minimum(T.neg(x), T.neg(y)))), CaseBudget()),
    ("x - (x div y)*y = x mod y for y >= 2", [T.ge(y, c(2))],
     T.eq(T.sub(x, T.mul(T.div(x, y), y)), T.mod(x, y)), CaseBudget()),
    ("(x mod 6) mod 3 = x mod 3", [], T.eq(T.mod(T.mod(x, c(6)), c(3)), T.mod(x, c(3))), WIDE),
    ("min(a, b) + max(a, b) = a + b", [], T.eq(T.add(T.minimum(a, b), T.maximum(a, b)), T.add(a, b)), CaseBudget()),
    ("|x - y| >= 0 as an ite", [], T.ge(T.ite(T.lt(y, x), T.sub(x, y), T.sub(y, x)), T.ZERO), CaseBudget()),
    ("min(max(x, 0), 5) in [0, 5]", [],
     T.and_(T.ge(T.minimum(T.maximum(x, T.ZERO), c(5)), T.ZERO), T.le(T.minimum(T.maximum(x, T.ZERO), c(5)), c(5))),
     CaseBudget()),
    ("x mod y < y for y >= 1 (as x - y*(x div y))", [T.ge(y, T.ONE)],
     T.lt(T.sub(x, T.mul(y, T.div(x, y))), y), CaseBudget()),
    # PyTorch's test_narrow_with_tensor_start asks this of an unbacked start in [-1, 1]
    ("0 <= x <= 1 or x <= -1 under -1 <= x <= 1", [T.ge(x, c(-1)), T.le(x, T.ONE)],
     T.or_(T.and_(T.ge(x, T.ZERO), T.le(x, T.ONE)), T.le(x, c(-1))), CaseBudget()),
    ("x = 2 or x*y = y under 1 <= x <= 2", [T.ge(x, T.ONE), T.le(x, c(2))],
     T.or_(T.eq(x, c(2)), T.eq(T.mul(x, y), y)), CaseBudget()),
]


def _decide(facts, guard, cases):
    r = Reasoner(cases=cases)
    for f in facts:
        r.assume(f)
    return r, r.decide(guard)


@pytest.mark.parametrize("name,facts,guard,cases", IDENTITIES, ids=[i[0] for i in IDENTITIES])
def test_identities_need_and_get_a_split(name, facts, guard, cases):
    _, without = _decide(facts, guard, None)
    r, v = _decide(facts, guard, cases)
    assert v.truth is Truth.TRUE, f"{name}: {v}"
    if without.truth is Truth.UNKNOWN:
        assert v.by is Layer.CASE_SPLIT
    assert z3_implies(facts, guard)


def test_a_split_is_rolled_back():
    """No fresh unknown, binding or branch fact outlives the split that made it."""
    r = Reasoner(cases=WIDE)
    r.assume(T.le(a, b))
    facts, bindings = list(r.facts), dict(r.normal_form.bindings)
    assert r.decide(T.eq(T.maximum(a, b), b)).truth is Truth.TRUE
    assert r.decide(T.eq(T.sub(x, T.mul(T.div(x, y), y)), T.mod(x, y))).truth is Truth.UNKNOWN  # y = 0 open
    assert r.decide(T.eq(T.mod(T.mod(x, c(6)), c(3)), T.mod(x, c(3)))).by is Layer.CASE_SPLIT
    assert r.facts == facts and r.normal_form.bindings == bindings
    keys = [k for k in r.network._val for v in T.free_vars(k) if v.data.startswith("case|")]
    assert keys == []


def test_no_budget_no_split():
    _, v = _decide([], T.eq(T.maximum(x, y), T.neg(T.minimum(T.neg(x), T.neg(y)))), CaseBudget(branches=1))
    assert v.truth is Truth.UNKNOWN


def test_the_divisor_zero_branch_keeps_the_quotient_opaque():
    """Without ``y != 0`` the identity is open: SMT-LIB's ``x div 0``/``x mod 0`` are free."""
    g = T.eq(T.sub(x, T.mul(T.div(x, y), y)), T.mod(x, y))
    _, v = _decide([T.ge(y, c(-3))], g, WIDE)
    assert v.truth is Truth.UNKNOWN
    assert not z3_implies([T.ge(y, c(-3))], g)


# ---------------------------------------------------------------- random programs

NAMES = ("x", "y", "z")
VARS = [T.var(n, I) for n in NAMES]
BOX = range(-4, 5)
POINTS = [dict(zip(NAMES, p)) for p in itertools.product(BOX, repeat=3)]
TERMS = int_terms(VARS, max_leaves=4, with_ite=True)
CMP = st.sampled_from([T.le, T.lt, T.eq, T.ne])
GUARDS = st.tuples(CMP, TERMS, TERMS).map(lambda p: p[0](p[1], p[2]))
BOUNDS = st.lists(st.tuples(st.sampled_from(VARS), st.integers(-4, 2), st.integers(0, 6)), min_size=1, max_size=3).map(
    lambda bs: [T.and_(T.ge(v, c(lo)), T.le(v, c(lo + w))) for v, lo, w in bs])
PROGRAMS = st.tuples(BOUNDS, st.lists(GUARDS, max_size=1), st.lists(GUARDS, min_size=1, max_size=3))


#: a variable against a constant (what a value split settles), or any guard
ATOMIC = st.one_of(st.tuples(CMP, st.sampled_from(VARS), st.integers(-4, 4)).map(lambda p: p[0](p[1], c(p[2]))), GUARDS)
JUNCTIONS = st.tuples(st.sampled_from([T.and_, T.or_]), ATOMIC, ATOMIC).map(lambda p: p[0](p[1], p[2]))
NARROW = st.lists(st.tuples(st.sampled_from(VARS), st.integers(-4, 2), st.integers(0, 3)), min_size=1, max_size=3).map(
    lambda bs: [T.and_(T.ge(v, c(lo)), T.le(v, c(lo + w))) for v, lo, w in bs])


def _value(t, p):
    try:
        return evaluate(t, p)
    except NotEvaluable:
        return None


def check_split_verdicts(facts, guards, use_z3: bool) -> int:
    """Every verdict the split gives (layer case-split) holds at every point of the box that
    satisfies the facts, and Z3 agrees; returns how many guards the split decided."""
    r = Reasoner(cases=WIDE, witnesses=False)  # the split asked of open guards too: its errors show there
    for f in facts:
        r.assume(f)
    decided = 0
    for g in guards:
        v = r.decide(g)
        if v.by is not Layer.CASE_SPLIT:
            continue
        decided += 1
        expected = v.truth is Truth.TRUE
        for p in POINTS:
            if all(_value(f, p) is True for f in facts):
                got = _value(g, p)
                assert got is None or got is expected, f"{v.truth} for {to_smtlib(g)}, but at {p} it is {got}"
        if use_z3:
            claim = g if expected else T.not_(g)
            assert _z3_all_ints(facts, claim), f"{v.truth} for {to_smtlib(g)} refuted by Z3"
    return decided


def _z3_all_ints(facts, claim) -> bool:
    try:
        return z3_implies(facts, claim, timeout_ms=3000)
    except AssertionError:  # Z3 gave no answer: no evidence either way
        return True


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PROGRAMS)
def test_split_verdicts_hold_by_brute_force_and_z3(program):
    bounds, facts, guards = program
    check_split_verdicts(bounds + facts, guards, use_z3=True)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(NARROW, st.lists(JUNCTIONS, min_size=1, max_size=3))
def test_value_split_verdicts_hold_by_brute_force_and_z3(bounds, guards):
    """and/or of comparisons over variables with at most 4 values: the value split's verdicts."""
    JUNCTIONS_SPLIT[0] += check_split_verdicts(bounds, guards, use_z3=True)


JUNCTIONS_SPLIT = [0]


def test_the_random_junctions_had_split_verdicts():
    assert JUNCTIONS_SPLIT[0] >= 3, JUNCTIONS_SPLIT  # runs after the property above (file order)


# hand-picked cases: the split decides each (the property above is not vacuous), and each
# planted error below turns one of them into a wrong verdict
CAUGHT = [
    ([T.le(x, c(3)), T.ge(x, c(-3))], [T.eq(T.minimum(x, y), x)]),
    ([T.le(x, c(3)), T.ge(x, c(-3))], [T.le(T.maximum(x, y), c(3))]),
    ([T.ge(y, c(-2)), T.le(y, c(2))], [T.eq(T.sub(x, T.mul(T.div(x, y), y)), T.mod(x, y))]),
    # open where x = -1 (y free): a value split that drops that branch says TRUE
    ([T.ge(x, c(-1)), T.le(x, T.ONE)], [T.or_(T.ge(x, T.ZERO), T.ge(y, c(100)))]),
]
DECIDED = [([], [T.eq(T.maximum(x, y), T.neg(T.minimum(T.neg(x), T.neg(y))))]),
           # (x - y*(x div y) = x mod y is now read by the expand row: no split needed)
           ([T.ge(y, c(1)), T.le(y, c(3))], [T.eq(T.mod(T.sub(x, T.mod(x, y)), y), T.ZERO)]),
           ([T.ge(x, c(-1)), T.le(x, T.ONE)], [T.or_(T.and_(T.ge(x, T.ZERO), T.le(x, T.ONE)), T.le(x, c(-1)))])]


def test_the_split_decides_the_hand_picked_cases():
    for facts, guards in DECIDED:
        assert check_split_verdicts(facts, guards, use_z3=True) == len(guards)


def _caught(use_z3: bool) -> bool:
    for facts, guards in CAUGHT:
        try:
            check_split_verdicts(facts, guards, use_z3)
        except AssertionError:
            return True
    return False


def test_planted_error_a_branch_dropped_is_caught(monkeypatch):
    real = case_split.cases
    monkeypatch.setattr(case_split, "cases", lambda atom, g, depth: real(atom, g, depth)[:1])
    assert _caught(use_z3=False)


def test_planted_error_a_value_dropped_is_caught(monkeypatch):
    real = case_split.value_cases
    monkeypatch.setattr(case_split, "value_cases", lambda reasoner, g: real(reasoner, g)[1:])
    assert _caught(use_z3=False)


def test_planted_error_divisor_zero_branch_dropped_is_caught_by_z3(monkeypatch):
    real = case_split._division_cases

    def without_zero(atom, g, depth):
        return [k for k in real(atom, g, depth) if k.replaced]  # the y = 0 branch replaces nothing

    monkeypatch.setattr(case_split, "_division_cases", without_zero)
    facts, guards = CAUGHT[2]
    r = Reasoner(cases=WIDE)
    for f in facts:
        r.assume(f)
    assert r.decide(guards[0]).truth is Truth.TRUE  # wrong: y = 0 leaves x div 0 free
    assert _caught(use_z3=True)


# ---------------------------------------------------------------- one variable, the guard's own bounds

u = T.var("u", I)
ONE_VAR_POINTS = [{"u": k} for k in range(-60, 61)]
#: a one-sided or two-sided range of u (wide: the guard, not the facts, narrows it)
ONE_VAR_FACTS = st.tuples(st.integers(-6, 6), st.one_of(st.none(), st.integers(0, 40))).map(
    lambda p: [T.ge(u, c(p[0]))] + ([] if p[1] is None else [T.le(u, c(p[0] + p[1]))]))
#: a nonlinear atom of u (what makes the split apply) in a random term of u
NONLINEAR_OF_U = st.one_of(
    st.tuples(st.integers(-3, 3), st.integers(2, 5)).map(lambda p: T.mod(T.scale(u, p[0]), c(p[1]))),
    st.tuples(st.integers(-3, 3), st.integers(2, 5)).map(lambda p: T.div(T.scale(u, p[0]), c(p[1]))),
    st.integers(-2, 2).map(lambda k: T.mul(u, T.add(u, c(k)))))
#: an equality or disequality with u a term of its sum (what the split reads bounds from)
ONE_VAR_GUARDS = st.tuples(st.sampled_from([T.eq, T.ne]), st.sampled_from([1, 2, -1, -3]), int_terms([u], max_leaves=3),
                           NONLINEAR_OF_U, st.integers(-8, 8)).map(
    lambda p: p[0](T.add(T.scale(u, p[1]), p[2], p[3]), c(p[4])))
GUARD_VALUES = [0]


def check_one_variable_verdicts(facts, guard) -> bool:
    """The verdict the split gives holds at every point of -60..60 the facts allow (u's values
    past that are Z3's), and Z3 agrees; returns whether the split decided ``guard``."""
    r = Reasoner(cases=CaseBudget(backoff=False), witnesses=False)  # the split, not the points, decides
    for f in facts:
        r.assume(f)
    v = r.decide(guard)
    if v.by is not Layer.CASE_SPLIT:
        return False
    assert_holds(facts, guard, v.truth, ONE_VAR_POINTS)
    return True


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(ONE_VAR_FACTS, ONE_VAR_GUARDS)
def test_guard_value_split_verdicts_hold_by_brute_force_and_z3(facts, guard):
    GUARD_VALUES[0] += check_one_variable_verdicts(facts, guard)


def test_the_random_one_variable_guards_had_split_verdicts():
    assert GUARD_VALUES[0] >= 3, GUARD_VALUES  # runs after the property above (file order)


#: PyTorch's test_python_mod_padding_no_recompile asks the first of an unbacked u0 >= 0
ONE_VAR_DECIDED = [
    ([T.ge(u, T.ZERO)], T.eq(T.add(u, T.mod(T.scale(u, 3), c(4))), T.ONE), Truth.FALSE),
    ([T.ge(u, T.ZERO)], T.ne(T.add(u, T.mod(T.scale(u, 3), c(4))), c(3)), Truth.TRUE),
    ([T.ge(u, T.ZERO)], T.lt(T.add(T.scale(u, 2), T.div(u, c(3))), T.ONE), Truth.UNKNOWN),  # u = 0
]


@pytest.mark.parametrize("facts, guard, truth", ONE_VAR_DECIDED)
def test_the_guard_value_split_decides_the_padding_question(facts, guard, truth):
    _, v = _decide(facts, guard, CaseBudget())
    assert v.truth is truth
    if truth is not Truth.UNKNOWN:
        assert check_one_variable_verdicts(facts, guard)


def test_planted_error_a_value_the_guard_allows_dropped_is_caught(monkeypatch):
    """u + (3u mod 4) = 0 holds at u = 0 only: without that value every branch is FALSE."""
    real = case_split._values_under
    monkeypatch.setattr(case_split, "_values_under", lambda r, x, assumed: (real(r, x, assumed) or range(0))[1:])
    guard = T.eq(T.add(u, T.mod(T.scale(u, 3), c(4))), T.ZERO)
    with pytest.raises(AssertionError, match="but at"):
        check_one_variable_verdicts([T.ge(u, T.ZERO)], guard)


# ---------------------------------------------------------------- a disjunction the facts keep

X3, Y3, Z3_ = VARS
@st.composite
def disjunction_programs(draw):
    """Bounds; a disjunction of two or three comparisons of ``v``, ``v + w`` or ``v*w`` with
    constants (or of any comparisons); guards comparing the same terms with constants."""
    v, w = draw(st.permutations(VARS))[:2]
    terms = [v, T.add(v, w), T.mul(v, w)]
    on_terms = st.tuples(CMP, st.sampled_from(terms), st.integers(-4, 4)).map(lambda p: p[0](p[1], c(p[2])))
    disjuncts = draw(st.lists(st.one_of(on_terms, on_terms, GUARDS), min_size=2, max_size=3))
    return draw(BOUNDS), T.or_(*disjuncts), draw(st.lists(on_terms, min_size=1, max_size=3))


DISJUNCTION_SPLITS = [0]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(disjunction_programs())
def test_disjunction_split_verdicts_hold_by_brute_force_and_z3(program):
    """A kept disjunction split into its disjuncts: every verdict that split gives holds on
    the box and for Z3 (asked of the split itself, then of ``decide``, which agrees)."""
    bounds, disjunction, guards = program
    facts = bounds + [disjunction]
    r = Reasoner(cases=CaseBudget(backoff=False))
    for f in facts:
        r.assume(f)
    for g in guards:
        split = case_split.disjunction_decide(r, r.normalize(g), CaseBudget(backoff=False))
        v = r.decide(g)
        if split is not Truth.UNKNOWN:
            DISJUNCTION_SPLITS[0] += 1
            assert v.truth is split
            assert_holds(facts, g, split, POINTS)


def test_the_random_disjunctions_had_split_verdicts():
    assert DISJUNCTION_SPLITS[0] >= 10, DISJUNCTION_SPLITS  # runs after the property above (file order)


#: x in -3..3 and x <= -1 or x >= 2: x != 0 in each disjunct, x <= -1 in one only
SPLIT_BY_DISJUNCTION = [T.ge(x, c(-3)), T.le(x, c(3)), T.or_(T.le(x, c(-1)), T.ge(x, c(2)))]
#: a contiguous input's stride fact once its other sizes are at least 2 (hf_Bart under
#: ge2,contiguous): x == 0 or a == x*y*z with a >= 0, so x >= 0 in each disjunct
STRIDE_FACTS = [T.ge(y, c(2)), T.ge(Z3_, c(2)), T.ge(a, T.ZERO), T.or_(T.eq(x, T.ZERO), T.eq(a, T.mul(x, y, Z3_)))]
STRIDE_POINTS = [{"x": p["x"], "y": p["y"], "z": p["z"], "a": p["x"] * p["y"] * p["z"]} for p in POINTS]


def _disjunction_verdict(facts, guard) -> Truth:
    """The verdict, checked on the box and by Z3 where decided."""
    r = Reasoner(cases=CaseBudget(backoff=False), witnesses=False)  # the split decides, not the points
    for f in facts:
        r.assume(f)
    v = r.decide(guard)
    if v.truth is not Truth.UNKNOWN:
        assert_holds(facts, guard, v.truth, POINTS + STRIDE_POINTS)
    return v.truth


@pytest.mark.parametrize("facts, guard, truth", [
    (SPLIT_BY_DISJUNCTION, T.ne(x, T.ZERO), Truth.TRUE),
    (SPLIT_BY_DISJUNCTION, T.eq(x, T.ONE), Truth.FALSE),
    (SPLIT_BY_DISJUNCTION, T.le(x, c(-1)), Truth.UNKNOWN),
    (STRIDE_FACTS, T.ge(x, T.ZERO), Truth.TRUE),
    (STRIDE_FACTS, T.ge(x, T.ONE), Truth.UNKNOWN),
])
def test_a_kept_disjunction_decides_what_each_disjunct_does(facts, guard, truth):
    assert _disjunction_verdict(facts, guard) is truth
    unsplit = Reasoner(cases=None)
    for f in facts:
        unsplit.assume(f)
    assert unsplit.decide(guard).truth is Truth.UNKNOWN  # the split is what decides it


def test_planted_error_a_disjunct_dropped_is_caught(monkeypatch):
    real = case_split.disjunction_cases
    monkeypatch.setattr(case_split, "disjunction_cases", lambda r, g: (cs[:-1] for cs in real(r, g)))
    with pytest.raises(AssertionError, match="but at"):
        _disjunction_verdict(SPLIT_BY_DISJUNCTION, T.le(x, c(-1)))


def test_budget_constants_are_documented():
    text = (DOCS / "architecture.md").read_text()
    for name in ("MAX_CASE_BRANCHES", "MAX_CASE_DEPTH", "BRANCH_PROPAGATION", "SPLIT_BACKOFF_STREAK", "MAX_VALUE_CASES",
                 "MAX_DISJUNCT_CASES", "MAX_DISJUNCTIONS"):
        assert name in text
    assert attrs.has(CaseBudget)
