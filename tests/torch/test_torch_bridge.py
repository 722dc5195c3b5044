"""absint.torch without torch: the bridge against a fake ShapeEnv (declaration, incremental
sync, rollback, the entry/full routing), the plain-call rule and the signature check, the
wrapper itself on a fake class, and traces recorded and replayed."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import pytest
import sympy

from absint.reasoning.verdict import Truth
from absint.torch import policy
from absint.torch.bridge import ShapeEnvBridge
from absint.torch.client import _Installation, _wrapper
from absint.torch.trace import Recorder, replay


class VR(SimpleNamespace):
    """A ValueRanges look-alike: ``lower``/``upper`` (sympy oo for unbounded)."""

    def __init__(self, lower=-sympy.oo, upper=sympy.oo):
        super().__init__(lower=sympy.sympify(lower), upper=sympy.sympify(upper))


class FakeShapeEnv:
    """The attributes of PyTorch 2.13's ShapeEnv the bridge reads, and nothing else."""

    def __init__(self):
        self.var_to_range, self.backed_var_to_val, self.replacements = {}, {}, {}
        self.guards, self.deferred_runtime_asserts = [], {}
        self._version_counter = 0

    def backed(self, name, hint, lower=2):
        s = sympy.Symbol(name, integer=True, positive=True)
        self.var_to_range[s], self.backed_var_to_val[s] = VR(lower), sympy.Integer(hint)
        self._version_counter += 1
        return s

    def unbacked(self, name, lower=-sympy.oo):
        s = sympy.Symbol(name, integer=True)
        self.var_to_range[s] = VR(lower)
        self._version_counter += 1
        return s

    def guard(self, expr):
        self.guards.append(SimpleNamespace(expr=expr))
        self._version_counter += 1

    def runtime_assert(self, expr, key=None):
        self.deferred_runtime_asserts.setdefault(key, []).append(SimpleNamespace(expr=expr))
        self._version_counter += 1


def decide(bridge, expr):
    bridge.sync()
    return bridge.decide(expr)


def test_symbols_are_declared_with_hints_and_ranges():
    se = FakeShapeEnv()
    s0 = se.backed("s0", 8)
    u0 = se.unbacked("u0", lower=0)
    b = ShapeEnvBridge(se)
    assert decide(b, s0 >= 2).truth is Truth.TRUE
    assert decide(b, u0 >= 0).truth is Truth.TRUE
    assert decide(b, u0 >= 1).truth is Truth.UNKNOWN
    assert decide(b, s0 >= 9).truth is Truth.UNKNOWN  # a hint proves nothing
    assert b.value_at_example(s0 >= 9) is False and b.value_at_example(u0 >= 1) is None


def test_sync_is_incremental_and_ranges_tighten():
    se = FakeShapeEnv()
    s0, s1 = se.backed("s0", 8), se.backed("s1", 9)
    b = ShapeEnvBridge(se)
    assert decide(b, s0 <= s1).truth is Truth.UNKNOWN
    se.guard(s0 <= s1)
    assert decide(b, s0 <= s1 + 1).truth is Truth.TRUE
    se.var_to_range[s0] = VR(4, 100)
    se._version_counter += 1
    assert decide(b, s1 >= 4).truth is Truth.TRUE
    assert decide(b, s0 <= 100).truth is Truth.TRUE
    assert b.stats.rebuilds == 0


def test_a_repeated_question_is_answered_once_per_state(monkeypatch):
    """PyTorch asks a fifth of its questions again before the next fact: the second ask is
    the kept answer; a new fact (the state moves) asks the reasoner again."""
    se = FakeShapeEnv()
    s0, s1 = se.backed("s0", 8), se.backed("s1", 9)
    b = ShapeEnvBridge(se)
    calls = []
    real = b._decide
    monkeypatch.setattr(b, "_decide", lambda e: calls.append(e) or real(e))
    assert decide(b, s0 <= s1).truth is Truth.UNKNOWN
    assert decide(b, s0 <= s1).truth is Truth.UNKNOWN and len(calls) == 1
    se.guard(s0 <= s1)
    assert decide(b, s0 <= s1).truth is Truth.TRUE and len(calls) == 2


