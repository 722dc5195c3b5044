"""Every conditional rewrite rule, on random programs whose divisors can be zero, against Z3.

SMT-LIB leaves ``x div 0`` and ``x mod 0`` unspecified (Z3 reads them as uninterpreted
functions of ``x``), so a rule that cancels or moves a divisor is wrong exactly where
the divisor it keeps can be zero. For each row of the rule table that deciding applies
(:data:`absint.reasoning.rules.DECIDING`, and the expand rows an open guard's monomials meet,
of :data:`absint.reasoning.rules.EXPANDING`) a strategy below draws programs built around its
shape, with divisors that the facts may or may not keep away from zero; every TRUE and
FALSE verdict is checked against Z3, and each rule must have fired on some of them (a
rule the examples never reach is a test that checks nothing).
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest
import attrs
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.reasoning import normal_form, rules
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Truth
from z3_check import z3_implies

x, y, m, u = (T.var(n, T.INT) for n in ("x", "y", "m", "u"))
k = T.const
VARIABLES = (x, y, m, u)

#: divisors: symbols that the facts may keep away from zero, or not; sums that may be zero
DIVISORS = st.sampled_from([m, y, T.mul(m, y), T.sub(m, k(1)), T.mod(u, m), T.add(y, k(2))])
QUOTIENTS = st.sampled_from([x, T.mul(x, y), k(3), T.add(x, k(1)), u])


@st.composite
def bounds(draw):
    """Bounds on every variable: a lower one from {-2..2} (so zero is often allowed), an upper one."""
    out = []
    for v in VARIABLES:
        lo = draw(st.integers(-4, 2))
        out += [T.ge(v, k(lo)), T.le(v, k(lo + draw(st.integers(0, 6))))]
    return out


#: per rule: (term of its shape, the form the rule rewrites it to, were its conditions proved;
#: None for an and/or, which is asked itself)
SHAPES = {
    "exact quotient": lambda d, q, c: [
        (T.div(T.mul(q, d), d), q), (T.mod(T.mul(q, d), d), k(0))],
    "common factor of dividend and divisor": lambda d, q, c: [
        (T.div(T.mul(m, q), T.mul(m, d)), T.div(q, d)), (T.mod(T.mul(m, q), T.mul(m, d)), T.mul(m, T.mod(q, d))),
        (T.div(T.mul(k(8), m), T.mul(m, d)), T.div(k(8), d)), (T.mod(T.mul(m, m), T.mul(m, d)), T.mul(m, T.mod(m, d)))],
    "divisor is an exact quotient of the dividend": lambda d, q, c: [
        (T.div(T.mul(c, x), T.div(x, d)), T.mul(c, d)), (T.mod(T.mul(c, x), T.div(x, d)), k(0)),
        (T.div(x, T.div(x, k(c.data + 1))), k(c.data + 1)), (T.mod(T.mul(c, x), T.div(x, k(2))), k(0))],
    "dividend below the divisor": lambda d, q, c: [
        (T.div(x, d), k(0)), (T.mod(x, d), x), (T.div(k(c.data), d), k(0))],
    "dividend between one and two divisors": lambda d, q, c: [
        (T.div(x, d), k(1)), (T.mod(x, d), T.sub(x, d)), (T.mod(T.add(d, c), d), c), (T.div(T.add(d, c), d), k(1))],
    "remainder by a divisor of a known multiple": lambda d, q, c: [
        (T.mod(q, d), k(0)), (T.mod(x, d), k(0)), (T.mod(T.add(q, x), d), k(0))],
    **{f"quotient by a divisor of a known multiple ({n}*b)": (lambda n: lambda d, q, c: [
        (T.div(q, d), T.scale(T.div(q, T.scale(d, n)), n)), (T.div(x, d), T.scale(T.div(x, T.scale(d, n)), n))])(n)
       for n in rules.MULTIPLES},
    "ite of a proved condition is its first branch": lambda d, q, c: [
        (T.ite(T.ge(d, k(1)), q, x), q), (T.ite(T.ne(d, k(0)), T.div(q, d), k(0)), T.div(q, d))],
    "ite of a refuted condition is its second branch": lambda d, q, c: [
        (T.ite(T.le(d, k(-1)), x, q), q), (T.ite(T.eq(d, k(0)), k(0), T.mod(q, d)), T.mod(q, d))],
    "factor times an exact quotient by a constant": lambda d, q, c: [
        (T.mul(q, T.div(x, k(c.data + 1))), T.div(T.mul(q, x), k(c.data + 1))),
        (T.mul(d, T.div(x, k(c.data + 1))), T.div(T.mul(d, x), k(c.data + 1)))],
    "multiple of an exact quotient by a constant in a sum": lambda d, q, c: [
        (T.add(x, T.scale(T.div(q, k(c.data + 1)), c.data + 1)), T.add(x, q)),
        (T.sub(T.scale(T.div(x, k(c.data + 1)), 2 * (c.data + 1)), d), T.sub(T.scale(x, 2), d))],
    "divisor times its quotient is the dividend less the remainder": lambda d, q, c: [
        (T.mul(d, T.div(q, d)), T.sub(q, T.mod(q, d))),
        (T.mul(d, T.add(T.div(q, d), k(-1))), T.sub(T.sub(q, T.mod(q, d)), d)),
        (T.mul(d, T.div(x, T.neg(d))), T.sub(T.mod(x, T.neg(d)), x))],
    "divisor times its exact quotient": lambda d, q, c: [
        (T.mul(d, T.div(q, d)), q), (T.mul(d, T.div(q, T.scale(d, 2))), T.div(q, k(2)))],
    "min/max of ordered operands is the first": lambda d, q, c: [
        (T.minimum(q, d), q), (T.maximum(q, d), q), (T.minimum(x, T.add(x, c)), x)],
    "min/max of ordered operands is the second": lambda d, q, c: [
        (T.minimum(q, d), d), (T.maximum(q, d), d), (T.maximum(T.mul(x, y), k(1)), k(1))],
    "cancel a non-zero common factor": lambda d, q, c: [(T.mul(d, q), q)],
    "cancel a positive common factor": lambda d, q, c: [(T.mul(d, q), q)],
    "cancel a negative common factor (flips the inequality)": lambda d, q, c: [(T.mul(d, q), q)],
    "divisor times its real quotient": lambda d, q, c: [
        (T.mul(d, T.rdiv(q, d)), q), (T.mul(T.add(y, k(2)), T.rdiv(x, T.add(y, k(2)))), x)],
    "a product of embedded integers is the embedded product": lambda d, q, c: [
        (T.mul(T.to_real(x), T.to_real(q)), T.to_real(T.mul(x, q))), (T.mul(T.to_real(d), T.to_real(y)), T.mul(d, y))],
    "a real comparison of embedded integers is an integer comparison": lambda d, q, c: [
        (T.scale(T.to_real(T.add(x, q)), Fraction(1, c.data + 1)), T.to_real(q)),
        (T.sub(T.to_real(d), T.scale(T.to_real(x), Fraction(c.data, 2))), T.to_real(y))],
    "an and/or keeps one bound per linear form": lambda d, q, c: [
        (T.or_(T.le(q, d), T.le(q, T.add(d, c))), None), (T.and_(T.le(x, c), T.le(x, k(c.data + 2)), T.ge(y, d)), None)],
    "an or drops an equality another disjunct holds at": lambda d, q, c: [
        (T.or_(T.eq(x, k(2 * c.data)), T.eq(T.mod(x, k(2)), k(0))), None), (T.or_(T.eq(q, c), T.le(q, d), T.ge(q, c)), None)],
    "clear a real denominator": lambda d, q, c: [
        (T.rdiv(T.mul(q, d), d), q), (T.rdiv(x, d), c), (T.add(T.rdiv(T.mul(c, d), d), x), T.add(x, c))],
}
#: facts that make a rule's side conditions provable sometimes (and sometimes not)
HINTS = st.sampled_from([
    lambda d, q: [], lambda d, q: [T.ne(d, k(0))], lambda d, q: [T.ge(d, k(1))], lambda d, q: [T.le(d, k(-1))],
    lambda d, q: [T.eq(T.mod(x, d), k(0))], lambda d, q: [T.eq(x, T.mul(d, T.div(x, d)))],
    lambda d, q: [T.eq(T.mod(q, d), k(0))], lambda d, q: [T.le(d, k(-1))], lambda d, q: [T.ge(m, k(1))],
])


SIGNS = {"cancel a positive common factor": T.gt, "cancel a negative common factor (flips the inequality)": T.lt}


@st.composite
def programs(draw, rule_name: str):
    d, q = draw(DIVISORS), draw(QUOTIENTS)
    c = k(draw(st.integers(1, 3)))
    term, rewritten = draw(st.sampled_from(SHAPES[rule_name](d, q, c)))
    facts = draw(bounds()) + draw(HINTS)(d, q)
    if term.sort is T.BOOL:  # an and/or row: the guard is the junction itself
        return facts, term
    if rule_name in SIGNS and draw(st.sampled_from([True, True, True, False])):  # provable often
        facts.append(SIGNS[rule_name](d, k(0)))
    if rule_name == "factor times an exact quotient by a constant" and draw(st.sampled_from([True, True, False])):
        divisor = k(c.data + 1)  # divides x, and the products the shapes build
        facts += [T.eq(T.mod(v, divisor), k(0)) for v in (x, T.mul(q, x), T.mul(d, x))]
    if rule_name == "multiple of an exact quotient by a constant in a sum" and draw(st.sampled_from([True, False])):
        facts += [T.eq(T.mod(v, k(c.data + 1)), k(0)) for v in (x, q)]
    if "known multiple" in rule_name and draw(st.sampled_from([True, True, False])):  # a multiple n*d divides
        n = next((n for n in rules.MULTIPLES if f"({n}*b)" in rule_name), None) or draw(st.sampled_from(rules.MULTIPLES))
        facts += [T.eq(T.mod(q, T.scale(d, n)), k(0)), T.eq(T.mod(x, T.scale(d, n)), k(0))]
    if rule_name.startswith("cancel"):  # m*a <op> m*b: a comparison of two multiples of d
        other = draw(st.sampled_from([T.add(q, k(1)), T.add(q, k(-1)), draw(QUOTIENTS)]))
        compare = draw(st.sampled_from([T.eq, T.ne, T.le, T.lt]))
        return facts, compare(term, T.mul(d, other))
    # mostly the rule's own result (a wrong rule then gives a wrong TRUE), else a neighbour
    rhs = draw(st.sampled_from([rewritten] * 4 + [T.add(rewritten, k(1)), q, k(0), x]))
    compare = draw(st.sampled_from([T.eq, T.eq, T.ne, T.le, T.ge]))
    return facts, compare(term, rhs)


FIRED: Counter = Counter()
#: every row the normal form drives: the deciding rows, and the expand rows of an open guard's
#: monomials (the guard's own rows, driven by the reasoner, are test_extrema's and
#: test_quotient_bounds')
ROWS = rules.DECIDING + tuple(r for r in rules.EXPANDING if r not in rules.GUARD_ROWS)
#: where the normal form looks a row's phase up (what a planted error replaces)
TABLE_OF = {rules.Phase.DECIDE: "BY_KIND", rules.Phase.EXPAND: "EXPAND_BY_KIND"}


def check(facts, guard) -> None:
    """absint's verdict on ``guard`` holds for every integer model of ``facts`` (Z3 decides)."""
    r = Reasoner(relational=False)
    for f in facts:
        r.assume(f)
    truth = r.decide(guard).truth
    FIRED.update(r.normal_form.fired)
    if truth is Truth.UNKNOWN or z3_implies(facts, T.FALSE):
        return  # open, or contradictory facts (every verdict is then vacuously right)
    target = guard if truth is Truth.TRUE else T.not_(guard)
    assert z3_implies(facts, target), f"{truth.name} but Z3 has a counterexample: {facts} |- {guard}"


