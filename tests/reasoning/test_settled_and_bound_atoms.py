"""Two ways a question is read without normalising it over a whole prefix sum:

* an atom a binding eliminated (``s`` where ``s = u0 + ... + un``) is read by layer 1's fast
  path through its normal form's value (``Entailment._bound_atom_value``);
* a guard ``decide`` settled TRUE/FALSE is kept as asked (``Reasoner._settle``), and an
  and/or reads its operands from there; a rollback takes back what its future settled.

Checked: random programs of that shape, each guard asked alone and then inside an and/or,
every verdict against brute force and Z3; a planted wrong stand-in value and a memo kept
past a rollback are each caught.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.lang.evaluator import evaluate
from absint.reasoning.entailment import Entailment
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Layer, Truth
from term_strategies import program_text

U = [T.var(f"u{i}", T.INT) for i in range(3)]
S = T.var("s", T.INT)
BOX = range(-2, 4)
k = T.const

COEF = st.sampled_from([-2, -1, 0, 1, 2])
KIND = st.sampled_from([T.le, T.lt, T.eq, T.ne, T.ge])


@st.composite
def programs(draw):
    """Bounds on each length, ``s = sum of c_i * u_i``, and comparisons over the lengths
    and ``s`` as written (``s`` is eliminated by the equality, so it is no key)."""
    lows = [draw(st.integers(-2, 2)) for _ in U]
    facts = [T.ge(u, k(lo)) for u, lo in zip(U, lows)] + [T.le(u, k(3)) for u in U]
    total = [draw(st.sampled_from([1, 1, 2, -1])) for _ in U]
    facts.append(T.eq(S, T.add(*(T.mul(k(c), u) for c, u in zip(total, U)))))
    if draw(st.booleans()):
        facts.append(T.ge(S, k(draw(st.integers(-3, 4)))))
    guards = []
    for _ in range(draw(st.integers(2, 5))):
        terms = [T.mul(k(draw(COEF)), u) for u in U] + [T.mul(k(draw(st.sampled_from([-1, 1]))), S)]
        guards.append(draw(KIND)(T.add(*terms), k(draw(st.integers(-4, 4)))))
    return facts, guards


def _models(facts):
    """The points of the box (``s`` following from the lengths) that satisfy the facts."""
    out = []
    for values in itertools.product(BOX, repeat=len(U)):
        point = dict(zip((u.data for u in U), values))
        for s in range(-12, 13):  # every sum of the program's coefficients over the box
            point["s"] = s
            if all(evaluate(f, point) is True for f in facts):
                out.append(dict(point))
    return out


def _asked(facts, guards):
    """Each pair as an and and as an or (operands read as written), each guard alone, then
    the pairs again (operands settled)."""
    r = Reasoner()
    r.prefer_to_eliminate([S])
    for f in facts:
        r.assume(f)
    pairs = [j(a, b) for a, b in itertools.permutations(guards, 2) for j in (T.and_, T.or_)]
    asked = pairs + list(guards) + pairs
    return r, [(g, r.decide(g)) for g in asked]


def check(facts, guards) -> None:
    r, verdicts = _asked(facts, guards)
    models = _models(facts)
    if r.contradiction or not models:
        return
    for g, v in verdicts:
        if v.truth is Truth.UNKNOWN:
            continue
        want = v.truth is Truth.TRUE
        for p in models:
            assert evaluate(g, p) is want, (g, v, p)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_verdicts_hold_at_every_model_in_the_box(program):
    check(*program)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_no_verdict_is_refuted_by_z3(program):
    z3 = pytest.importorskip("z3")
    facts, guards = program
    r, verdicts = _asked(facts, guards)
    if r.contradiction:
        return
    for g, v in verdicts:
        if v.truth is Truth.UNKNOWN:
            continue
        solver = z3.Solver()
        solver.set("timeout", 2000)
        solver.add(z3.parse_smt2_string(program_text([*U, S], facts + [T.not_(g) if v.truth is Truth.TRUE else g])))
        assert solver.check() != z3.sat, (g, v)


def test_an_eliminated_atom_is_read_through_its_normal_form_and_nothing_is_registered():
    """``-s - u0 - u1 <= 0`` with ``s = u0 + u1 + u2`` and every length ``>= 0``: TRUE as
    written (``s`` is no key), with no key added."""
    r = Reasoner()
    r.prefer_to_eliminate([S])
    for f in [*(T.ge(u, k(0)) for u in U), T.eq(S, T.add(*U))]:
        r.assume(f)
    g = T.le(T.sub(T.neg(S), T.add(U[0], U[1])), k(0))
    assert S not in set(r.network.keys())
    keys = list(r.network.keys())
    assert Entailment(r).quick_truth(g) is True
    assert list(r.network.keys()) == keys
    assert Entailment(r).quick_truth(T.le(T.sub(T.add(U[0], U[1]), S), k(-1))) is None


def test_a_planted_wrong_stand_in_is_caught(monkeypatch):
    """A stand-in that reads the negated normal form's value for ``s``."""
    def planted(self, atom):
        n = self.facade.normalized(atom)
        if n is None or n is atom:
            return None
        neg = T.neg(n)
        key = self.network.split(neg)[1]
        if key is not None and self.network.key_value(key) is None:
            return None
        return self.network.value(neg)

    monkeypatch.setattr(Entailment, "_bound_atom_value", planted)
    facts = [*(T.ge(u, k(1)) for u in U), *(T.le(u, k(3)) for u in U), T.eq(S, T.add(*U)), T.ge(S, k(0))]
    with pytest.raises(AssertionError):
        check(facts, [T.le(T.neg(S), k(-3)), T.ge(U[0], k(1))])


