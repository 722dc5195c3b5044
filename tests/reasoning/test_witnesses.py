"""The witness points (absint.reasoning.witnesses): models of the facts kept at hand, which
answer UNKNOWN at once a question they show both ways.

What must hold, whatever the program:
* every point kept satisfies every fact (the evaluator says so);
* an open question was shown both ways by two such points, and Z3 agrees it is open;
* no verdict is lost: what the reasoner decides without the points it decides with them.
A planted error (a move that forgets to keep the sums of the facts it touches) is caught.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.lang.evaluator import NotEvaluable, evaluate
from absint.lang.printer import to_smtlib
from absint.reasoning import witnesses as W
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Truth
from term_strategies import int_terms

NAMES = ("x", "y", "z")
VARS = [T.var(n, T.INT) for n in NAMES]
COMPARE = st.sampled_from([T.le, T.lt, T.ge, T.gt, T.eq, T.ne])
ATOMS = st.tuples(COMPARE, int_terms(VARS, max_leaves=4), int_terms(VARS, max_leaves=4)).map(
    lambda p: p[0](p[1], p[2]))
BOOLS = st.one_of(ATOMS, st.tuples(ATOMS, ATOMS).map(lambda p: T.or_(*p)),
                  st.tuples(ATOMS, ATOMS).map(lambda p: T.and_(*p)))
LINEAR = st.tuples(st.lists(st.integers(-2, 2), min_size=3, max_size=3), st.integers(-4, 4)).map(
    lambda p: T.add(T.const(p[1]), *(T.scale(v, c) for v, c in zip(VARS, p[0]))))
LINEAR_BOOLS = st.tuples(st.sampled_from([T.le, T.lt, T.eq, T.ne]), LINEAR).map(lambda p: p[0](p[1], T.ZERO))
#: a program: example values, then (fact, question) steps: each question is asked, then the fact assumed
STEPS = st.lists(st.tuples(st.one_of(BOOLS, LINEAR_BOOLS), st.one_of(BOOLS, LINEAR_BOOLS)), min_size=1, max_size=5)
HINTS = st.fixed_dictionaries({n: st.integers(-3, 5) for n in NAMES})


def _value(t, point):
    try:
        return evaluate(t, point)
    except NotEvaluable:
        return None


def _z3_sat(facts, extra) -> bool | None:
    z3 = pytest.importorskip("z3")
    from z3_check import PRELUDE_TEXT

    text = PRELUDE_TEXT + "".join(f"(declare-const {n} Int)\n" for n in NAMES)
    text += "".join(f"(assert {to_smtlib(f)})\n" for f in [*facts, extra])
    s = z3.Solver()
    s.set("timeout", 2000)
    s.add(z3.parse_smt2_string(text))
    r = s.check()
    return None if r == z3.unknown else r == z3.sat


def run(hints: dict, steps, check_z3: bool = False) -> tuple[list[Truth], list[Truth]]:
    """The program's verdicts with and without the points, every point and every open
    question checked on the way."""
    on, off = Reasoner(), Reasoner(witnesses=False)
    on.example(hints)
    facts: list = []
    got_on, got_off = [], []
    for fact, question in steps:
        before = on.witnesses.opened
        got_on.append(on.decide(question).truth)
        got_off.append(off.decide(question).truth)
        if on.witnesses.opened > before and not on.contradiction:
            _check_open(facts, on.witnesses.last_open, on.witnesses.last_pair(), check_z3)
        for r in (on, off):
            r.assume(fact)
        facts.append(fact)
        _check_points(on, facts)
    return got_on, got_off


def _check_points(r: Reasoner, facts) -> None:
    """Every kept point satisfies every fact (once the points have taken them in)."""
    w = r.witnesses
    w._take_pending()
    for p in w.points:
        for f in facts:
            assert _value(f, p.values) is True, f"a kept point {p.values} breaks {to_smtlib(f)}"


def _check_open(facts, question, pair, check_z3: bool) -> None:
    true_at, false_at = pair
    for f in facts:
        assert _value(f, true_at) is True and _value(f, false_at) is True, \
            f"a witness of {to_smtlib(question)} breaks {to_smtlib(f)}"
    assert _value(question, true_at) is True and _value(question, false_at) is False, \
        f"{to_smtlib(question)} is not shown both ways by {true_at}, {false_at}"
    if check_z3 and {v.data for v in T.free_vars(question)} <= set(NAMES):  # not a case split's own variable
        assert _z3_sat(facts, question) is not False and _z3_sat(facts, T.not_(question)) is not False, \
            f"Z3 decides {to_smtlib(question)}, which the points showed open"


def _no_verdict_lost(got_on, got_off) -> None:
    for a, b in zip(got_on, got_off):
        assert b is Truth.UNKNOWN or a is b, f"decided {b} without the points, {a} with them"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HINTS, STEPS)
def test_points_are_models_and_open_questions_are_open(hints, steps):
    got_on, got_off = run(hints, steps)
    _no_verdict_lost(got_on, got_off)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HINTS, STEPS)
def test_z3_agrees_that_open_questions_are_open(hints, steps):
    pytest.importorskip("z3")
    run(hints, steps, check_z3=True)


def _jagged(n: int):
    """PyTorch's questions of a split over ``n`` lengths: each prefix sum asked then
    checked, the total, then ``u == 0``, ``u != 0``, ``u <= 1``, ``u == 1`` of each."""
    u = [T.var(f"u{i}", T.INT) for i in range(n)]
    s = T.var("s0", T.INT)
    steps = [(T.ge(s, T.const(2)), T.TRUE)] + [(T.ge(x, T.ZERO), T.TRUE) for x in u]
    for k in range(n):
        prefix = T.le(T.add(*u[:k + 1]), s)
        steps.append((prefix, prefix))
    steps.append((T.eq(T.add(*u), s), T.eq(T.add(*u), s)))
    for x in u:
        for q in (T.eq(x, T.ZERO), T.ne(x, T.ZERO), T.le(x, T.ONE), T.eq(x, T.ONE)):
            steps.append((T.TRUE, q))
    return {"s0": 7}, steps


def test_a_jagged_split_asks_isl_nothing_and_loses_nothing():
    hints, steps = _jagged(40)
    on, off = Reasoner(), Reasoner(witnesses=False)
    on.example(hints)
    verdicts = []
    for fact, question in steps:
        verdicts.append((on.decide(question).truth, off.decide(question).truth))
        on.assume(fact)
        off.assume(fact)
    assert all(a is b for a, b in verdicts)
    open_ = 40 + 1 + 40 * 4  # each prefix sum and the total before its check; 4 of each length
    assert sum(a is Truth.UNKNOWN for a, _ in verdicts) == open_
    assert on.witnesses.opened == open_
    assert on.polyhedral.queries == 0 < off.polyhedral.queries


def test_points_follow_a_rollback():
    x, y = VARS[:2]
    r = Reasoner()
    r.example({"x": 3, "y": 3})
    r.assume(T.le(x, y))
    assert r.decide(T.eq(x, y)).truth is Truth.UNKNOWN and r.witnesses.opened == 1
    with r.tentatively():
        r.assume(T.eq(x, y))
        assert r.decide(T.eq(x, y)).truth is Truth.TRUE
    assert r.decide(T.le(x, T.sub(y, T.ONE))).truth is Truth.UNKNOWN
    _check_points(r, [T.le(x, y)])


def test_a_branch_that_drops_every_point_does_not_rebuild_them_and_the_rollback_restores_them():
    """Inside a checkpoint (a case split's branch) a fact no point can be repaired into drops
    them all; growing a new point through every fact would cost the whole program per branch
    (58 rebuilds were 1.7 of 2.3 s on one corpus file), so the branch goes on without points;
    the rollback brings the old points back, and outside a checkpoint a rebuild is tried."""
    x, y = VARS[:2]
    square = T.eq(T.mul(x, x), T.const(49))  # x inside a product: no move repairs it
    question = T.eq(T.add(x, y), T.ZERO)
    r = Reasoner()
    r.example({"x": 3, "y": 3})
    r.assume(T.le(x, y))
    assert r.decide(T.eq(x, y)).truth is Truth.UNKNOWN and r.witnesses.points
    rebuilds = []
    original = W.Witnesses._rebuild
    W.Witnesses._rebuild = lambda self: rebuilds.append(1) or original(self)
    try:
        with r.tentatively():
            r.assume(square)
            r.decide(question)
            assert not r.witnesses.points and not rebuilds
        assert r.witnesses.points and r.decide(T.eq(x, y)).truth is Truth.UNKNOWN
        _check_points(r, [T.le(x, y)])
        r.assume(square)
        r.decide(question)
        assert rebuilds
    finally:
        W.Witnesses._rebuild = original


def test_a_planted_move_that_forgets_the_sums_is_caught(monkeypatch):
    """A move that leaves the sums of the facts it touches as they were makes points that
    break facts: the checks above must fail on the jagged questions."""
    def planted(self, p, name, new, journal):
        journal.append((name, p.values[name]))
        p.values[name] = new

    monkeypatch.setattr(W.Witnesses, "_move", planted)
    hints, steps = _jagged(6)
    with pytest.raises(AssertionError):
        run(hints, steps)


@pytest.mark.parametrize("kind, v, coef", list(itertools.product(["le", "lt", "eq", "ne"], range(-7, 8), [-3, -2, -1, 1, 2, 3])))
def test_steps_are_the_smallest_that_make_the_comparison_hold(kind, v, coef):
    from absint.lang.kinds import EQ, LE, LT, NE

    k = {"le": LE, "lt": LT, "eq": EQ, "ne": NE}[kind]
    holds = {"le": lambda a: a <= 0, "lt": lambda a: a < 0, "eq": lambda a: a == 0, "ne": lambda a: a != 0}[kind]
    steps = W._steps(k, v, coef, integral=True)
    for d in steps:
        assert holds(v + coef * d)
    wanted = [d for d in range(-20, 21) if holds(v + coef * d)]
    if holds(v):
        return
    if not wanted:
        assert steps == []
    elif kind != "ne":
        assert min(abs(d) for d in steps) == min(abs(d) for d in wanted)


def test_the_early_look_stops_where_it_shows_nothing_open_and_verdicts_stay():
    """Guards that all hold (a corpus file's usual questions): after the trial the early
    look is passed by, and every verdict is what the reasoner without points gives."""
    x, y = VARS[:2]
    on, off = Reasoner(), Reasoner(witnesses=False)
    on.example({"x": 3, "y": 5})
    for r in (on, off):
        r.assume(T.ge(x, T.ONE))
        r.assume(T.le(x, y))
    guards = [T.le(x, T.add(y, T.const(k))) for k in range(3 * W.EARLY_TRIAL)]
    assert [on.decide(g).truth for g in guards] == [off.decide(g).truth for g in guards] == [Truth.TRUE] * len(guards)
    w = on.witnesses
    assert w.early_asked < len(guards) and w.early_passed > 0 and w.early_opened == 0


def test_the_early_look_waits_while_more_facts_are_pending_than_the_question_has_summands():
    x, y, z = VARS
    r = Reasoner()
    r.example({"x": 1, "y": 2, "z": 3})
    for k in range(4):
        r.assume(T.ge(T.add(x, y, z), T.const(-k)))
    w = r.witnesses
    r.decide(T.eq(x, T.ONE))  # 1 summand, 4 facts pending: not looked at early
    assert w.early_asked == 0
    r.decide(T.eq(T.add(x, y, z), T.const(6)))  # pending facts were taken in above, so it looks
    assert w.early_asked == 1


def test_the_long_prefix_sums_of_a_split_are_still_shown_open_early():
    """What the early look is for on PyTorch's jagged programs: a prefix sum asked before its
    check is shown open without being normalised."""
    hints, steps = _jagged(20)
    r = Reasoner()
    r.example(hints)
    for fact, question in steps:
        r.decide(question)
        r.assume(fact)
    w = r.witnesses
    assert w.early_opened > 0 and w.opened == 20 + 1 + 20 * 4


def test_long_questions_are_tallied_apart_from_short_ones_by_the_early_look():
    """A compiler's reasoner looks early at every short question; long ones (a prefix sum
    the points never show open as asked) are passed by once the trial shows no hit, even
    while the short ones keep hitting (one tally for both kept the look on every prefix sum).
    Every verdict is what the reasoner without points gives."""
    u = [T.var(f"u{i}", T.INT) for i in range(W.LONG_QUESTION + 4)]
    total = T.add(*u)
    on, off = Reasoner(early_look="always"), Reasoner(witnesses=False)
    for r in (on, off):
        for x in u:
            r.assume(T.ge(x, T.ZERO))
    asked = []
    for k in range(3 * W.EARLY_TRIAL):
        asked += [T.ge(total, T.const(-k)), T.eq(u[k % len(u)], T.ZERO)]
    assert [on.decide(g).truth for g in asked] == [off.decide(g).truth for g in asked]
    assert [on.decide(g).truth for g in asked[:2]] == [Truth.TRUE, Truth.UNKNOWN]
    short, long_ = on.witnesses._tallies
    assert short.passed == 0 and short.opened == short.asked == 3 * W.EARLY_TRIAL + 1
    assert long_.opened == 0 and long_.passed > 0 and long_.asked < 3 * W.EARLY_TRIAL


def test_a_compiler_reasoner_always_looks_early_and_a_bad_choice_is_refused():
    from absint.api.shape_reasoner import ShapeReasoner

    assert ShapeReasoner()._reasoner.witnesses.early_always
    assert not Reasoner().witnesses.early_always
    x, y = VARS[:2]
    r = Reasoner(early_look="always")
    r.assume(T.le(x, y))
    for k in range(3 * W.EARLY_TRIAL):
        r.decide(T.le(x, T.add(y, T.const(k))))
    assert r.witnesses.early_asked == 3 * W.EARLY_TRIAL and r.witnesses.early_passed == 0
    with pytest.raises(ValueError, match="early_look must be one of"):
        Reasoner(early_look="sometimes")


def test_a_long_sum_no_fact_mentions_is_shown_open_before_its_key_is_registered():
    """A comparison of a new long sum is open more often than not (``u0 + ... + uk ==
    2**63 - 1`` in a prefix-sum split): the points see it before layer 1 registers its key,
    which costs in proportion to the sum. One they cannot show open still reaches the
    layers (a parity the congruences see), and every verdict is the pointless reasoner's."""
    u = [T.var(f"u{i}", T.INT) for i in range(W.LONG_QUESTION + 2)]
    total = T.add(*u)
    opened, odd = T.eq(total, T.const(2**62)), T.eq(total, T.ONE)

    def reasoner(**kw) -> Reasoner:
        r = Reasoner(**kw)
        for x in u:
            r.assume(T.ge(x, T.ZERO))
            r.assume(T.eq(T.mod(x, T.const(2)), T.ZERO))
        return r

    on, off = reasoner(early_look="always"), reasoner(witnesses=False)
    key = on.network.split(on.normalize(opened).args[0])[1]
    assert on.decide(opened).truth is off.decide(opened).truth is Truth.UNKNOWN
    assert on.network.key_value(key) is None  # shown open by the points: never registered
    assert on.decide(odd).truth is off.decide(odd).truth is Truth.FALSE
    assert on.network.key_value(key) is not None  # the layers needed it


def test_a_pair_is_restricted_to_the_names_a_point_has():
    """``last_pair(names)``'s reading in C and its fallback agree with the plain filter."""
    values = {"a": 1, "b": 2, "c": 3}
    assert W._restricted(values, ["c", "a"]) == {"c": 3, "a": 1}
    assert list(W._restricted(values, ["c", "a"])) == ["c", "a"]
    assert W._restricted(values, ["a", "z", "b"]) == {"a": 1, "b": 2}
