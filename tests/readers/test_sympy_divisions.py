"""SMT-LIB's divisions through sympy (absint/readers/sympy_divisions.py and the bridge's way
there and back): a term keeps its value at every point of a box, divisors 0 and negative
included, Z3 proves it equal to what it was over all integers, and a division by a symbol comes
back as a division (not as a real quotient under ``to_int``, nor as a case split on its sign).

The oracles are the evaluator (SMT-LIB semantics: a division by zero has no value, and must
still have none after the trip: sympy folding ``y/y`` to 1 would give it one) and Z3 (where a
division by zero is one unknown function of the dividend, so ``t = back`` is valid only if the
trip kept every division by zero as a division of an equal dividend). Each fold the functions'
``eval`` makes is a row checked the same two ways. Planted writers (Euclidean ``div`` as floor
quotients, ``mod`` as sympy's ``Mod``, ``/`` as sympy's quotient) and planted folds (``y/y`` to
1, a sign dropped) are caught.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
import sympy
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.lang.dag import subterms
from absint.lang.evaluator import NotEvaluable, evaluate
from absint.lang.kinds import CEIL, CONST, DIV, ITE, MOD, RDIV, TO_INT
from absint.readers.sympy_bridge import TO_SYMPY, SympyToTerms, TermsToSympy, UnsupportedExpression, to_term
from absint.readers.sympy_divisions import EuclidDiv, EuclidMod, RealDiv, as_plain_sympy
from term_strategies import int_terms
from z3_check import z3_implies

VARS = [T.var(n, T.INT) for n in ("x", "y", "z")]
BOX = [dict(zip("xyz", p)) for p in itertools.product(range(-3, 4), repeat=3)]  # 343 points, 0 included
FREE = "free"  # the value of a division by zero: none


def numeric_terms(max_leaves: int = 6):
    """Int terms (divisions by constants and by symbols, min/max, ite) and real quotients
    of them: ``to_int``/``ceil`` of ``a / b``, and ``(a*b) / b`` (which sympy's ``/`` cancels)."""
    ints = int_terms(VARS, max_leaves=max_leaves, with_ite=True)
    pairs = st.tuples(ints, ints)
    return st.one_of(
        ints,
        pairs.map(lambda p: T.to_int(T.rdiv(*p))),
        pairs.map(lambda p: T.ceil(T.rdiv(*p))),
        pairs.map(lambda p: T.rdiv(T.mul(*p), p[1])),
        pairs.map(lambda p: T.add(p[0], T.div(T.mul(*p), p[1]))),
    )


def values(t, points=BOX) -> list:
    out = []
    for p in points:
        try:
            out.append(evaluate(t, p))
        except NotEvaluable:
            out.append(FREE)
    return out


def z3_equal(a, b) -> bool:
    """Z3 proves ``a = b`` for all integers (a division by zero: one unknown function of its
    dividend, the same on both sides)."""
    return z3_implies([], T.eq(a, b))


def through_sympy(t, vocabulary: object = "sympy"):
    return SympyToTerms()(TermsToSympy({}, vocabulary)(t))


def changed(t) -> bool:
    """Whether the round trip changes ``t``'s value (or whether it has one) at a point of the box."""
    return values(through_sympy(t)) != values(t)


#: what the old way to sympy added to a division by a symbol: a real quotient under ``to_int``
#: and a case split on the divisor's sign
WRAPPERS = (TO_INT, CEIL, ITE)


def count(t, kinds) -> int:
    return sum(s.kind in kinds for s in subterms(t))


# ------------------------------------------------------------------ the property


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(numeric_terms())
def test_a_term_keeps_its_value_everywhere_through_sympy(t):
    back = through_sympy(t)
    assert values(back) == values(t), (str(t), str(back))
    # each division by a symbol comes back as a division: no real quotient, no case split added
    assert count(back, WRAPPERS) <= count(t, WRAPPERS), (str(t), str(back))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(numeric_terms(max_leaves=4))
def test_z3_proves_a_term_equal_to_its_trip_through_sympy(t):
    back = through_sympy(t)
    assert z3_equal(t, back), (str(t), str(back))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(numeric_terms())
def test_pytorchs_vocabulary_keeps_the_value_wherever_there_is_one(t):
    """PyTorch's ``FloorDiv`` folds ``y // y`` to 1 (its divisors are never 0): through its
    classes a term keeps its value wherever it has one, not its freedom at a zero divisor."""
    functions = pytest.importorskip("torch.utils._sympy.functions", reason="torch not installed")
    back = values(through_sympy(t, functions))
    assert all(w == FREE or w == v for w, v in zip(values(t), back)), str(t)


# ------------------------------------------------------------------ the folds of eval, row by row

#: divisors for the rows: the numbers eval folds by (1, -1), others, 0, and symbols
DIVISORS = [T.const(v) for v in (1, -1, 2, -3, 0)] + [VARS[1], T.neg(VARS[1]), T.add(VARS[1], T.ONE)]

#: (function, the SMT-LIB term it stands for); eval folds a number by a non-zero number, and
#: ``div``/``mod`` by 1 or -1 (``a``, ``-a``, 0), ``/`` by any non-zero number
FUNCTIONS = [(EuclidDiv, T.div), (EuclidMod, T.mod), (RealDiv, T.rdiv)]


def read_applied(function, a, b):
    """``function`` applied (so evaluated by its ``eval``) to ``a`` and ``b`` as plain sympy, read
    back as a term."""
    tb = TermsToSympy({})
    return SympyToTerms()(function(tb(a), tb(b)))


def fold_is_wrong(function, build, a, b) -> bool:
    """Whether ``function(a, b)``, folded by its eval, differs from ``build(a, b)`` at a point
    of the box (a value where SMT-LIB has none counts), or Z3 refutes their equality."""
    want, got = build(a, b), read_applied(function, a, b)
    return values(got) != values(want) or not z3_equal(got, want)


DIVIDENDS = st.one_of(st.integers(-7, 7).map(T.const), int_terms(VARS, max_leaves=3, variable_divisors=False))


@pytest.mark.parametrize("function,build", FUNCTIONS, ids=lambda f: getattr(f, "__name__", ""))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(a=DIVIDENDS, b=st.sampled_from(DIVISORS + [VARS[0]]))
def test_each_fold_of_eval_keeps_the_smtlib_meaning(function, build, a, b):
    assert not fold_is_wrong(function, build, a, b), (function.__name__, str(a), str(b))


def test_the_folding_rows_are_reached():
    # the property above would pass on functions that never fold: each row is met
    x = sympy.Symbol("x", integer=True)
    assert (EuclidDiv(x, 1), EuclidDiv(x, -1), EuclidMod(x, -1), EuclidDiv(7, -2), EuclidMod(-7, 2)) == (x, -x, 0, -3, 1)
    assert RealDiv(x, -4) == -x / 4


def _y_over_y_is_one(cls, a, b):
    return sympy.Integer(1) if a == b else _EVALS[cls](a, b)


def _sign_dropped(cls, a, b):
    return a if b == -1 else _EVALS[cls](a, b)


_EVALS = {cls: cls.eval for cls, _ in FUNCTIONS}


@pytest.mark.parametrize("function,build", FUNCTIONS, ids=lambda f: getattr(f, "__name__", ""))
@pytest.mark.parametrize("planted", [_y_over_y_is_one, _sign_dropped], ids=["y-over-y-is-1", "sign-dropped"])
def test_a_planted_fold_is_caught(function, build, planted, monkeypatch):
    monkeypatch.setattr(function, "eval", classmethod(lambda cls, a, b: planted(function, a, b)))
    sympy.core.cache.clear_cache()  # sympy memoises applied functions
    try:
        a, b = find(st.tuples(DIVIDENDS | st.sampled_from(DIVISORS), st.sampled_from(DIVISORS)),
                    lambda p: fold_is_wrong(function, build, *p),
                    settings=settings(max_examples=500, database=None, derandomize=True, deadline=None))
    finally:
        monkeypatch.undo()
        sympy.core.cache.clear_cache()
    assert not fold_is_wrong(function, build, a, b)  # the real eval is right where the planted one was caught


# ------------------------------------------------------------------ planted writers are caught


def _floor_quotients(tb, t):
    x, y = (tb.arg(a) for a in t.args)
    if t.args[1].kind == CONST:
        return sympy.floor(x / y) if t.args[1].data > 0 else -sympy.floor(x / -y)
    return sympy.Piecewise((sympy.floor(x / y), y > 0), (-sympy.floor(x / -y), True))


def _floor_only(tb, t):
    x, y = (tb.arg(a) for a in t.args)
    return sympy.floor(x / y)


def _python_mod(tb, t):
    x, y = (tb.arg(a) for a in t.args)
    return sympy.Mod(x, y, evaluate=False)


def _sympy_quotient(tb, t):
    x, y = (tb.arg(a) for a in t.args)
    return x / y


@pytest.mark.parametrize("kind,planted", [(DIV, _floor_quotients), (DIV, _floor_only), (MOD, _python_mod),
                                          (RDIV, _sympy_quotient)],
                         ids=["div-as-floor-quotients", "div-as-floor", "mod-as-Mod", "rdiv-as-quotient"])
def test_a_planted_writer_is_caught_by_the_property(kind, planted, monkeypatch):
    monkeypatch.setitem(TO_SYMPY, kind, planted)
    counterexample = find(numeric_terms(), changed,
                          settings=settings(max_examples=2000, database=None, derandomize=True, deadline=None))
    assert changed(counterexample)


def test_the_floor_quotients_changed_y_div_y():
    # what issue 37 found: y/y is 1 in sympy, free at y = 0 in SMT-LIB
    y = VARS[1]
    assert values(through_sympy(T.div(y, y)))[BOX.index({"x": 0, "y": 0, "z": 0})] == FREE
    with pytest.MonkeyPatch.context() as m:
        m.setitem(TO_SYMPY, DIV, _floor_quotients)
        assert through_sympy(T.div(y, y)) is T.ONE


# ------------------------------------------------------------------ the functions themselves

a_, b_ = sympy.symbols("a b", integer=True)


def _euclid(a: int, b: int) -> tuple[int, int]:
    r = a - abs(b) * math.floor(Fraction(a, abs(b)))
    return (a - r) // b, r


def test_numbers_fold_to_the_euclidean_quotient_and_remainder():
    for a, b in itertools.product(range(-9, 10), [-4, -3, -2, 2, 3, 4]):
        q, r = _euclid(a, b)
        assert (EuclidDiv(a, b), EuclidMod(a, b), RealDiv(a, b)) == (q, r, sympy.Rational(a, b))
        assert EuclidDiv(a_, b_).subs({a_: a, b_: b}) == q and EuclidMod(a_, b_).subs({a_: a, b_: b}) == r


def test_nothing_folds_where_the_divisor_may_be_zero():
    y = sympy.Symbol("y", integer=True)
    for e in (EuclidDiv(y, y), EuclidDiv(a_ * y, y), EuclidDiv(0, y), EuclidDiv(3, 0), EuclidMod(y, y),
              EuclidMod(0, y), RealDiv(y, y), RealDiv(a_ * y, y), RealDiv(2, 0)):
        assert isinstance(e, (EuclidDiv, EuclidMod, RealDiv)), e
    assert sympy.Eq(EuclidDiv(y, y), 1) not in (sympy.true, sympy.false)


def test_a_divisor_of_one_folds_for_every_dividend():
    assert EuclidDiv(a_, 1) == a_ and EuclidDiv(a_, -1) == -a_ and EuclidMod(a_, -1) == 0
    assert RealDiv(a_, 4) == a_ / 4
    assert EuclidDiv(a_, b_).is_integer and EuclidMod(a_, b_).is_integer and RealDiv(a_, b_).is_real


def test_as_plain_sympy_is_equal_wherever_no_divisor_is_zero():
    e = EuclidDiv(a_ + 3, b_) * 2 + EuclidMod(a_, b_) - RealDiv(a_, b_ - 1)
    plain = as_plain_sympy(e)
    assert not plain.atoms(EuclidDiv, EuclidMod, RealDiv)
    for a, b in itertools.product(range(-7, 8), [-3, -2, 2, 3]):
        assert plain.subs({a_: a, b_: b}) == e.subs({a_: a, b_: b})


def test_the_reader_takes_them_by_class_name_and_refuses_real_operands():
    look_alike = type("EuclidDiv", (sympy.Function,), {"is_integer": True})
    x, y = (sympy.Symbol(n, integer=True) for n in "xy")
    assert to_term(look_alike(x, y)) is T.div(VARS[0], VARS[1])
    assert to_term(EuclidMod(x, y)) is T.mod(VARS[0], VARS[1])
    assert to_term(RealDiv(x, y)) is T.rdiv(VARS[0], VARS[1])
    with pytest.raises(UnsupportedExpression, match="EuclidDiv"):
        to_term(EuclidDiv(sympy.Symbol("r", real=True), y))
    with pytest.raises(UnsupportedExpression, match="EuclidMod takes 2"):
        to_term(type("EuclidMod", (sympy.Function,), {})(x))


def test_a_division_of_a_case_split_by_a_number_keeps_its_floor():
    # found by the property: sympy 1.14 takes Piecewise((0, c), (2, True))/6 for an integer
    # (both values are even) and drops floor(...), so 2 div 6 came back as 1/3
    x, y = VARS[:2]
    t = T.div(T.ite(T.le(T.add(x, T.neg(y), T.ONE), T.ZERO), T.ZERO, T.const(2)), T.const(6))
    assert values(through_sympy(t)) == values(t) == [0] * len(BOX)


# ------------------------------------------------------------------ sympy's floor(a/b) read as a // b

FLOORS = {"floor": lambda a, b: math.floor(Fraction(a, b)), "ceiling": lambda a, b: math.ceil(Fraction(a, b))}
x_, y_, z_ = VARS
#: divisors that are not numbers (small, so that Z3 answers: products of symbols are nonlinear)
SYMBOLIC = [y_, T.neg(z_), T.add(y_, T.ONE), T.scale(y_, 2), T.mul(x_, y_), T.sub(y_, z_), T.scale(T.mul(x_, z_), -3)]
QUOTIENTS = st.tuples(st.sampled_from(sorted(FLOORS)), int_terms(VARS, max_leaves=3, variable_divisors=False),
                      st.sampled_from(SYMBOLIC))


def read_rounded(name, a, b):
    """sympy's ``floor(a/b)`` or ``ceiling(a/b)`` of the terms ``a``, ``b``, read back."""
    tb = TermsToSympy({})
    return to_term(getattr(sympy, name)(tb(a) / tb(b)))


def rounding_is_wrong(name, a, b) -> bool:
    """Whether the reading of ``name(a/b)`` differs from Python's rounding of the exact quotient
    at a point of the box where ``b`` is not 0, or Z3 refutes it equal to ``to_int``/``ceil`` of
    the real quotient wherever ``b != 0``."""
    read = read_rounded(name, a, b)
    for p in BOX:
        bv = evaluate(b, p)
        if bv != 0 and evaluate(read, p) != FLOORS[name](evaluate(a, p), bv):
            return True
    return not z3_implies([T.ne(b, T.ZERO)], rounds(name, read, a, b))


def rounds(name, q, a, b):
    """``q`` is ``name(a/b)`` for ``b != 0``, in integers (easier for Z3 than the real quotient):
    ``floor``: ``b*q <= a < b*q + b`` for ``b > 0`` (reversed for ``b < 0``); ``ceiling``:
    ``b*q - b < a <= b*q`` (reversed)."""
    bq = T.mul(b, q)
    lo, hi = (bq, T.add(bq, b)) if name == "floor" else (T.sub(bq, b), bq)
    positive = T.and_(T.gt(b, T.ZERO), *((T.le(lo, a), T.lt(a, hi)) if name == "floor" else (T.lt(lo, a), T.le(a, hi))))
    negative = T.and_(T.lt(b, T.ZERO), *((T.ge(lo, a), T.gt(a, hi)) if name == "floor" else (T.gt(lo, a), T.ge(a, hi))))
    return T.or_(positive, negative)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(QUOTIENTS)
def test_sympys_floor_of_a_quotient_is_read_as_floor_division(q):
    assert not rounding_is_wrong(*q), [str(x) for x in q[1:]]


def test_sympys_floor_of_a_quotient_by_a_symbol_is_a_division():
    x, y = (sympy.Symbol(n, integer=True) for n in "xy")
    t = to_term(sympy.floor(3 * x / (2 * y)))
    assert count(t, (DIV,)) == 2 and count(t, (TO_INT, RDIV)) == 0  # y's sign unknown: both readings
    positive = SympyToTerms(sign_of=lambda b: 1)  # facts that say y > 0
    assert positive(sympy.floor(x / y)) is T.div(VARS[0], VARS[1])
    assert positive(sympy.ceiling(x / y)) is T.neg(T.div(T.neg(VARS[0]), VARS[1]))
    assert to_term(sympy.floor(sympy.Symbol("r") / y)).kind == TO_INT  # a real dividend: a real quotient


def _unsigned_floor(tr, e):
    """Planted: ``floor(a/b)`` read as ``div(a, b)`` whatever ``b``'s sign (Euclidean, not floor)."""
    from absint.readers.sympy_bridge import _integer_quotient

    q = _integer_quotient(tr, e.args[0])
    return T.div(*q) if q is not None else T.to_int(tr.numeric(e.args[0]))


def _ceiling_as_floor(tr, e):
    """Planted: ``ceiling(a/b)`` read as ``a // b``."""
    from absint.readers.sympy_bridge import _integer_quotient

    q = _integer_quotient(tr, e.args[0])
    return tr.floordiv(*q) if q is not None else T.ceil(tr.numeric(e.args[0]))


@pytest.mark.parametrize("name,planted", [("floor", _unsigned_floor), ("ceiling", _ceiling_as_floor)],
                         ids=["floor-unsigned", "ceiling-as-floor"])
def test_a_planted_floor_reading_is_caught(name, planted, monkeypatch):
    from absint.readers import sympy_bridge

    monkeypatch.setitem(sympy_bridge.FROM_SYMPY, name, planted)
    monkeypatch.setattr(sympy_bridge, "_BY_CLASS", {})  # the handler memo, by class
    q = find(QUOTIENTS.filter(lambda q: q[0] == name), lambda q: rounding_is_wrong(*q),
             settings=settings(max_examples=500, database=None, derandomize=True, deadline=None))
    monkeypatch.undo()
    assert not rounding_is_wrong(*q)
