"""The presentation rows of the rule table (phase PRESENT: constant divisions folded for
``absint outputs``), generated from the table: each row fires on its shapes, its result
equals the term at every point of a box (Euclidean division evaluated directly), and a
planted wrong result (off by one) is caught; deciding never applies them."""

from __future__ import annotations

import itertools

import attrs
import pytest

from absint.lang import terms as T
from absint.lang.evaluator import evaluate
from absint.reasoning import rules
from absint.reasoning.rules import Phase

x, y = T.var("x", T.INT), T.var("y", T.INT)
c = T.const
POINTS = [{"x": a, "y": b} for a, b in itertools.product(range(-13, 14), range(-5, 6))]

#: per presentation row: terms of its shape (built as the constructors build them)
SHAPES = {
    "nested constant quotients are one quotient": [
        T.div(T.div(x, c(2)), c(3)), T.div(T.add(T.div(T.add(x, y), c(4)), c(1)), c(2)),
        T.div(T.add(T.div(x, c(3)), c(2)), c(3))],
    "a common content leaves a smaller constant quotient": [
        T.div(T.add(T.scale(x, 4), c(2)), c(6)), T.div(T.add(T.scale(x, 6), T.scale(y, 9), c(3)), c(12))],
    "a remainder by a multiple inside a constant remainder is its dividend": [
        T.mod(T.mod(x, c(6)), c(3)), T.mod(T.add(T.scale(T.mod(x, c(8)), 3), y, c(1)), c(4))],
    "a common content leaves a smaller constant remainder": [
        T.mod(T.add(T.scale(x, 4), c(2)), c(8)), T.mod(T.add(T.scale(x, 6), T.scale(y, 3)), c(9))],
    "the one constant quotient of a sum folded": [
        T.add(y, T.scale(T.div(T.div(x, c(2)), c(2)), 3)), T.add(x, T.div(T.add(T.scale(y, 2), c(4)), c(6)))],
}
ROWS = [r for r in rules.RULES if r.phase is Phase.PRESENT]


def _fires(row, t) -> bool:
    return t.kind in row.kinds and row.match(t, t) is not None


def _equal_everywhere(t, shown) -> None:
    for p in POINTS:
        assert evaluate(shown, p) == evaluate(t, p), f"{t} shown as {shown} differs at {p}"


def test_every_presentation_row_has_shapes_and_deciding_never_applies_them():
    assert set(SHAPES) == {r.name for r in ROWS}
    assert not any(r in rows for rows in rules.BY_KIND.values() for r in ROWS)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_each_row_fires_on_its_shapes_and_keeps_the_value(row):
    for t in SHAPES[row.name]:
        assert _fires(row, t), f"{row.name!r} does not fire on {t}"
        one_step = row.result(row.match(t, t), lambda s: rules.rewrite_exact(s, rules.PRESENT_BY_KIND))
        _equal_everywhere(t, one_step)
        _equal_everywhere(t, rules.rewrite_exact(t, rules.PRESENT_BY_KIND))


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_a_planted_wrong_result_is_caught(row):
    planted = attrs.evolve(row, result=lambda m, present: T.add(row.result(m, present), c(1)))
    t = SHAPES[row.name][0]
    with pytest.raises(AssertionError, match="differs"):
        _equal_everywhere(t, planted.result(planted.match(t, t), lambda s: s))