@pytest.mark.parametrize("rule", [r.name for r in ROWS])
def test_rule_verdicts_agree_with_z3_where_divisors_can_be_zero(rule):
    before = FIRED[rule]

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow],
              database=None, derandomize=True)
    @given(programs(rule))
    def run(program):
        check(*program)

    run()
    assert FIRED[rule] > before, f"no example made rule {rule!r} fire: the test would check nothing"


#: rows that hold at every point (no side condition to drop)
UNCONDITIONAL = {"a product of embedded integers is the embedded product",
                 "a real comparison of embedded integers is an integer comparison",
                 "an and/or keeps one bound per linear form", "an or drops an equality another disjunct holds at"}


def _wrong(t):
    return T.not_(t) if t.sort is T.BOOL else T.add(t, T.const(1, t.sort))


def test_the_unconditional_rows_have_no_conditions():
    rows = [r for r in rules.DECIDING if r.name in UNCONDITIONAL]
    assert len(rows) == len(UNCONDITIONAL) and all(r.conditions is None for r in rows)


@pytest.mark.parametrize("rule", [r.name for r in ROWS])
def test_a_rule_without_its_side_conditions_is_caught(rule, monkeypatch):
    """The planted error: the rule applied unconditionally. The property above must find a
    wrong verdict, or it could not have caught a rule whose conditions are too weak."""
    row = next(r for r in ROWS if r.name == rule)
    if rule in UNCONDITIONAL:  # exact rows: a wrong result instead (a sum off by one, a negated comparison)
        planted = attrs.evolve(row, result=lambda m, normalize: _wrong(row.result(m, normalize)))
    else:
        planted = attrs.evolve(row, conditions=lambda m, normalize: iter(()))
    table = TABLE_OF[row.phase]
    monkeypatch.setattr(normal_form, table, {kind: tuple(planted if r is row else r for r in rows)
                                           for kind, rows in getattr(rules, table).items()})

    @settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow],
              database=None, derandomize=True, phases=[Phase.generate])
    @given(programs(rule))
    def run(program):
        check(*program)

    with pytest.raises(AssertionError, match="Z3 has a counterexample"):
        run()