def test_unbacked_questions_use_runtime_asserts():
    se = FakeShapeEnv()
    s0, s1 = se.backed("s0", 8), se.backed("s1", 9)
    u0, u1 = se.unbacked("u0", 0), se.unbacked("u1", 0)
    se.guard(s0 <= s1)
    se.runtime_assert(u0 <= u1, key=u1)
    se.runtime_assert(u1 <= s0, key=u1)
    b = ShapeEnvBridge(se)
    assert b.route(u0 <= s1) == "full"
    assert decide(b, u0 <= s1).truth is Truth.TRUE
    assert decide(b, u0 > s1).truth is Truth.FALSE


def test_backed_questions_never_rest_on_unbacked_runtime_asserts():
    """A backed question left undecided becomes an entry guard: only entry facts may decide
    it, never a runtime assert that mentions an unbacked symbol."""
    se = FakeShapeEnv()
    s0, s1 = se.backed("s0", 8), se.backed("s1", 9)
    u0 = se.unbacked("u0", 0)
    se.runtime_assert(sympy.Eq(u0, s0), key=u0)  # e.g. torch._check(last_offset == size)
    se.runtime_assert(u0 <= s1, key=u0)
    b = ShapeEnvBridge(se)
    assert b.route(s0 <= s1) == "entry"
    assert decide(b, s0 <= s1).truth is Truth.UNKNOWN
    assert decide(b, u0 <= s1).truth is Truth.TRUE  # unbacked: the full facts


def test_a_backed_runtime_assert_is_an_entry_fact():
    """Under export (``prefer_deferred_runtime_asserts_over_guards``) PyTorch defers a
    backed-only condition to a runtime assert instead of a guard, and answers later
    questions from it (its ``axioms``): so does absint (PyTorch's own tests:
    test_disable_forced_specializations_ok asks ``Eq(s17, s27*s53*s77)`` after asserting it)."""
    se = FakeShapeEnv()
    s0, s1, s2 = se.backed("s0", 2), se.backed("s1", 3), se.backed("s2", 6)
    se.runtime_assert(sympy.Eq(s2, s0 * s1))
    se.runtime_assert(s0 <= s1)
    b = ShapeEnvBridge(se)
    assert decide(b, sympy.Eq(s2, s0 * s1)).truth is Truth.TRUE
    assert decide(b, s0 <= s1).truth is Truth.TRUE and b.route(s0 <= s1) == "entry"


def test_replacements_count_and_route_through():
    se = FakeShapeEnv()
    s0, s1 = se.backed("s0", 8), se.backed("s1", 8)
    u0 = se.unbacked("u0", 0)
    se.replacements[s1] = s0  # from a guard: backed on both sides, an entry fact
    se.replacements[u0] = s0 + 1  # mentions an unbacked symbol: full only
    se._version_counter += 1
    b = ShapeEnvBridge(se)
    assert decide(b, sympy.Eq(s0, s1)).truth is Truth.TRUE
    assert b.route(u0 > s0) == "entry"  # after the replacement only backed symbols are left
    # read as PyTorch's simplify reads it, s0 + 1 > s0; no runtime assert is used
    assert decide(b, u0 > s0).truth is Truth.TRUE
    assert decide(b, u0 > s1 + 1).truth is Truth.FALSE


@pytest.mark.parametrize("how", ["guards", "asserts", "asserts replaced", "asserts shortened", "range",
                                 "replacement", "hint"])
