"""Layer 1's verdict (``absint.reasoning.entailment``), asked directly on a reasoner's facts:
the fast path reads bounds and registers nothing; ``truth`` registers what it reads."""

from __future__ import annotations

from absint.lang import terms as T
from absint.reasoning.entailment import Entailment
from absint.reasoning.reasoner import Reasoner

x, y, s = (T.var(n, T.INT) for n in ("x", "y", "s"))
k = T.const


def _told(*facts) -> Reasoner:
    r = Reasoner()
    for f in facts:
        r.assume(f)
    return r


def test_the_fast_path_decides_from_the_atoms_bounds_and_registers_nothing():
    r = _told(T.ge(x, k(5)), T.le(y, k(1)))
    e = Entailment(r)
    keys = list(r.network.keys())
    assert e.quick_truth(r.normalize(T.gt(x, y))) is True
    assert e.quick_truth(r.normalize(T.lt(x, k(3)))) is False
    assert e.quick_truth(r.normalize(T.ge(x, k(6)))) is None
    assert list(r.network.keys()) == keys


def test_an_and_is_decided_by_the_fast_path_operand_by_operand():
    r = _told(T.ge(x, k(0)), T.le(x, k(4)), T.ge(s, k(10)))
    e = Entailment(r)
    assert e.quick_truth(r.normalize(T.and_(T.le(k(0), x), T.le(T.add(x, k(4)), s)))) is True
    assert e.quick_truth(r.normalize(T.and_(T.ge(x, k(9)), T.ge(y, k(0))))) is False


def test_truth_registers_the_comparison_it_reads_so_later_facts_narrow_it():
    r = _told(T.ge(x, k(0)), T.ge(y, k(0)))
    e = Entailment(r)
    g = r.normalize(T.le(T.sub(x, y), k(3)))
    _, key, _ = r.network.split(g.args[0])
    assert key not in set(r.network.keys())
    assert e.truth(g) is None
    assert key in set(r.network.keys())
    r.assume(T.le(x, k(2)))
    assert e.truth(g) is True


def test_a_junctions_operands_the_fast_path_decides_as_written_are_never_normalised():
    """``and(A, B)`` where ``B`` holds as written (its atoms' bounds show it) and ``A`` needs
    the equality the normal form substitutes: TRUE, and only ``A`` is normalised (normalising
    ``B`` too wrote it over every length of a prefix-sum split). A FALSE operand decides an
    ``and`` as written, a TRUE one an ``or``."""
    from absint.reasoning.verdict import Truth
    u = [T.var(f"u{i}", T.INT) for i in range(4)]
    r = _told(*(T.ge(a, k(0)) for a in u), T.eq(s, T.add(*u)))
    a_, b_ = T.le(T.add(*u[:2]), s), T.le(T.neg(T.add(*u[:2])), k(0))
    assert r.decide(T.and_(a_, b_)).truth is Truth.TRUE
    assert b_ not in r.normal_form._memo and a_ in r.normal_form._memo
    assert r.decide(T.and_(a_, T.lt(u[0], k(0)))).truth is Truth.FALSE
    assert r.decide(T.or_(T.ge(u[3], k(0)), T.lt(s, u[0]))).truth is Truth.TRUE
    assert r.decide(T.or_(T.lt(u[3], k(0)), T.lt(u[2], k(0)))).truth is Truth.FALSE
