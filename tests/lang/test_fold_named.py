"""A sum that writes a named sum out, folded back into the name (``terms.fold_named``): the
folded sum equals the sum at every point of a box and for Z3, on random chains of definitions
(constants, coefficients, scales, other named sums beside it, near misses); the fold is found
where it should be; a planted fold that drops the definition's constant, and one that takes
the scale's sign for granted, are caught."""

from __future__ import annotations

import itertools

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.lang.evaluator import evaluate
from term_strategies import written_out
from z3_check import z3_implies

k = T.const
NAMES = [f"x{i}" for i in range(4)]
RANGE = range(-2, 3)


@st.composite
def recipes(draw):
    """A named sum ``e`` over two or three of x0..x3 (coefficients 1, -1, 2; a constant), a
    chain of one to three named links ``d_{i+1} = d_i + c*x + k``, one of them written out
    ``m`` times, named sums beside it, a constant, and perhaps a near miss (one more atom)."""
    atoms = draw(st.lists(st.integers(0, 3), min_size=2, max_size=3, unique=True))
    base = [(i, draw(st.sampled_from([1, -1, 2]))) for i in atoms]
    links = draw(st.lists(st.tuples(st.integers(0, 3), st.sampled_from([1, -1]), st.integers(-1, 1)), max_size=3))
    return {"base": base, "base_c": draw(st.integers(-2, 2)), "links": links,
            "target": draw(st.integers(0, 3)), "m": draw(st.sampled_from([1, -1, 2, -3])),
            "beside": draw(st.lists(st.tuples(st.integers(0, 3), st.sampled_from([1, -1, 2])), max_size=2)),
            "c": draw(st.integers(-3, 3)),
            "miss": draw(st.one_of(st.none(), st.tuples(st.integers(0, 3), st.sampled_from([1, -1]))))}


def build(recipe):
    """(the sum, the named sums it was built from); inside the caller's fresh table."""
    x = [T.var(n, T.INT) for n in NAMES]
    e = T.define(T.add(*(T.scale(x[i], v) for i, v in recipe["base"]), k(recipe["base_c"])), name="e")
    defs = [e]
    for i, v, c in recipe["links"]:
        d = T.define(T.add(defs[-1], T.scale(x[i], v), k(c)), name=f"d{len(defs)}")
        if d.kind != "def":
            break
        defs.append(d)
    target = defs[recipe["target"] % len(defs)]
    parts = [T.scale(written_out(target), recipe["m"]), k(recipe["c"])]
    parts += [T.scale(defs[j % len(defs)], v) for j, v in recipe["beside"]]
    if recipe["miss"] is not None:
        i, v = recipe["miss"]
        parts.append(T.scale(x[i], v))
    return T.add(*parts), defs


def equal_everywhere(a: T.Term, b: T.Term) -> bool:
    for values in itertools.product(RANGE, repeat=len(NAMES)):
        point = dict(zip(NAMES, values))
        if evaluate(a, point) != evaluate(b, point):
            return False
    return True


FOLDED: list[int] = [0]


def check(recipe) -> T.Term | None:
    """The fold of the recipe's sum, asserted equal to it on the box and for Z3."""
    t, defs = build(recipe)
    folded = T.fold_named(t)
    if folded is None:
        return None
    assert folded is not t
    assert equal_everywhere(t, folded), (t, folded)
    assert z3_implies([], T.eq(t, folded)), (t, folded)
    return folded


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(recipes())
def test_a_folded_sum_equals_the_sum(recipe):
    with T.fresh_table():
        folded = check(recipe)
        t, defs = build(recipe)
        plain = [a for a in t.args if a.kind != "def"] if t.kind == "lin" else []
        if recipe["miss"] is None and recipe["m"] in (1, -1) and len(plain) >= 2:
            assert folded is not None, t  # a written-out named sum is found
        FOLDED[0] += folded is not None


def test_the_random_sums_were_folded():
    assert FOLDED[0] > 80, FOLDED  # runs after the property above (file order)


def test_a_written_out_total_folds_into_the_end_of_its_chain():
    """``end_k - (u0 + ... + u39)`` where the chain's end names ``u0 + ... + u39``: the difference
    of two named sums; a near miss (one coefficient off) is not folded."""
    with T.fresh_table():
        us = [T.var(f"u{i}", T.INT) for i in range(40)]
        prefix = T.name_long("p", T.add(*us[:34]))
        chain = [prefix]
        for u in us[34:]:
            chain.append(T.name_long("p", T.add(chain[-1], u)))
        end = chain[2]
        folded = T.fold_named(T.sub(end, T.add(*us, k(3))))
        assert folded is T.add(end, T.scale(chain[-1], -1), k(-3))
        assert T.fold_named(T.sub(chain[-1], T.add(*us))) is k(0)
        assert T.fold_named(T.sub(end, T.add(*us[:-1], T.scale(us[-1], 2)))) is None


def test_no_fold_without_a_named_sum():
    with T.fresh_table():
        us = [T.var(f"u{i}", T.INT) for i in range(40)]
        assert T.fold_named(T.add(*us)) is None


def _planted(recipe, monkeypatch, wrong):
    """``recipe`` checked with the fold row's result passed through ``wrong``."""
    row, = T._FOLDING
    monkeypatch.setattr(T, "_FOLDING", (attrs.evolve(row, result=lambda m, again: wrong(row.result(m, again))),))
    with T.fresh_table():
        check(recipe)


#: ``e = x0 + x1 - 2``, written out twice with the opposite sign beside ``d1 = e + x2``
PLANTED = {"base": [(0, 1), (1, 1)], "base_c": -2, "links": [(2, 1, 0)], "target": 0, "m": -1,
           "beside": [(1, 1)], "c": 0, "miss": None}


def test_the_planted_recipe_folds():
    with T.fresh_table():
        assert check(PLANTED) is not None


def test_planted_error_a_fold_without_the_definitions_constant_is_caught(monkeypatch):
    def wrong(folded):
        return T.add(folded, k(-2))  # as if e had no constant
    with pytest.raises(AssertionError):
        _planted(PLANTED, monkeypatch, wrong)


def test_planted_error_a_fold_that_takes_the_sign_for_granted_is_caught(monkeypatch):
    def wrong(folded):
        named = [a for a in folded.args if a.kind == "def"]
        return T.add(folded, *(T.scale(a, 2) for a in named if folded.data[0][folded.args.index(a)] == -1))
    with pytest.raises(AssertionError):
        _planted(PLANTED, monkeypatch, wrong)