def test_a_rollback_rebuilds(how):
    se = FakeShapeEnv()
    s0, s1 = se.backed("s0", 8), se.backed("s1", 9)
    u0 = se.unbacked("u0", 0)
    b = ShapeEnvBridge(se)
    question = {"guards": s0 <= s1, "range": s0 <= 20, "replacement": sympy.Eq(s1, s0 + 1),
                "hint": s0 <= s1}.get(how, u0 <= s1)
    if how == "guards":
        se.guard(s0 <= s1)
    elif how.startswith("asserts"):
        se.runtime_assert(u0 >= 0)
        se.runtime_assert(u0 <= s1)
    elif how == "range":
        se.var_to_range[s0] = VR(2, 20)
    elif how == "replacement":
        se.replacements[s1] = s0 + 1
    else:
        se.guard(s0 <= s1)
    se._version_counter += 1
    assert decide(b, question).truth is Truth.TRUE
    if how == "guards":
        se.guards.clear()
    elif how == "hint":
        se.backed_var_to_val[s0] = sympy.Integer(10)
    elif how == "asserts":
        se.deferred_runtime_asserts.clear()
    elif how == "asserts replaced":  # as many asserts, another last one
        se.deferred_runtime_asserts[None][-1] = SimpleNamespace(expr=u0 >= 1)
    elif how == "asserts shortened":
        se.deferred_runtime_asserts[None].pop()
    elif how == "range":
        se.var_to_range[s0] = VR(2)
    elif how == "replacement":
        del se.replacements[s1]
    se._version_counter += 1
    after = decide(b, question).truth
    assert b.stats.rebuilds == 1
    assert after is (Truth.TRUE if how == "hint" else Truth.UNKNOWN)  # the guard is still there


def test_what_absint_cannot_read_is_counted_and_left_undecided():
    class Opaque(sympy.Function):
        pass

    se = FakeShapeEnv()
    s0 = se.backed("s0", 8)
    se.guard(Opaque(s0) >= 3)
    b = ShapeEnvBridge(se)
    assert decide(b, Opaque(s0) >= 2).truth is Truth.UNKNOWN
    assert b.stats.fact_gaps["Opaque"] == 1 and b.stats.gaps["Opaque"] == 1
    assert decide(b, s0 + 1).by == "not-boolean"


def test_a_contradiction_answers_nothing():
    se = FakeShapeEnv()
    s0 = se.backed("s0", 8)
    se.guard(s0 <= 3)
    se.guard(s0 >= 5)
    b = ShapeEnvBridge(se)
    assert decide(b, s0 >= 100).truth is Truth.UNKNOWN


# ---------------------------------------------------------------- the rule and the signature

@pytest.mark.parametrize("kwargs,plain", [
    ({}, True), ({"size_oblivious": True}, True), ({"size_oblivious": False}, True),
    ({"axioms": None}, True), ({"axioms": ()}, False), ({"axioms": (sympy.true,)}, False),
    ({"var_to_range": ()}, False), ({"var_to_range": None}, True),
    ({"compute_hint": True}, False), ({"compute_hint": False}, True),
    ({"unbacked_only": True}, False), ({"unbacked_only": False}, True), ({"new_keyword": 1}, False),
])
def test_only_plain_calls_are_answered(kwargs, plain):
    assert policy.plain_call((), kwargs) is plain


def test_positional_extras_pass_through():
    assert policy.plain_call((True,), {}) is False


def test_signature_check():
    def good(self, expr, *, unbacked_only=False, compute_hint=False, size_oblivious=False, axioms=None,
             var_to_range=None):
        return None

    def bad(self, expr, *, unbacked_only=False, compute_hint=False, size_oblivious=False, axioms=None):
        return None

    policy.check_signature(good, "2.13.0")
    with pytest.raises(policy.UnsupportedTorch, match="torch 9.9.9"):
        policy.check_signature(bad, "9.9.9")


# ---------------------------------------------------------------- the wrapper, on a fake class

