"""A bound on ``max``/``min`` decided as a junction of bounds on its operands
(the guard row of absint.reasoning.rules that expands it): the expansion is an equivalence (brute force and Z3), the
reasoner's verdicts with it hold (brute force and Z3, on random programs with relational
facts), it decides what the layers alone leave open, and a planted error (``and`` and
``or`` swapped) is caught by those checks."""

from __future__ import annotations

import functools
import itertools

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from absint.lang import terms as T
from absint.lang.printer import to_smtlib
import attrs

from absint.lang.rewriting import rewrite
from absint.reasoning import reasoner as reasoner_module, rules
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Truth
import verdict_checks
from verdict_checks import value_at, z3_agrees

I = T.INT
a, b, s = (T.var(n, I) for n in "abs")
c = T.const
VARS = (a, b, s)
#: every variable ranges over [-3, 4] in the brute-force box, and the facts say so
LO, HI = -3, 4
BOX = [T.ge(v, c(LO)) for v in VARS] + [T.le(v, c(HI)) for v in VARS]
POINTS = [dict(zip([v.data for v in VARS], p)) for p in itertools.product(range(LO, HI + 1), repeat=len(VARS))]

ATOMS = st.sampled_from([a, b, s, c(0), c(1), c(-2), T.add(a, b), T.sub(s, a), T.scale(b, 2)])
EXTREMA = st.recursive(ATOMS, lambda inner: st.tuples(st.sampled_from([T.minimum, T.maximum]), inner, inner).map(
    lambda p: p[0](p[1], p[2])), max_leaves=4)
COEFFICIENT = st.sampled_from([-3, -2, -1, 1, 2, 3])
GUARDS = st.tuples(st.sampled_from([T.le, T.lt, T.ge, T.gt]), COEFFICIENT, EXTREMA, ATOMS).map(
    lambda p: p[0](T.scale(p[2], p[1]), p[3]))
RELATIONS = st.lists(st.tuples(st.sampled_from([T.le, T.ge]), ATOMS, ATOMS).map(lambda p: p[0](p[1], p[2])),
                     max_size=2)


ROW = next(r for r in rules.GUARD_ROWS if "max/min" in r.name)


def expand_extremum(g):
    """``g`` rewritten by the row (it has no side condition), or None."""
    return rewrite((ROW,) if g.kind in ROW.kinds else (), (g, g))


def _row_replaced(monkeypatch, row) -> None:
    """The reasoner's expand rows with :data:`ROW` replaced by ``row`` (None: left out)."""
    monkeypatch.setattr(reasoner_module, "EXPAND_BY_KIND", {
        kind: tuple(row if r is ROW else r for r in rows if r is not ROW or row is not None)
        for kind, rows in rules.EXPAND_BY_KIND.items()})


#: the verdict on a guard, checked at every point of the box and by Z3
check_verdicts = functools.partial(verdict_checks.check_verdicts, points=POINTS)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(GUARDS)
def test_the_expansion_is_an_equivalence(guard):
    g = Reasoner().normalize(guard)
    expanded = expand_extremum(g)
    if expanded is None:
        return
    for p in POINTS:
        want = value_at(g, p)
        assert want is not None and value_at(expanded, p) == want, f"{to_smtlib(g)} vs {to_smtlib(expanded)} at {p}"
    assert z3_agrees([], T.iff(g, expanded))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(RELATIONS, GUARDS)
def test_verdicts_hold_by_brute_force_and_z3(relations, guard):
    check_verdicts(BOX + relations, guard)


# PyTorch's `if max(a, b) <= size` after `a + b <= size` (if_max_fits), and its kin: open
# without the expansion, decided with it; the planted error below gets one of them wrong
DECIDED = [
    ([T.ge(a, c(0)), T.ge(b, c(0)), T.le(T.add(a, b), s)], T.le(T.maximum(a, b), s), Truth.TRUE),
    ([T.ge(a, c(0)), T.ge(b, c(0)), T.le(T.add(a, b), s)], T.ge(T.minimum(T.neg(a), T.neg(b)), T.neg(s)), Truth.TRUE),
    ([T.ge(a, c(1)), T.ge(b, c(0)), T.le(T.add(a, b), s)], T.gt(T.maximum(T.maximum(a, b), c(1)), s), Truth.FALSE),
]


@pytest.mark.parametrize("facts, guard, expected", DECIDED)
def test_the_expansion_decides_what_the_layers_leave_open(monkeypatch, facts, guard, expected):
    assert check_verdicts(BOX + facts, guard) is expected
    _row_replaced(monkeypatch, None)
    assert check_verdicts(BOX + facts, guard) is Truth.UNKNOWN


def test_planted_error_and_or_swapped_is_caught(monkeypatch):
    def swapped(m, again):
        e = ROW.result(m, again)
        return T.or_(*e.args) if e.kind == "and" else T.and_(*e.args)

    _row_replaced(monkeypatch, attrs.evolve(ROW, result=swapped))
    # max(a, b) <= s from a <= s alone: the swapped `or` proves it, brute force refutes it
    with pytest.raises(AssertionError, match="but at"):
        check_verdicts(BOX + [T.le(a, s)], T.le(T.maximum(a, b), s))
