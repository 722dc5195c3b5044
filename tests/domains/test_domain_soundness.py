"""Every forward and backward operator of every value domain, checked against brute force.

For a term whose operands are variables (or constants), hypothesis draws small abstract
values for the variables; every concrete operand tuple in their concretisation (within a
window) is evaluated with :func:`absint.lang.evaluator.evaluate`, the exact SMT-LIB semantics,
and

* forward: the concrete result lies in γ(forward(term, args));
* backward: every tuple whose result lies in γ(result) has each operand in
  γ(backward(term, result, args)[i]), and each narrowed operand is ⊑ the given one.

A term without a value at a point (``x div 0``, ``(-1)^(1/2)``, ``0^(-1)``) may take any
value there: forward must then be top, and backward must keep the tuple whatever the
result is. An irrational result (``2^(1/2)``) is compared exactly.
"""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction as F

import pytest
from domain_laws import (
    CASES,
    Irrational,
    concretise,
    gamma,
    int_congruences,
    int_ics,
    int_intervals,
    real_congruences,
    real_ics,
    real_intervals,
    window,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.lang.evaluator import NotEvaluable, evaluate
from domains import VALUE_DOMAINS
from domains.congruence import CONGRUENCE
from domains.interval import INTERVAL
from domains.interval_congruence import IC

DOMAINS = {
    "interval": (INTERVAL, {T.INT: int_intervals(False), T.REAL: real_intervals(False)}),
    "congruence": (CONGRUENCE, {T.INT: int_congruences(False), T.REAL: real_congruences(False)}),
    "interval-congruence": (IC, {T.INT: int_ics(False), T.REAL: real_ics(False)}),
}


def test_every_registered_domain_is_checked_here():
    """A domain in ``domains.VALUE_DOMAINS`` without strategies here would go unchecked."""
    assert {name: domain for name, (domain, _) in DOMAINS.items()} == VALUE_DOMAINS

ARBITRARY = object()  # the term has no defined value at this point: any value is possible
SOUNDNESS = settings(max_examples=40, deadline=None)


@pytest.mark.parametrize("name, term, kind", CASES, ids=[c[0] for c in CASES])
def test_case_has_the_intended_kind(name, term, kind):
    assert term.kind == kind


def _variables(term):
    seen = []
    for a in term.args:
        if a.kind == "var" and a not in seen:
            seen.append(a)
    return seen


@functools.lru_cache(maxsize=None)
def concrete(term, values: tuple):
    """The value of ``term`` with its variables (in :func:`_variables` order) set to ``values``."""
    env = {v.data: val for v, val in zip(_variables(term), values)}
    try:
        return evaluate(term, env)
    except NotEvaluable:
        if term.kind == "pow" and term.sort is T.REAL:
            base, e = (env[a.data] if a.kind == "var" else a.data for a in term.args)
            if base > 0 and F(e).denominator != 1:
                return Irrational(base, e)
        return ARBITRARY


def _draw_operands(data, domain, strategies, term):
    """Abstract values for the variables, the args list, and the concrete values to enumerate."""
    variables = _variables(term)
    limit = 12 if len(variables) <= 2 else 5  # keep three-variable products of windows small
    abstract, values = {}, []
    for v in variables:
        a = data.draw(strategies[v.sort], label=v.data)
        abstract[v] = a
        vals = [c for c in concretise(a, v.sort) if -limit <= c <= limit]
        values.append(vals)
    args = [abstract[a] if a.kind == "var" else domain.constant(a.data, a.sort) for a in term.args]
    return variables, args, values


def _operand_values(term, variables, combo):
    env = dict(zip(variables, combo))
    return [env[a] if a.kind == "var" else a.data for a in term.args]


@pytest.mark.parametrize("domain_name", DOMAINS)
@pytest.mark.parametrize("name, term, kind", CASES, ids=[c[0] for c in CASES])
def test_forward_is_sound(domain_name, name, term, kind):
    domain, strategies = DOMAINS[domain_name]

    @SOUNDNESS
    @given(st.data())
    def check(data):
        variables, args, values = _draw_operands(data, domain, strategies, term)
        out = domain.forward(term, args)
        top = domain.top(term.sort)
        for combo in itertools.product(*values):
            v = concrete(term, combo)
            if v is ARBITRARY:
                assert domain.leq(top, out), (combo, out)
            else:
                assert gamma(out, v), (combo, v, out)

    check()


@pytest.mark.parametrize("domain_name", DOMAINS)
@pytest.mark.parametrize("name, term, kind", CASES, ids=[c[0] for c in CASES])
def test_backward_is_sound(domain_name, name, term, kind):
    domain, strategies = DOMAINS[domain_name]

    @SOUNDNESS
    @given(st.data())
    def check(data):
        variables, args, values = _draw_operands(data, domain, strategies, term)
        combos = list(itertools.product(*values))
        # a result that is either arbitrary or built from some actual results (so it matters)
        results = [concrete(term, c) for c in combos]
        picked = [r for r in results if r is not ARBITRARY and not isinstance(r, Irrational)]
        if picked and data.draw(st.booleans(), label="result from actual values"):
            chosen = data.draw(st.lists(st.sampled_from(picked), min_size=1, max_size=3), label="results")
            result = domain.bottom(term.sort)
            for r in chosen:
                result = domain.join(result, domain.constant(r, term.sort))
        else:
            result = data.draw(strategies[term.sort], label="result")
        out = list(domain.backward(term, result, args))
        assert len(out) == len(args)
        for narrowed, given_ in zip(out, args):
            assert domain.leq(narrowed, given_), (narrowed, given_)
        for combo, v in zip(combos, results):
            consistent = (not domain.is_bottom(result)) if v is ARBITRARY else gamma(result, v)
            if consistent:
                for narrowed, value in zip(out, _operand_values(term, variables, combo)):
                    assert gamma(narrowed, value), (combo, v, result, out)

    check()


_HOLDS = {
    "le": lambda v: v <= 0,
    "lt": lambda v: v < 0,
    "eq": lambda v: v == 0,
    "ne": lambda v: v != 0,
}


@pytest.mark.parametrize("domain_name", DOMAINS)
@pytest.mark.parametrize("sort", [T.INT, T.REAL], ids=["int", "real"])
@pytest.mark.parametrize("kind", sorted(_HOLDS))
def test_truth_is_sound(domain_name, sort, kind):
    domain, strategies = DOMAINS[domain_name]

    @settings(max_examples=60, deadline=None)
    @given(strategies[sort])
    def check(v):
        verdict = domain.truth(kind, v)
        members = concretise(v, sort)
        if verdict is True:
            assert all(_HOLDS[kind](c) for c in members)
        elif verdict is False:
            assert not any(_HOLDS[kind](c) for c in members)

    check()


@pytest.mark.parametrize("domain_name", DOMAINS)
@pytest.mark.parametrize("sort", [T.INT, T.REAL], ids=["int", "real"])
@pytest.mark.parametrize("kind", sorted(_HOLDS))
def test_restrict_is_sound(domain_name, sort, kind):
    domain, strategies = DOMAINS[domain_name]

    @settings(max_examples=60, deadline=None)
    @given(strategies[sort])
    def check(v):
        r = domain.restrict(kind, v)
        assert domain.leq(r, v)
        for c in concretise(v, sort):
            if _HOLDS[kind](c):
                assert gamma(r, c), (c, v, r)

    check()


@pytest.mark.parametrize("domain_name", DOMAINS)
@pytest.mark.parametrize("sort", [T.INT, T.REAL], ids=["int", "real"])
def test_truth_decides_constants(domain_name, sort):
    """Precision floor: a constant decides every comparison with zero."""
    domain, _ = DOMAINS[domain_name]
    for c in window(sort):
        v = domain.constant(c, sort)
        for kind, holds in _HOLDS.items():
            assert domain.truth(kind, v) is holds(c)


@pytest.mark.parametrize("domain_name", DOMAINS)
def test_forward_of_constant_term_is_that_constant(domain_name):
    domain, _ = DOMAINS[domain_name]
    for c in (T.const(-3), T.const(F(5, 2), T.REAL)):
        out = domain.forward(c, [])
        assert concretise(out, c.sort) == [c.data]


@pytest.mark.parametrize("domain_name", DOMAINS)
@pytest.mark.parametrize("sort", [T.INT, T.REAL], ids=["int", "real"])
def test_forward_of_variable_is_top(domain_name, sort):
    domain, _ = DOMAINS[domain_name]
    assert domain.leq(domain.top(sort), domain.forward(T.var("v", sort), []))
