"""A zero remainder by ``k*B`` is a zero remainder by ``k`` where ``B != 0`` is proved
(``Facts._remainder_by_constant_factor``): checked on a grid of programs whose ``B`` may be
zero against every point of a box and against Z3, with the planted rule (no ``B != 0``)
caught, and on the question PyTorch's test_disable_forced_specializations_ok asks under
primary mode."""

from __future__ import annotations

import itertools

import pytest

from absint.lang import terms as T
from absint.reasoning.facts import Facts
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Truth
from verdict_checks import check_verdicts

I = T.INT
x, y = T.var("x", I), T.var("y", I)
c = T.const
BOX = [{"x": a, "y": b} for a in range(-6, 13) for b in range(-3, 6)]
DIVIDENDS = (x, T.mul(x, y), T.add(T.scale(x, 2), c(1)))


def program(k: int, offset: int, dividend, lowest: int):
    """``lowest <= y <= lowest + 3``, ``0 <= x <= 12`` and ``dividend mod (k*(y + offset)) = 0``:
    ``B = y + offset`` is zero somewhere in the box when ``lowest + offset <= 0``."""
    b = T.add(y, c(offset))
    facts = [T.ge(y, c(lowest)), T.le(y, c(lowest + 3)), T.ge(x, c(0)), T.le(x, c(12)),
             T.eq(T.mod(dividend, T.scale(b, k)), T.ZERO)]
    guards = [T.eq(T.mod(dividend, c(k)), T.ZERO), T.eq(T.scale(T.div(dividend, c(k)), k), dividend)]
    return facts, guards


CASES = list(itertools.product((2, 4, 6), (-1, 0), DIVIDENDS, (0, 2)))


def test_the_derived_remainder_holds_on_the_box_and_for_z3():
    decided = 0
    for k, offset, dividend, lowest in CASES:
        facts, guards = program(k, offset, dividend, lowest)
        for g in guards:
            decided += check_verdicts(facts, g, BOX) is Truth.TRUE
    assert decided >= 6, "the rule never fired: the grid checks nothing"


def test_nothing_follows_where_the_factor_can_be_zero():
    """``x mod (4*(y - 1)) = 0`` with ``y = 1`` allowed says nothing of ``x mod 4``."""
    facts, guards = program(4, -1, x, 0)
    assert check_verdicts(facts, guards[0], BOX) is Truth.UNKNOWN


def test_the_planted_rule_without_its_condition_is_caught(monkeypatch):
    def planted(self, t):
        a, b = t.args
        k, _ = T.content(b)
        if b.kind != T.CONST and abs(k) > 1:
            self._assume(self.normal_form.normalize(T.eq(T.mod(a, c(abs(k))), T.ZERO)))

    monkeypatch.setattr(Facts, "_remainder_by_constant_factor", planted)
    facts, guards = program(4, -1, x, 0)
    with pytest.raises(AssertionError, match="refuted by Z3"):
        check_verdicts(facts, guards[0], BOX)


s6, s11 = T.var("s6", I), T.var("s11", I)
#: PyTorch's test_disable_forced_specializations_ok under primary: ``(s6*s11) mod (4*s6 - 4)
#: == 0`` (recorded as PyTorch's ite of two Python remainders), then whether the elements
#: past ``s6 - 1`` rows of ``(s6*s11) div (4*s6 - 4)*4`` leave a positive remainder
VIEW = [T.ge(s6, c(2)), T.ge(s11, c(2)), T.eq(T.mod(T.mul(s6, s11), T.scale(T.sub(s6, c(1)), 4)), T.ZERO)]
ROWS = T.div(T.mul(s6, s11), T.sub(s6, c(1)))
VIEW_QUESTION = T.le(T.add(s11, T.mul(T.sub(s6, c(1)), s11), T.neg(T.mul(T.sub(s6, c(1)), ROWS)), c(1)), T.ZERO)
VIEW_POINTS = [{"s6": a, "s11": b} for a in range(2, 9) for b in range(2, 30)]


def test_pytorch_s_view_question_is_refuted():
    assert check_verdicts(VIEW, VIEW_QUESTION, VIEW_POINTS) is Truth.FALSE


def test_without_the_rule_the_view_question_is_open(monkeypatch):
    monkeypatch.setattr(Facts, "_remainder_by_constant_factor", lambda self, t: None)
    r = Reasoner(cases=None)
    for f in VIEW:
        r.assume(f)
    assert r.decide(VIEW_QUESTION).truth is Truth.UNKNOWN
