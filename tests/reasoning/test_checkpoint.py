"""Checkpoint and rollback of the reasoner (absint.reasoning.trail): after a rollback the
reasoner is in the state it was in when the checkpoint was taken, field by field, and
answers as a reasoner that was never told the rolled-back facts.

A property test over random programs (facts A, guards G; checkpoint; facts B with
equalities that bind variables, disjunctions, products, divisions, contradictions;
guards H; rollback; G again), nested checkpoints, and a unit test per kind of change
the trail logs."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.trail import CheckpointError
from absint.reasoning.verdict import Truth
from term_strategies import int_terms

NAMES = ("x", "y", "z")
VARS = [T.var(n, T.INT) for n in NAMES]
x, y, z = VARS
k = T.const

INT_TERMS = int_terms(VARS, max_leaves=5)
COMPARE = st.sampled_from([T.le, T.lt, T.ge, T.gt, T.eq, T.ne])
ATOMS = st.tuples(COMPARE, INT_TERMS, INT_TERMS).map(lambda p: p[0](p[1], p[2]))
#: equalities that solve for a variable: bindings, and keys moved to their new normal form
EQUALITIES = st.tuples(st.sampled_from(VARS), INT_TERMS).map(lambda p: T.eq(p[0], p[1]))
BOUNDS = st.tuples(st.sampled_from(VARS), st.integers(-4, 4), st.integers(0, 6)).map(
    lambda p: T.and_(T.ge(p[0], k(p[1])), T.le(p[0], k(p[1] + p[2]))))
#: a variable against a small constant: excluded values (``!=``) and end points met again
SIMPLE = st.tuples(COMPARE, st.sampled_from(VARS), st.integers(-2, 2)).map(lambda p: p[0](p[1], k(p[2])))
#: disequalities twice as likely: a value excluded after the checkpoint on a key that had
#: one excluded before (the set grows in place) must go with the rollback
DISEQUALITIES = st.tuples(st.sampled_from(VARS), st.integers(-2, 2)).map(lambda p: T.ne(p[0], k(p[1])))
FACTS = st.one_of(ATOMS, EQUALITIES, BOUNDS, SIMPLE, DISEQUALITIES, DISEQUALITIES,
                  st.tuples(ATOMS, ATOMS).map(lambda p: T.or_(*p)),
                  st.tuples(ATOMS, ATOMS).map(lambda p: T.and_(*p)),
                  st.sampled_from([T.FALSE, T.var("b", T.BOOL), T.not_(T.var("b", T.BOOL))]))
GUARDS = st.one_of(ATOMS, SIMPLE, st.tuples(ATOMS, ATOMS).map(lambda p: T.or_(*p)),
                   st.tuples(ATOMS, ATOMS).map(lambda p: T.and_(*p)))
SETTINGS = settings(max_examples=80, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def state(r: Reasoner) -> dict:
    """Everything a rollback must restore, read field by field (order where it is read:
    a key's parents, the waiting disjunctions, the facts)."""
    n, nf, intake = r.network, r.normal_form, r._intake
    blocks = n._blocks
    out = {
        "val": dict(n._val), "parents": {c: tuple(ps) for c, ps in n._parents.items()},
        "excluded": {p: frozenset(e) for p, e in n._excluded.items()},
        "epoch": n.epoch, "contradiction": n.contradiction, "work": tuple(n._work),
        # the partition (path halving, off while a checkpoint is open, moves no element's root)
        "blocks": ({a: blocks.find(a) for a in blocks._parent}, dict(blocks._size)),
        "bindings": dict(nf.bindings), "memo": dict(nf._memo), "tentative": dict(nf._tentative),
        "literals": frozenset(intake._literals), "disjunctions": tuple(intake._disjunctions),
        "preferred": frozenset(intake._preferred), "facts": tuple(r.facts),
    }
    if r.polyhedral is not None:
        out["backoff"] = r.polyhedral.mark()
    return out


def assume_all(r: Reasoner, facts) -> None:
    for f in facts:
        r.assume(f)


def answers(r: Reasoner, guards) -> list:
    return [r.decide(g) for g in guards]


@SETTINGS
@given(st.lists(FACTS, max_size=4), st.lists(GUARDS, min_size=1, max_size=3),
       st.lists(FACTS, min_size=1, max_size=4), st.lists(GUARDS, max_size=3),
       st.lists(GUARDS, min_size=1, max_size=3))
def test_rollback_restores_the_state_and_the_answers(a, g, b, h, later):
    """``later``: guards first asked after the rollback (no memo of them to hide a change
    that was not undone)."""
    r = Reasoner(backed=[x])
    assume_all(r, a)
    first = answers(r, g)
    before = state(r)
    cp = r.checkpoint()
    assume_all(r, b)
    answers(r, h)
    r.rollback(cp)
    assert state(r) == before
    again = answers(r, g)
    fresh = Reasoner(backed=[x])  # told only A, asked G as r was: then G again
    assume_all(fresh, a)
    assert answers(fresh, g) == first
    fresh_again = answers(fresh, g)
    assert again == fresh_again
    if fresh_again == first:  # asking twice can register keys that sharpen a second answer
        assert again == first
    assert answers(r, later) == answers(fresh, later)
    assert state(r) == state(fresh)


@SETTINGS
@given(st.lists(FACTS, max_size=3), st.lists(GUARDS, min_size=1, max_size=2),
       st.lists(FACTS, min_size=1, max_size=3), st.lists(GUARDS, min_size=1, max_size=2),
       st.lists(FACTS, min_size=1, max_size=3))
def test_nested_checkpoints(a, g, b, h, c):
    r = Reasoner(backed=[y])
    assume_all(r, a)
    answers(r, g)
    outer_state = state(r)
    outer = r.checkpoint()
    assume_all(r, b)
    answers(r, h)
    inner_state = state(r)
    inner = r.checkpoint()
    assume_all(r, c)
    answers(r, g + h)
    r.rollback(inner)
    assert state(r) == inner_state
    r.rollback(inner)  # twice to the same checkpoint is fine
    assert state(r) == inner_state
    twin = Reasoner(backed=[y])
    assume_all(twin, a)
    answers(twin, g)
    assume_all(twin, b)
    answers(twin, h)
    assert answers(r, h) == answers(twin, h)
    r.rollback(outer)
    assert state(r) == outer_state
    with pytest.raises(CheckpointError):
        r.rollback(inner)  # discarded by the rollback to the older one


@SETTINGS
@given(st.lists(FACTS, max_size=3), st.lists(FACTS, min_size=1, max_size=3), st.lists(GUARDS, min_size=1, max_size=3))
def test_tentatively_equals_a_fresh_reasoner_with_the_tentative_facts(a, b, g):
    """Inside the block the reasoner answers as one told A then B (the use the trail is for:
    trying values without rebuilding)."""
    r = Reasoner()
    assume_all(r, a)
    before = state(r)
    with r.tentatively():
        assume_all(r, b)
        inside = answers(r, g)
    assert state(r) == before
    fresh = Reasoner()
    assume_all(fresh, a + b)
    assert inside == answers(fresh, g)


# ---------------------------------------------------------------- one test per kind of change


def roundtrip(r: Reasoner, *facts, guards=()) -> None:
    """Assume ``facts`` and ask ``guards`` inside a checkpoint; the state must come back."""
    before = state(r)
    cp = r.checkpoint()
    assume_all(r, facts)
    answers(r, guards)
    assert state(r) != before, "the change under test did not happen"
    r.rollback(cp)
    assert state(r) == before


def test_narrowed_value(reasoner_with):
    r = reasoner_with(T.ge(x, k(0)))
    roundtrip(r, T.le(x, k(3)))
    assert r.bounds(x) == (0, float("inf"))


def test_new_keys_and_their_parents_registered_by_a_question(reasoner_with):
    r = reasoner_with(T.ge(x, k(0)), T.ge(y, k(0)))
    key = T.add(x, T.scale(y, 2))
    roundtrip(r, guards=[T.le(T.mul(x, y), k(100)), T.le(key, k(7))])
    assert r.network.key_value(key) is None and not r.network.related(x)


def test_excluded_value(reasoner_with):
    r = reasoner_with(T.ge(x, k(0)))
    roundtrip(r, T.ne(x, k(0)), T.ne(T.mul(y, z), k(0)))
    assert r.decide(T.ne(x, k(0))).truth is Truth.UNKNOWN
    assert r.network.excluded_values(x) == set()


def test_binding_and_keys_moved_to_their_new_normal_form(reasoner_with):
    r = reasoner_with(T.le(T.add(x, y), k(10)), T.ge(y, k(0)))
    guard = T.le(x, k(10))
    roundtrip(r, T.eq(x, T.add(z, k(1))), guards=[guard])
    assert r.normalize(x) is x and not r.normal_form.bindings
    assert r.decide(guard).truth is Truth.TRUE


def test_union_of_blocks(reasoner_with):
    r = reasoner_with(T.ge(x, k(0)))
    roundtrip(r, T.le(T.add(x, y), k(5)))
    assert not r.network.related(x)


def test_literal(reasoner_with):
    b = T.var("b", T.BOOL)
    r = reasoner_with()
    roundtrip(r, b)
    assert r.literal_truth(b) is None


def test_pending_disjunction_and_its_resolution(reasoner_with):
    r = reasoner_with(T.or_(T.lt(x, k(0)), T.lt(y, k(0))))
    roundtrip(r, T.ge(x, k(0)))  # the disjunction resolves: y < 0
    assert r.decide(T.lt(y, k(0))).truth is Truth.UNKNOWN
    r2 = reasoner_with()
    roundtrip(r2, T.or_(T.lt(x, k(0)), T.lt(y, k(0))))
    assert not r2._intake._disjunctions


def test_contradiction_flag_and_epoch(reasoner_with):
    r = reasoner_with(T.ge(x, k(0)))
    epoch = r.network.epoch
    roundtrip(r, T.lt(x, k(0)))
    assert not r.contradiction and r.network.epoch == epoch
    roundtrip(r, T.FALSE)
    assert r.decide(T.lt(x, k(0))).truth is Truth.FALSE


def test_a_rewrite_proved_by_rolled_back_facts_is_forgotten(reasoner_with):
    """``x mod y = x`` needs ``0 <= x < y``: proved under the tentative fact, memoised;
    after the rollback the memo must not keep it (the cache of a proved fact is valid only
    for the facts that proved it)."""
    m = T.mod(x, y)
    r = reasoner_with(T.ge(x, k(0)))
    assert r.normalize(m) is m
    with r.tentatively():
        r.assume(T.lt(x, y))
        assert r.normalize(m) is x
    assert r.normalize(m) is m
    assert r.decide(T.eq(m, x)).truth is Truth.UNKNOWN


def test_a_tentative_rewrite_of_the_rolled_back_future_is_forgotten(reasoner_with):
    """A rewrite left tentative (conditions unproved) at a later epoch must not look valid
    after the rollback brings the epoch back."""
    m = T.mod(x, y)
    r = reasoner_with(T.ge(x, k(0)))
    tentative = dict(r.normal_form._tentative)
    with r.tentatively():
        r.assume(T.ge(y, k(0)))
        r.normalize(T.add(m, k(1)))
        assert r.normal_form._tentative != tentative
    assert r.normal_form._tentative == tentative


def test_polyhedral_back_off(reasoner_with):
    r = reasoner_with(T.le(T.add(x, y), k(5)), T.ge(x, k(0)), T.ge(y, k(0)), witnesses=False)  # isl is asked
    mark = r.polyhedral.mark()
    with r.tentatively():
        r.decide(T.le(T.sub(x, T.scale(y, 3)), k(2)))
        r.decide(T.eq(T.add(x, T.scale(z, 2)), k(1)))
        assert r.polyhedral.mark() != mark
    assert r.polyhedral.mark() == mark


def test_facts_and_preferred_variables(reasoner_with):
    r = reasoner_with(T.ge(x, k(0)))
    with r.tentatively():
        r.prefer_to_eliminate([y])
        r.assume(T.eq(y, T.add(z, k(1))))
        assert r.normalize(y) is not y
    assert r.facts == [T.ge(x, k(0))] and not r._intake._preferred


# ---------------------------------------------------------------- the checkpoints themselves


def test_checkpoint_of_another_reasoner_is_refused():
    r, other = Reasoner(), Reasoner()
    cp = other.checkpoint()
    with pytest.raises(CheckpointError, match="another reasoner"):
        r.rollback(cp)
    with pytest.raises(TypeError):
        r.rollback("checkpoint")


def test_rolling_back_to_an_older_checkpoint_discards_the_newer(reasoner_with):
    r = reasoner_with(T.ge(x, k(0)))
    old = r.checkpoint()
    r.assume(T.le(x, k(9)))
    new = r.checkpoint()
    r.rollback(old)
    with pytest.raises(CheckpointError, match="closed"):
        r.rollback(new)
    r.rollback(old)
    assert r.bounds(x) == (0, float("inf"))


def test_commit_keeps_the_facts_and_stops_logging(reasoner_with):
    r = reasoner_with(T.ge(x, k(0)))
    cp = r.checkpoint()
    r.assume(T.le(x, k(9)))
    r.commit(cp)
    assert r.bounds(x) == (0, 9)
    assert not r._trail.recording and not r._trail.entries and r.network._blocks._journal is None
    with pytest.raises(CheckpointError):
        r.rollback(cp)


def test_tentatively_rolls_back_on_an_exception(reasoner_with):
    r = reasoner_with(T.ge(x, k(0)))
    before = state(r)
    with pytest.raises(RuntimeError):
        with r.tentatively():
            r.assume(T.le(x, k(3)))
            raise RuntimeError("leaving the block")
    assert state(r) == before and not r._trail.recording


# ---------------------------------------------------------------- the compiler API


def test_api_forgets_verdicts_reached_under_rolled_back_facts():
    import sympy

    from absint import CheckpointError, ShapeReasoner

    r = ShapeReasoner()
    s0 = r.declare("s0", hint=8)
    u0 = r.declare("u0", size_like=True)
    r.assume(u0 <= 4 * s0)
    quotient = sympy.Eq(u0 // s0, u0 // 8)
    term_before = r.term(u0 // s0)  # the sign of s0 is unknown: an ite over it
    assert r.decide(u0 <= 32).truth is Truth.UNKNOWN
    with r.tentatively():
        r.assume(sympy.Eq(s0, 8))
        assert r.decide(u0 <= 32).truth is Truth.TRUE  # memoised as TRUE ...
        assert r.decide(quotient).truth is Truth.TRUE
        r.declare("v", hint=3)
        assert r.evaluate(s0 > 5)
    assert r.decide(u0 <= 32).truth is Truth.UNKNOWN  # ... and forgotten
    assert r.decide(quotient).truth is Truth.UNKNOWN
    assert r.term(u0 // s0) is term_before
    assert r.facts() == [u0 >= 0, u0 <= 4 * s0] and r.guards() == []
    r.declare("v", hint=5)  # the tentative declaration is gone too
    other = ShapeReasoner()
    with pytest.raises(CheckpointError):
        r.rollback(other.checkpoint())
    with pytest.raises(TypeError):
        r.rollback(r.reasoner.checkpoint())


def test_api_translation_resting_on_a_rolled_back_sign_is_forgotten():
    import sympy

    from absint import ShapeReasoner

    floordiv = type("FloorDiv", (sympy.Function,), {"is_integer": True})  # read by class name
    r = ShapeReasoner()
    a, b = sympy.symbols("a b", integer=True)
    cp = r.checkpoint()
    r.assume(b > 0)
    inside = r.term(floordiv(a, b))
    assert inside.kind == "div"  # b > 0: a plain division
    r.rollback(cp)
    outside = r.term(floordiv(a, b))
    assert outside.kind == "ite"  # the sign of b is open again
    r.assume(b > 0)
    assert r.term(floordiv(a, b)) is inside


def test_api_nested_checkpoints_answer_as_fresh_reasoners():
    import sympy

    from absint import ShapeReasoner

    def history(r, steps):
        s = [r.declare(n, hint=h) for n, h in (("s0", 6), ("s1", 4))]
        u = r.declare("u", size_like=True)
        facts = [u <= s[0] * s[1], sympy.Eq(s[0], s[1] + 2), u >= s[1], sympy.Or(u < 3, u > 20)]
        for f in facts[:steps]:
            r.assume(f)
        return s, u

    r = ShapeReasoner()
    s, u = history(r, 1)
    guards = [u <= 24, u <= s[0] * s[1] + 1, u // s[1] <= s[0], u >= 4, u > 20]
    outer = r.checkpoint()
    r.assume(sympy.Eq(s[0], s[1] + 2))
    inner = r.checkpoint()
    r.assume(u >= s[1])
    r.assume(sympy.Or(u < 3, u > 20))
    deep = [r.decide(g) for g in guards]
    fresh = ShapeReasoner()
    history(fresh, 4)
    assert deep == [fresh.decide(g) for g in guards]
    for cp, steps in ((inner, 2), (outer, 1)):
        r.rollback(cp)
        fresh = ShapeReasoner()
        history(fresh, steps)
        assert [r.decide(g) for g in guards] == [fresh.decide(g) for g in guards]