def _wrapped(mode: str, answer=None, check=False):
    calls = []

    def original(self, expr, *, unbacked_only=False, compute_hint=False, size_oblivious=False, axioms=None,
                 var_to_range=None):
        calls.append((expr, axioms))
        return answer

    inst = _Installation(mode, check, original, "fake")
    return _wrapper(inst), inst, calls


def test_fallback_answers_only_plain_undecided_calls():
    se = FakeShapeEnv()
    s0, s1 = se.backed("s0", 8), se.backed("s1", 9)
    se.guard(s0 < s1)
    wrapped, inst, calls = _wrapped("fallback")
    assert wrapped(se, s0 <= s1) is sympy.true
    assert wrapped(se, s0 > s1) is sympy.false
    assert wrapped(se, s0 <= s1, axioms=()) is None  # produce_guards: PyTorch's answer, untouched
    assert wrapped(se, s0 <= s1, compute_hint=True) is None
    assert wrapped(se, s0 <= s1, unbacked_only=True) is None
    assert wrapped(se, s0 <= s1, var_to_range=()) is None
    assert wrapped(se, s0 <= s1, size_oblivious=True) is sympy.true
    assert wrapped(se, s0 <= 5) is None  # absint does not know either
    assert len(calls) == 8  # PyTorch is always asked first
    s = inst.stats
    assert (s.answered, s.passed_through, s.undecided) == (3, 4, 1)


def test_fallback_returns_what_pytorch_decided():
    se = FakeShapeEnv()
    s0 = se.backed("s0", 8)
    wrapped, inst, _ = _wrapped("fallback", answer=sympy.false)
    assert wrapped(se, s0 >= 2) is sympy.false  # PyTorch's answer wins: absint is not asked
    assert inst.stats.asked == 0 and inst.stats.torch_decided == 1


def test_shadow_returns_pytorch_and_records_disagreements():
    se = FakeShapeEnv()
    s0 = se.backed("s0", 8)
    wrapped, inst, _ = _wrapped("shadow", answer=sympy.false)  # a (planted) wrong PyTorch answer
    assert wrapped(se, s0 >= 2) is sympy.false
    [d] = inst.stats.disagreements
    assert (d.kind, d.torch, d.absint) == ("torch", "false", "true")
    wrapped, inst, _ = _wrapped("shadow", answer=None)
    assert wrapped(se, s0 >= 2) is None and inst.stats.decided and not inst.stats.disagreements


def test_check_mode_refuses_an_answer_false_at_the_example():
    se = FakeShapeEnv()
    s0 = se.backed("s0", 8)
    se.guard(s0 <= 3)  # a fact false at the hint (a planted bug upstream)
    wrapped, inst, _ = _wrapped("fallback", check=True)
    assert wrapped(se, s0 <= 4) is None
    assert inst.stats.check_failures == 1 and inst.stats.disagreements[0].kind == "example"


# ---------------------------------------------------------------- traces

def test_recorded_trace_replays_without_contradiction(tmp_path):
    path = tmp_path / "trace.jsonl"
    rec = Recorder(str(path))
    se = FakeShapeEnv()
    s0, s1 = se.backed("s0", 8), se.backed("s1", 9)
    u0 = se.unbacked("u0", 0)
    se.guard(s0 < s1)
    se.runtime_assert(u0 <= s0)
    b = ShapeEnvBridge(se, emit=rec.session({"torch": "fake"}))
    wrapped, inst, _ = _wrapped("shadow")
    inst.bridges[id(se)] = (lambda: se, b)
    for q in (u0 <= s1, u0 > s1, s0 <= s1, u0 >= 1):
        wrapped(se, q)
    rec.close()
    report = replay(path.read_text().splitlines())
    assert report.questions == 4 and report.recorded_decided == 3 and report.replayed_decided == 3
    assert report.findings == ()