def test_every_rule_has_shapes():
    assert set(SHAPES) == {r.name for r in ROWS}


@pytest.mark.parametrize("facts, guard", [
    # the fuzzing reproducers (issue 15): each TRUE/FALSE was wrong where the divisor left is 0
    ([T.gt(m, k(0))], T.eq(T.mod(T.mul(m, k(8)), T.mul(m, y)), T.mul(m, T.mod(k(8), y)))),
    ([T.gt(x, k(0))], T.eq(T.div(T.mul(x, y), T.mul(x, T.mod(u, x))), T.div(y, T.mod(u, x)))),
    ([T.gt(u, k(0))], T.eq(T.mod(T.mul(u, u), T.mul(u, y)), T.add(T.mul(u, T.mod(u, y)), k(1)))),
])
def test_cancelling_a_factor_keeps_a_divisor_that_can_be_zero_open(facts, guard):
    r = Reasoner()
    for f in facts:
        r.assume(f)
    assert r.decide(guard).truth is Truth.UNKNOWN
    check(facts, guard)


def _decided_registers_multiple(rows) -> bool:
    """Whether deciding ``x mod y = 0`` (with ``y >= 1``) registers ``x mod (2*y)`` when the
    normal form uses ``rows``."""
    by_kind: dict = {}
    for row in rows:
        for kind in row.kinds:
            by_kind[kind] = by_kind.get(kind, ()) + (row,)
    old, normal_form.BY_KIND = normal_form.BY_KIND, by_kind
    try:
        r = Reasoner()
        r.assume(T.ge(y, k(1)))
        r.decide(T.eq(T.mod(x, y), k(0)))
        return r.network.key_value(T.mod(x, T.scale(y, 2))) is not None
    finally:
        normal_form.BY_KIND = old


def test_a_known_multiple_is_looked_up_never_registered():
    """Registering the multiples a row looks for joins blocks of atoms, which changed a
    polyhedral proof of the corpus (swin_base's assert 945); asked as any other condition
    (the planted error), the row registers ``x mod (2*y)``."""
    assert not _decided_registers_multiple(rules.DECIDING)
    planted = tuple(attrs.evolve(r, known_keys_only=False) for r in rules.DECIDING)
    assert _decided_registers_multiple(planted)
