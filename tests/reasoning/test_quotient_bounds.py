"""A comparison of a quotient by a positive symbolic divisor with a constant, decided as
bounds on its dividend (the guard rows of absint.reasoning.rules that expand it): the expansion is an equivalence
wherever the divisor is positive (brute force and Z3), the reasoner's verdicts with it hold
on random programs (brute force and Z3), it decides PyTorch's export questions the layers
leave open, and three planted errors (an off-by-one bound, a divisor's sign or its
divisibility not checked) are caught."""

from __future__ import annotations

import functools
import itertools

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from absint.lang import terms as T
from absint.lang.kinds import LE
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
LO, HI = -3, 5
BOX = [T.ge(v, c(LO)) for v in VARS] + [T.le(v, c(HI)) for v in VARS]
POINTS = [dict(zip([v.data for v in VARS], p)) for p in itertools.product(range(LO, HI + 1), repeat=len(VARS))]

DIVIDENDS = st.sampled_from([a, s, T.add(a, s), T.mul(a, s), T.sub(T.mul(a, b), c(1)), T.scale(a, 3)])
DIVISORS = st.sampled_from([b, T.add(b, c(1)), T.sub(s, c(1)), T.mul(b, s)])
GUARDS = st.tuples(st.sampled_from([T.le, T.lt, T.ge, T.gt, T.eq, T.ne]), st.sampled_from([-3, -2, -1, 1, 2, 3]),
                   DIVIDENDS, DIVISORS, st.integers(-4, 4)).map(
    lambda p: p[0](T.scale(T.div(p[2], p[3]), p[1]), c(p[4])))
#: facts that make a divisor positive (or not), and relate the dividend to it
FACTS = st.lists(st.sampled_from([
    T.ge(b, c(1)), T.ge(s, c(2)), T.ge(a, c(0)), T.ge(b, c(0)), T.le(a, T.scale(b, 2)), T.ge(a, s),
    T.ge(T.mul(a, s), T.scale(s, 2)), T.eq(T.mod(a, b), c(0)), T.le(s, T.add(a, c(1)))]), max_size=4)


EXACT, BOUNDS = (r for r in rules.GUARD_ROWS if "quotient" in r.name)


def expand_quotient(g, exact: bool = False):
    """``g`` rewritten by the exact row or the other, their conditions taken as proved."""
    row = EXACT if exact else BOUNDS
    return rewrite((row,) if g.kind in row.kinds else (), (g, g), None, lambda row, m: True)


def _rows_replaced(monkeypatch, exact, bounds) -> None:
    """The reasoner's expand rows with the two quotient rows replaced (None: left out)."""
    new = {EXACT: exact, BOUNDS: bounds}
    monkeypatch.setattr(reasoner_module, "EXPAND_BY_KIND", {
        kind: tuple(new.get(r, r) for r in rows if new.get(r, r) is not None)
        for kind, rows in rules.EXPAND_BY_KIND.items()})


#: the verdict on a guard, checked at every point of the box and by Z3
check_verdicts = functools.partial(verdict_checks.check_verdicts, points=POINTS)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(GUARDS)
def test_the_expansion_is_an_equivalence_where_the_divisor_is_positive(guard):
    g = Reasoner().normalize(guard)
    expanded = expand_quotient(g)
    if expanded is None:
        return
    divisor = next(q for q in T.linear_parts(g.args[0])[0]).args[1]
    checked = 0
    for p in POINTS:
        if value_at(divisor, p) is not None and value_at(divisor, p) > 0:
            assert value_at(expanded, p) == value_at(g, p), f"{to_smtlib(g)} vs {to_smtlib(expanded)} at {p}"
            checked += 1
    assert checked > 0
    assert z3_agrees([T.gt(divisor, c(0))], T.iff(g, expanded))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(GUARDS)
def test_the_exact_expansion_is_an_equivalence_where_the_divisor_divides(guard):
    g = Reasoner().normalize(guard)
    expanded = expand_quotient(g, exact=True)
    if expanded is None:
        return
    a, divisor = next(q for q in T.linear_parts(g.args[0])[0]).args
    exact = T.eq(T.mod(a, divisor), c(0))
    for p in POINTS:
        if value_at(divisor, p) is not None and value_at(divisor, p) > 0 and value_at(exact, p):
            assert value_at(expanded, p) == value_at(g, p), f"{to_smtlib(g)} vs {to_smtlib(expanded)} at {p}"
    assert z3_agrees([T.gt(divisor, c(0)), exact], T.iff(g, expanded))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(FACTS, GUARDS)