def test_replay_finds_a_planted_contradiction():
    lines = ['{"t":"session","s":0}', '{"s":0,"t":"symbol","name":"s0","sort":"Int","hint":8,"backed":true}',
             '{"s":0,"t":"fact","tier":"entry","smt":"(>= s0 2)"}',
             '{"s":0,"t":"q","smt":"(>= s0 1)","route":"entry","torch":"false","absint":"true","by":"x",'
             '"value":true}']
    report = replay(lines)
    assert report.replayed_decided == 1
    assert {f.what for f in report.findings} == {"recorded absint says true, PyTorch says false",
                                                 "replayed absint says true, PyTorch says false"}


def test_the_torch_free_modules_do_not_import_torch():
    code = ("import sys, absint.torch, absint.torch.bridge, absint.torch.client, absint.torch.trace, "
            "absint.torch.policy; assert 'torch' not in sys.modules, 'torch imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_replay_starts_again_after_a_rebuild():
    lines = ['{"t":"session","s":0}', '{"s":0,"t":"symbol","name":"s0","sort":"Int","hint":8,"backed":true}',
             '{"s":0,"t":"fact","tier":"entry","smt":"(>= s0 4)"}',
             '{"s":0,"t":"q","smt":"(>= s0 3)","route":"entry","torch":"none","absint":"true","by":"x","value":true}',
             '{"s":0,"t":"rebuild"}',
             '{"s":0,"t":"q","smt":"(>= s0 3)","route":"entry","torch":"none","absint":"unknown","by":"x",'
             '"value":true}']
    report = replay(lines)
    assert (report.recorded_decided, report.replayed_decided, report.findings) == (1, 1, ())


def test_a_rollback_is_recorded_and_replayed(tmp_path):
    path = tmp_path / "trace.jsonl"
    rec = Recorder(str(path))
    se = FakeShapeEnv()
    s0, s1 = se.backed("s0", 8), se.backed("s1", 9)
    se.guard(s0 < s1)
    b = ShapeEnvBridge(se, emit=rec.session({}))
    wrapped, inst, _ = _wrapped("fallback")
    inst.bridges[id(se)] = (lambda: se, b)
    assert wrapped(se, s0 <= s1) is sympy.true
    se.guards.clear()
    se._version_counter += 1
    assert wrapped(se, s0 <= s1) is None
    rec.close()
    text = path.read_text()
    assert '"t":"rebuild"' in text
    report = replay(text.splitlines())
    assert (report.questions, report.recorded_decided, report.replayed_decided) == (2, 1, 1)
    assert report.findings == ()


# ---------------------------------------------------------------- the routing, by brute force

from hypothesis import example, given, settings, strategies as st  # noqa: E402

_OPS = {"le": (sympy.Le, lambda v: v <= 0), "lt": (sympy.Lt, lambda v: v < 0),
        "eq": (sympy.Eq, lambda v: v == 0), "ne": (sympy.Ne, lambda v: v != 0)}
_REL = st.tuples(st.lists(st.integers(-2, 2), min_size=4, max_size=4), st.integers(-4, 4), st.sampled_from(sorted(_OPS)))


def _holds(rel, point) -> bool:
    coefs, c, op = rel
    return _OPS[op][1](sum(k * x for k, x in zip(coefs, point)) + c)


@settings(max_examples=60, deadline=None)
@given(guards=st.lists(_REL, max_size=3), asserts=st.lists(_REL, max_size=3), questions=st.lists(_REL, min_size=1,
                                                                                                  max_size=4))
# s0 <= s1 through u0: u0 == s0 and u0 <= s1 (a chain random draws rarely make)
@example(guards=[], asserts=[([-1, 0, 1, 0], 0, "eq"), ([0, -1, 1, 0], 0, "le")], questions=[([1, -1, 0, 0], 0, "le")])
def test_entry_answers_hold_without_the_runtime_asserts(guards, asserts, questions):
    """Backed symbols in [1, 4], unbacked ones in [0, 4]: an answer routed to the entry reasoner
    holds at every point that satisfies the guards and the backed-only asserts (export's
    entry checks; asserts on unbacked values may be folded away); one routed to the full
    reasoner at every point that satisfies guards and asserts. (Planted: every runtime
    assert given to the entry reasoner too; this test fails.)"""
    import itertools

    se = FakeShapeEnv()
    symbols = (se.backed("s0", 1, lower=1), se.backed("s1", 2, lower=1), se.unbacked("u0"), se.unbacked("u1"))
    for s in symbols:
        se.var_to_range[s] = VR(1 if s.is_positive else 0, 4)
    guards = [(c[:2] + [0, 0], k, op) for c, k, op in guards]  # guards are over backed symbols
    for rel, add in [(g, se.guard) for g in guards] + [(a, se.runtime_assert) for a in asserts]:
        coefs, c, op = rel
        add(_OPS[op][0](sum(k * x for k, x in zip(coefs, symbols)) + c, 0))
    points = list(itertools.product(range(1, 5), range(1, 5), range(5), range(5)))
    b = ShapeEnvBridge(se)
    for q in questions:
        coefs, c, op = q
        expr = _OPS[op][0](sum(k * x for k, x in zip(coefs, symbols)) + c, 0)
        a = decide(b, expr)
        if a.truth is Truth.UNKNOWN:
            continue
        backed_asserts = [r for r in asserts if r[0][2:] == [0, 0]]
        facts = guards + backed_asserts if a.route == "entry" else guards + asserts
        for p in points:
            if all(_holds(f, p) for f in facts):
                assert _holds(q, p) is (a.truth is Truth.TRUE), (a, expr, p, facts)


def test_an_entry_question_reads_the_replacements_of_its_unbacked_symbols():
    """PyTorch's test_narrow_unbacked_start asks ``Eq(u1, 1)`` where ``u1 -> s86`` and
    ``s86 >= 2``: routed to the entry reasoner (only backed symbols once replaced), which
    must read it as ``Eq(s86, 1)``; a replacement by a constant (``u4 -> 0``) likewise."""
    se = FakeShapeEnv()
    s0 = se.backed("s0", 3)
    u1, u4 = se.unbacked("u1", 0), se.unbacked("u4", 0)
    se.replacements[u1], se.replacements[u4] = s0, sympy.Integer(0)
    se._version_counter += 1
    b = ShapeEnvBridge(se)
    assert b.route(sympy.Eq(u1, 1)) == "entry"
    assert decide(b, sympy.Eq(u1, 1)).truth is Truth.FALSE
    assert decide(b, sympy.Eq(u4, 1)).truth is Truth.FALSE
    assert decide(b, sympy.Eq(u1, 5)).truth is Truth.UNKNOWN  # s0 >= 2 only


def test_replacements_written_behind_the_version_counter_are_read_by_the_next_question():
    """The replaced unbacked symbols are read once per state of the replacements: one added,
    or one overwritten in place (PyTorch's ``_constrain_unify`` writes ``replacements``
    without moving its version counter), is seen by the next question's reading."""
    se = FakeShapeEnv()
    s0, s1 = se.backed("s0", 3), se.backed("s1", 4)
    u1, u2 = se.unbacked("u1", 0), se.unbacked("u2", 0)
    b = ShapeEnvBridge(se)
    assert b._unbacked_replaced(sympy.Eq(u1 + u2, 1)) == sympy.Eq(u1 + u2, 1)
    se.replacements[u1] = s0
    assert b._unbacked_replaced(sympy.Eq(u1 + u2, 1)) == sympy.Eq(s0 + u2, 1)
    se.replacements[u1] = s1  # overwritten: same length, same version
    assert b._unbacked_replaced(sympy.Eq(u1 + u2, 1)) == sympy.Eq(s1 + u2, 1)
    se.replacements[u2] = u1  # a chain: u2 -> u1 -> s1
    assert b._unbacked_replaced(sympy.Eq(u1 + u2, 1)) == sympy.Eq(2 * s1, 1)
    se.replacements[s0] = s1  # a backed symbol's replacement is not applied here
    assert b._unbacked_replaced(sympy.Eq(s0 + u1, 1)) == sympy.Eq(s0 + s1, 1)


def test_size_oblivious_questions_take_pytorchs_meaning_only_where_the_facts_are_silent():
    """``size_oblivious=True`` (torch 2.13 ``_maybe_evaluate_static_worker``): a size-like
    symbol ranges over [max(2, lo), min(2**48, hi) - 1]; other symbols keep their range;
    a size-like range that would empty is left as it is; the bounds never outlive the call."""
    se = FakeShapeEnv()
    u0, u1, u2 = se.unbacked("u0", 0), se.unbacked("u1", 0), se.unbacked("u2", 0)
    se.var_to_range[u2] = VR(0, 1)
    se.size_like = {u0, u2}
    b = ShapeEnvBridge(se)
    b.sync()
    assert b.decide(sympy.Eq(u0, 1)).truth is Truth.UNKNOWN
    a = b.decide(sympy.Eq(u0, 1), size_oblivious=True)
    assert (a.truth, a.by) == (Truth.FALSE, "size-oblivious")
    assert b.decide(sympy.Ne(u0, 2**48), size_oblivious=True).truth is Truth.TRUE  # upper end excluded
    assert b.decide(sympy.Eq(u1, 1), size_oblivious=True).truth is Truth.UNKNOWN  # not size-like
    assert b.decide(sympy.Eq(u2, 1), size_oblivious=True).truth is Truth.UNKNOWN  # [0, 1]: left as it is
    assert b.decide(u0 >= 0, size_oblivious=True).by != "size-oblivious"  # the facts decide it
    assert b.decide(u0 >= 2).truth is Truth.UNKNOWN  # the bounds were taken back


def test_a_range_narrowed_behind_the_version_counter_is_read_before_the_question():
    """torch.export narrows ranges by ``var_to_range[s] &= user_vr``, which does not move
    the ShapeEnv's version (PyTorch's draft export then asks ``Eq(s97, 3)``)."""
    se = FakeShapeEnv()
    s0 = se.backed("s0", 3)
    b = ShapeEnvBridge(se)
    assert decide(b, sympy.Eq(s0, 3)).truth is Truth.UNKNOWN
    se.var_to_range[s0] = VR(3, 3)  # no version bump
    assert decide(b, sympy.Eq(s0, 3)).truth is Truth.TRUE
    se.var_to_range[s0] = VR(2)  # widened behind it too: the facts are rebuilt, never stale
    assert decide(b, sympy.Eq(s0, 3)).truth is Truth.UNKNOWN and b.stats.rebuilds == 1


def test_the_closure_of_a_questions_symbols_is_the_loops_whatever_is_replaced():
    """``_closure`` skips its loop when none of the symbols is replaced (a prefix sum over
    hundreds of lengths is routed per question); with and without replacements, chained or
    to themselves, it gives what the loop gives (a fast path that also skips when one
    symbol is replaced is caught)."""
    import random
    from absint.torch.bridge import _closure_loop
    rng = random.Random(5)
    se = FakeShapeEnv()
    us = [se.unbacked(f"u{i}") for i in range(30)]
    ss = [se.backed(f"s{i}", 4) for i in range(6)]
    b = ShapeEnvBridge(se)
    for _ in range(300):
        se.replacements = {}
        for s in rng.sample(us + ss, rng.randint(0, 4)):
            se.replacements[s] = rng.choice([s, rng.choice(ss), rng.choice(ss) + 1])
        symbols = frozenset(rng.sample(us + ss, rng.randint(0, 12)))
        assert set(b._closure(symbols)) == _closure_loop(se.replacements, symbols)
    se.replacements = {us[0]: ss[0]}
    assert set(b._closure(frozenset(us[:5]))) == set(us[1:5]) | {ss[0]}
