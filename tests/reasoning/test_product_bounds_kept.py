"""A bound the facts state on a product of sizes, and the comparisons between products of
``// 2`` chains, stay proved once divisibility facts arrive (release a04f2a6 proved them).

The row ``f*(a div c) = (f*a) div c`` (``c | a`` and ``(f*a) mod c = 0`` known) rewrote a
product in the normal form as soon as those remainders were known: a bound stated earlier on
``h*(w // 2)`` stayed on the old key, the guard read the new one, and ``h*(w // 2) <= 460``
after ``h*(w // 2) <= 460`` was open; ``w*((h + 1) // 2) <= w*(h // 2)`` lost its common
factor on one side only. The row now applies to the monomials of a guard left open (the
expand phase). Every TRUE is checked on a box and by Z3; the row put back in the normal form
is the planted error the fixed cases catch.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.reasoning import normal_form, rules
from absint.reasoning.verdict import Truth
from verdict_checks import check_verdicts

h, w, c3 = (T.var(n, T.INT) for n in ("h", "w", "c"))
k = T.const
ROW = "factor times an exact quotient by a constant"
POINTS = [dict(zip(("h", "w", "c"), p)) for p in itertools.product(range(1, 19), range(1, 19), (1, 2, 3, 4))]


def half(t, up: int = 0):
    return T.div(T.add(t, k(up)), k(2))


def even(t, m: int = 2):
    return T.eq(T.mod(t, k(m)), k(0))


SIZES = [T.ge(h, k(1)), T.ge(w, k(1))]
#: a stated product bound, then the remainders that made the row rewrite the product
STATED = SIZES + [T.le(T.mul(h, half(w)), k(60)), even(T.mul(w, h)), even(w)]
#: h even and h*w even: (h + 1) // 2 is h // 2, and the two products share the factor w
PARITY = SIZES + [T.le(T.mul(h, w), k(200)), even(T.mul(h, w)), even(h)]
#: the same with a third size as the shared factor and a deeper chain on one side
CHANNELS = SIZES + [T.ge(c3, k(1)), even(T.mul(c3, h)), even(h)]
CASES = [
    (STATED, T.le(T.mul(h, half(w)), k(60))),
    (STATED, T.le(T.mul(h, half(w)), k(61))),
    (STATED, T.le(T.mul(half(h), half(w)), k(60))),
    (PARITY, T.le(T.mul(w, half(h, 1)), T.mul(w, half(h)))),
    (CHANNELS, T.le(T.mul(c3, half(half(half(h)), 1)), T.mul(c3, half(h)))),
]


@pytest.mark.parametrize("facts, guard", CASES)
def test_the_stated_bound_and_the_shared_factor_are_read_after_divisibility_facts(facts, guard):
    assert check_verdicts(facts, guard, POINTS) is Truth.TRUE


def test_planted_error_the_row_in_the_normal_form_again_is_caught(monkeypatch):
    """The row back among the deciding rows (where it lost the proofs) fails the cases."""
    row = next(r for r in rules.RULES if r.name == ROW)
    by_kind = dict(normal_form.BY_KIND)
    by_kind[T.MUL] = by_kind.get(T.MUL, ()) + (row,)
    monkeypatch.setattr(normal_form, "BY_KIND", by_kind)
    failed = 0
    for facts, guard in CASES:
        try:
            test_the_stated_bound_and_the_shared_factor_are_read_after_divisibility_facts(facts, guard)
        except AssertionError:
            failed += 1
    assert failed >= 2


def test_the_row_still_decides_pytorchs_view_question_once_the_guard_is_open():
    """``s0*(s30 // 8)`` against ``s30*s0`` (what the row is for): the guard left open by the
    layers is multiplied out and meets it."""
    s0, s30 = T.var("s0", T.INT), T.var("s30", T.INT)
    facts = [T.ge(s0, k(2)), T.ge(s30, k(2)), even(s30, 8), even(T.mul(s30, s0), 8)]
    guard = T.eq(T.scale(T.mul(s0, T.div(s30, k(8))), 8), T.mul(s30, s0))
    points = [{"s0": a, "s30": b} for a, b in itertools.product(range(2, 12), range(2, 40))]
    assert check_verdicts(facts, guard, points) is Truth.TRUE


# ---------------------------------------------------------------- generated programs

VARS = {"h": h, "w": w, "c": c3}


@st.composite
def chains(draw, v):
    t = VARS[v]
    for _ in range(draw(st.sampled_from([0, 1, 1, 2]))):
        t = half(t, draw(st.sampled_from([0, 0, 1])))
    return t


@st.composite
def programs(draw):
    """Sizes >= 1, a bound on a product of chains, divisibility facts of the sizes, of their
    products and of a factor times a size (the remainders the row reads) in any order, then
    the same bound loosened: it must be proved."""
    names = draw(st.sampled_from([("h", "w"), ("w", "h"), ("h", "w", "c")]))
    factors = [draw(chains(v)) for v in names]
    product = T.mul(*factors)
    bound = draw(st.integers(0, 80))
    sizes = [VARS[v] for v in names]
    options = [even(x, m) for x in sizes for m in (2, 4)] + [even(product)] + \
        [even(T.mul(f, x)) for f in factors for x in sizes if f is not x]
    divisible = draw(st.lists(st.sampled_from(options), min_size=1, max_size=5))
    facts = [T.ge(x, k(1)) for x in sizes] + [T.le(product, k(bound))] + divisible
    return facts, T.le(product, k(bound + draw(st.integers(0, 3))))


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_a_stated_product_bound_stays_proved_whatever_divisibility_follows(program):
    facts, guard = program
    assert check_verdicts(facts, guard, POINTS) is Truth.TRUE