def test_a_settled_guard_is_read_inside_an_and_and_rolled_back_with_its_facts():
    x = U[0]
    r = Reasoner()
    r.assume(T.ge(x, k(0)))
    cp = r.checkpoint()
    r.assume(T.ge(x, k(5)))
    assert r.decide(T.ge(x, k(3))).truth is Truth.TRUE
    both = r.decide(T.and_(T.ge(x, k(3)), T.ge(x, k(-1))))
    assert both.truth is Truth.TRUE and both.by is Layer.INTERVAL
    r.rollback(cp)
    assert r.decide(T.ge(x, k(3))).truth is Truth.UNKNOWN
    assert r.decide(T.and_(T.ge(x, k(3)), T.ge(x, k(-1)))).truth is Truth.UNKNOWN
    r.commit(cp)


def test_a_memo_kept_past_a_rollback_is_caught(monkeypatch):
    """A settle that writes past the trail keeps a TRUE the rolled-back fact gave."""
    def planted(self, guard, v):
        self._settled[guard] = v

    monkeypatch.setattr(Reasoner, "_settle", planted)
    with pytest.raises(AssertionError):
        test_a_settled_guard_is_read_inside_an_and_and_rolled_back_with_its_facts()


def test_an_and_reads_a_settled_operand_instead_of_normalising_it(monkeypatch):
    """The prefix sum's bound asked alone, then inside PyTorch's narrow ``and``: the and is
    decided without its operand's normal form being asked for again."""
    r = Reasoner()
    r.prefer_to_eliminate([S])
    for f in [*(T.ge(u, k(0)) for u in U), T.eq(S, T.add(*U))]:
        r.assume(f)
    alone = T.le(T.add(U[0], U[1]), S)
    assert r.decide(alone).truth is Truth.TRUE
    narrow = T.and_(alone, T.le(T.sub(T.neg(S), T.add(U[0], U[1])), k(0)))
    normal = r.normal_form.normalize
    asked = []
    monkeypatch.setattr(Reasoner, "normalize", lambda self, t: asked.append(t) or normal(t))
    assert r.decide(narrow).truth is Truth.TRUE
    assert asked == []
