"""The and/or rows of the rule table (absint.reasoning.rules: one bound per linear form, an
equality another disjunct holds at), applied by the normal form: the normal form of an
and/or equals it at every point of a box, PyTorch's shapes are thinned, and a planted error
in each row is caught."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.lang.evaluator import evaluate
from absint.lang.terms import INT
from absint.reasoning import rules
from absint.reasoning.reasoner import Reasoner

_BX, _BY = T.var("bx", INT), T.var("by", INT)
POINTS = [{"bx": x, "by": y} for x in range(-6, 7) for y in range(-6, 7)]


def normal(t: T.Term) -> T.Term:
    """``t`` in the normal form of a reasoner told nothing: only the rows rewrite it."""
    return Reasoner(relational=False).normalize(t)


def _agrees(terms, junction, combine) -> None:
    built = normal(junction(*terms))
    for point in POINTS:
        assert evaluate(built, point) == combine(evaluate(t, point) for t in terms), (terms, built, point)


# ---------------------------------------------------------------- one bound per linear form

_FORMS = [_BX, T.add(_BX, _BY), T.sub(_BX, T.mul(T.const(2), _BY)), T.neg(_BX)]
_BOUNDS = st.lists(st.tuples(st.sampled_from(range(len(_FORMS))), st.integers(-4, 4),
                             st.sampled_from(["le", "lt", "ge", "eq"])), min_size=1, max_size=5)


def _bound(form: int, c: int, op: str) -> T.Term:
    return getattr(T, op)(_FORMS[form], T.const(c))


@settings(max_examples=150, deadline=None, derandomize=True)
@given(_BOUNDS)
def test_and_or_of_bounds_on_one_form_keep_their_value(parts):
    """An ``and`` keeps the strongest bound per linear form, an ``or`` the weakest: exact."""
    terms = [_bound(*p) for p in parts]
    _agrees(terms, T.and_, all)
    _agrees(terms, T.or_, any)


def test_or_of_bounds_on_one_form_is_the_weakest_and_a_planted_flip_is_caught(monkeypatch):
    u = T.var("u0", INT)
    assert normal(T.or_(T.le(u, T.const(-1)), T.le(u, T.const(4)))) is T.le(u, T.const(4))
    assert normal(T.and_(T.le(u, T.const(-1)), T.le(u, T.const(4)))) is T.le(u, T.const(-1))
    real = rules.one_bound_per_form
    monkeypatch.setattr(rules, "one_bound_per_form", lambda kind, seen: real(T.OR if kind == T.AND else T.AND, seen))
    with pytest.raises(AssertionError):
        _agrees([_bound(0, -1, "le"), _bound(0, 4, "le")], T.or_, any)


# ---------------------------------------------------------------- an equality absorbed by a disjunct

_P = T.mul(_BX, _BY)
_ATOMS = [_BX, _P, T.add(_BX, _BY)]
_DISJUNCTS = st.lists(st.one_of(
    st.tuples(st.just("eq"), st.sampled_from(range(len(_ATOMS))), st.integers(-8, 8)),
    st.tuples(st.just("mod"), st.sampled_from(range(len(_ATOMS))), st.integers(2, 4)),
    st.tuples(st.just("le"), st.sampled_from(range(len(_ATOMS))), st.integers(-8, 8))), min_size=2, max_size=4)


def _disjunct(op: str, atom: int, c: int) -> T.Term:
    a = _ATOMS[atom]
    if op == "mod":
        return T.eq(T.mod(a, T.const(c)), T.ZERO)
    return getattr(T, op)(a, T.const(c))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(_DISJUNCTS)
def test_or_of_an_equality_another_disjunct_absorbs_keeps_its_value(parts):
    """``or(t == c, d)`` drops the equality when ``d`` holds at ``t = c``: exact."""
    _agrees([_disjunct(*p) for p in parts], T.or_, any)


def test_an_absorbed_equality_and_a_planted_error(monkeypatch):
    """PyTorch's ``or(P == 8, P mod 8 == 0)`` is ``P mod 8 == 0``; ``P == 9`` stays. The
    planted error (every equality dropped) is caught by the property above."""
    eight, nine = T.eq(_P, T.const(8)), T.eq(_P, T.const(9))
    multiple = T.eq(T.mod(_P, T.const(8)), T.ZERO)
    assert normal(T.or_(eight, multiple)) is multiple
    assert normal(T.or_(nine, multiple)) is not multiple
    monkeypatch.setattr(rules, "_at_value", lambda t, atom, value: T.TRUE)
    with pytest.raises(AssertionError):
        _agrees([_disjunct("eq", 1, 9), _disjunct("mod", 1, 4)], T.or_, any)


def test_the_constructors_keep_every_member():
    """The thinning is the table's, applied when a term is normalised, not the constructors'."""
    u = T.var("u0", INT)
    assert len(T.or_(T.le(u, T.const(-1)), T.le(u, T.const(4))).args) == 2