def test_verdicts_hold_by_brute_force_and_z3(facts, guard):
    check_verdicts(BOX + facts, guard)


P = T.mul(s, a)  # PyTorch's s77*s27, divided by s77 - 1 after (s77*s27) % (s77 - 1) == 0
EXPORT = [T.ge(s, c(3)), T.ge(a, c(2)), T.eq(T.mod(P, T.sub(s, c(1))), c(0))]
DECIDED = [  # unbounded above, as in PyTorch (in the box, intervals alone decide some of them)
    (EXPORT, T.eq(T.div(P, T.sub(s, c(1))), c(1)), Truth.FALSE),
    (EXPORT, T.ne(T.div(P, T.sub(s, c(1))), c(0)), Truth.TRUE),
    (EXPORT, T.ge(T.div(P, T.sub(s, c(1))), c(2)), Truth.TRUE),
    (BOX + [T.ge(b, c(1)), T.ge(a, T.scale(b, 2)), T.lt(a, T.scale(b, 3))], T.le(T.div(a, b), c(2)), Truth.TRUE),
    # export's s6*s11 % (4*(s6 - 1)) == 0: the quotient of a positive multiple is not 0
    ([T.ge(s, c(2)), T.ge(a, c(2)), T.eq(T.mod(P, T.scale(T.sub(s, c(1)), 4)), c(0))],
     T.eq(T.div(P, T.scale(T.sub(s, c(1)), 4)), c(0)), Truth.FALSE),
]


@pytest.mark.parametrize("facts, guard, expected", DECIDED)
def test_the_expansion_decides_what_the_layers_leave_open(monkeypatch, facts, guard, expected):
    assert check_verdicts(facts, guard) is expected
    _rows_replaced(monkeypatch, None, None)
    assert check_verdicts(facts, guard) is Truth.UNKNOWN


def test_planted_off_by_one_is_caught(monkeypatch):
    """``q <= c`` read as ``a < c*b`` (one divisor short, i.e. as ``q <= c - 1``): with
    ``2*b <= a < 3*b``, ``a div b <= 2`` holds, and the short bound refutes it."""
    def short(match):
        def read(t, g):
            if g.kind != LE or match(t, g) is None:
                return match(t, g)
            k = next(iter(T.linear_parts(g.args[0])[0].values()))
            return match(t, T.le(T.add(g.args[0], c(k)), c(0)))

        return read

    _rows_replaced(monkeypatch, attrs.evolve(EXACT, match=short(EXACT.match)),
                   attrs.evolve(BOUNDS, match=short(BOUNDS.match)))
    with pytest.raises(AssertionError, match="but at|refuted"):
        check_verdicts(BOX + [T.ge(b, c(1)), T.ge(a, T.scale(b, 2)), T.lt(a, T.scale(b, 3))], T.le(T.div(a, b), c(2)))


def test_planted_sign_unchecked_is_caught(monkeypatch):
    """The divisor taken as positive without proof: with ``b <= -1`` and ``a >= -b``,
    ``a div b <= -1`` holds (``3 div -2 = -1``), and the expansion's ``a < 0*b`` refutes it."""
    def divides(m, again):
        yield (T.eq(T.mod(m.dividend, m.divisor), c(0)),)

    _rows_replaced(monkeypatch, attrs.evolve(EXACT, conditions=divides), attrs.evolve(BOUNDS, conditions=None))
    with pytest.raises(AssertionError, match="but at|refuted"):
        check_verdicts(BOX + [T.le(b, c(-1)), T.ge(T.add(a, b), c(0))], T.le(T.div(a, b), c(-1)))


def test_planted_divisibility_unchecked_is_caught(monkeypatch):
    """The exact bounds without ``a mod b = 0``: ``a div b == 0`` read as ``a == 0`` is
    refuted by ``a >= 1``, yet ``1 div 2 = 0``."""
    _rows_replaced(monkeypatch, attrs.evolve(EXACT, conditions=BOUNDS.conditions), BOUNDS)
    with pytest.raises(AssertionError, match="but at|refuted"):
        check_verdicts(BOX + [T.ge(b, c(1)), T.ge(a, c(1))], T.eq(T.div(a, b), c(0)))
