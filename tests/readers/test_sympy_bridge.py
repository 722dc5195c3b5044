"""sympy <-> terms: every supported class means what Python / PyTorch mean by it.

The oracle is a small reference evaluator with Python's own semantics (``//``
and ``%`` floor towards -inf, exact rationals), independent of absint's
evaluator; PyTorch's classes are stood in for by same-named sympy Functions
(the bridge reads class names), and by torch's real classes when it is installed.
"""

from __future__ import annotations

import math
from fractions import Fraction
from types import SimpleNamespace

import pytest
import sympy
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.lang.evaluator import NotEvaluable, evaluate
from absint.readers.sympy_bridge import (
    FROM_SYMPY, SympyToTerms, TermsToSympy, UnsupportedExpression, to_sympy, to_term,
)


def _stand_in(name: str, integer: bool | None = True):
    attrs = {"is_integer": True} if integer else {"is_real": True}
    return type(name, (sympy.Function,), attrs)


STANDIN = SimpleNamespace(
    FloorDiv=_stand_in("FloorDiv"), CleanDiv=_stand_in("CleanDiv"), PythonMod=_stand_in("PythonMod"),
    Mod=sympy.Mod, ModularIndexing=_stand_in("ModularIndexing"),
    CeilToInt=_stand_in("CeilToInt"), FloorToInt=_stand_in("FloorToInt"), TruncToInt=_stand_in("TruncToInt"),
    IntTrueDiv=_stand_in("IntTrueDiv", False), FloatTrueDiv=_stand_in("FloatTrueDiv", False),
    ToFloat=_stand_in("ToFloat", False), PowByNatural=_stand_in("PowByNatural"),
    FloatPow=_stand_in("FloatPow", False), OpaqueUnaryFn_sqrt=_stand_in("OpaqueUnaryFn_sqrt", False),
    Where=_stand_in("Where", None), Identity=_stand_in("Identity", None),
    Min=_stand_in("Min", None), Max=_stand_in("Max", None),  # sympy's own are tested by name below
)


def _torch_vocabulary():
    try:
        from torch.utils._sympy import functions as F
    except Exception:
        return None
    return SimpleNamespace(
        FloorDiv=F.FloorDiv, CleanDiv=F.CleanDiv, PythonMod=F.PythonMod, Mod=sympy.Mod,
        ModularIndexing=F.ModularIndexing, CeilToInt=F.CeilToInt, FloorToInt=F.FloorToInt,
        TruncToInt=F.TruncToInt, IntTrueDiv=F.IntTrueDiv, FloatTrueDiv=F.FloatTrueDiv, ToFloat=F.ToFloat,
        PowByNatural=F.PowByNatural, FloatPow=F.FloatPow, OpaqueUnaryFn_sqrt=F.OpaqueUnaryFn_sqrt,
        Where=F.Where, Identity=F.Identity, Min=F.Min, Max=F.Max,
    )


TORCH = _torch_vocabulary()


def _torch_functions():
    """PyTorch's functions module, as the torch client hands it to the bridge."""
    from absint.torch.vocabulary import sympy_functions

    return sympy_functions()


def test_a_vocabulary_name_other_than_sympy_is_refused():
    with pytest.raises(ValueError, match="vocabulary must be 'sympy'"):
        TermsToSympy({}, "torch")
VOCABULARIES = [pytest.param(STANDIN, id="stand-ins")] + (
    [pytest.param(TORCH, id="torch")] if TORCH is not None else [])

x, y, z = sympy.symbols("x y z", integer=True)


# ---------------------------------------------------------------- the reference: Python semantics

def _q(v) -> Fraction:
    return Fraction(v)


def _ref_floordiv(a, b):
    return math.floor(_q(a) / _q(b))


def _ref_euclid_mod(a, b):
    """SMT-LIB's ``mod``: in ``[0, |b|)``."""
    return _q(a) - abs(_q(b)) * math.floor(_q(a) / abs(_q(b)))


def _ref_euclid_div(a, b):
    """SMT-LIB's ``div``: ``a = b*q + mod(a, b)``."""
    return (_q(a) - _ref_euclid_mod(a, b)) / _q(b)


REF = {
    "Integer": lambda e, env: Fraction(int(e)),
    "Rational": lambda e, env: Fraction(int(e.p), int(e.q)),
    "Float": lambda e, env: Fraction(float(e)),
    "Symbol": lambda e, env: Fraction(env[e.name]),
    "Add": lambda e, env: sum((ref(a, env) for a in e.args), Fraction(0)),
    "Mul": lambda e, env: math.prod((ref(a, env) for a in e.args), start=Fraction(1)),
    "Pow": lambda e, env: ref(e.args[0], env) ** int(e.args[1]),
    "floor": lambda e, env: Fraction(math.floor(ref(e.args[0], env))),
    "ceiling": lambda e, env: Fraction(math.ceil(ref(e.args[0], env))),
    "FloorDiv": lambda e, env: Fraction(_ref_floordiv(ref(e.args[0], env), ref(e.args[1], env))),
    "CleanDiv": lambda e, env: Fraction(_ref_floordiv(ref(e.args[0], env), ref(e.args[1], env))),
    "Mod": lambda e, env: ref(e.args[0], env) % ref(e.args[1], env),
    "PythonMod": lambda e, env: ref(e.args[0], env) % ref(e.args[1], env),
    "ModularIndexing": lambda e, env: Fraction(
        _ref_floordiv(ref(e.args[0], env), ref(e.args[1], env))) % ref(e.args[2], env),
    "CeilToInt": lambda e, env: Fraction(math.ceil(ref(e.args[0], env))),
    "FloorToInt": lambda e, env: Fraction(math.floor(ref(e.args[0], env))),
    "TruncToInt": lambda e, env: Fraction(math.trunc(ref(e.args[0], env))),
    "EuclidDiv": lambda e, env: _ref_euclid_div(ref(e.args[0], env), ref(e.args[1], env)),
    "EuclidMod": lambda e, env: _ref_euclid_mod(ref(e.args[0], env), ref(e.args[1], env)),
    "RealDiv": lambda e, env: ref(e.args[0], env) / ref(e.args[1], env),
    "IntTrueDiv": lambda e, env: ref(e.args[0], env) / ref(e.args[1], env),
    "FloatTrueDiv": lambda e, env: ref(e.args[0], env) / ref(e.args[1], env),
    "ToFloat": lambda e, env: ref(e.args[0], env),
    "Identity": lambda e, env: ref(e.args[0], env),
    "PowByNatural": lambda e, env: ref(e.args[0], env) ** int(ref(e.args[1], env)),
    "Min": lambda e, env: min(ref(a, env) for a in e.args),
    "Max": lambda e, env: max(ref(a, env) for a in e.args),
    "Abs": lambda e, env: abs(ref(e.args[0], env)),
    "Where": lambda e, env: ref(e.args[1], env) if ref(e.args[0], env) else ref(e.args[2], env),
    "ITE": lambda e, env: ref(e.args[1], env) if ref(e.args[0], env) else ref(e.args[2], env),
    "Piecewise": lambda e, env: next(ref(p.args[0], env) for p in e.args if ref(p.args[1], env)),
    "BooleanTrue": lambda e, env: True,
    "BooleanFalse": lambda e, env: False,
    "LessThan": lambda e, env: ref(e.args[0], env) <= ref(e.args[1], env),
    "StrictLessThan": lambda e, env: ref(e.args[0], env) < ref(e.args[1], env),
    "GreaterThan": lambda e, env: ref(e.args[0], env) >= ref(e.args[1], env),
    "StrictGreaterThan": lambda e, env: ref(e.args[0], env) > ref(e.args[1], env),
    "Equality": lambda e, env: ref(e.args[0], env) == ref(e.args[1], env),
    "Unequality": lambda e, env: ref(e.args[0], env) != ref(e.args[1], env),
    "And": lambda e, env: all(ref(a, env) for a in e.args),
    "Or": lambda e, env: any(ref(a, env) for a in e.args),
    "Not": lambda e, env: not ref(e.args[0], env),
    "Implies": lambda e, env: (not ref(e.args[0], env)) or ref(e.args[1], env),
}


def ref(e, env):
    for cls in type(e).__mro__:
        f = REF.get(cls.__name__)
        if f is not None:
            return f(e, env)
    raise KeyError(type(e).__name__)


def agree(expr, env, tr: SympyToTerms | None = None) -> None:
    """The term of ``expr`` evaluates to what Python computes, wherever Python computes."""
    try:
        want = ref(expr, env)
    except ZeroDivisionError:
        return
    t = (tr or SympyToTerms())(expr)
    got = evaluate(t, env)
    assert got == want, (expr, t, env, got, want)


# ---------------------------------------------------------------- one behaviour per class

POINTS = [{"x": a, "y": b, "z": c} for a in (-7, -1, 0, 5, 12) for b in (-3, -1, 2, 8) for c in (0, 3)]


@pytest.mark.parametrize("V", VOCABULARIES)
@pytest.mark.parametrize("build", [
    lambda V: V.FloorDiv(x, 4), lambda V: V.FloorDiv(x, -4), lambda V: V.FloorDiv(x, y),
    lambda V: V.CleanDiv(x * 4, 4), lambda V: V.PythonMod(x, 4), lambda V: V.PythonMod(x, -4),
    lambda V: V.PythonMod(x, y), lambda V: sympy.Mod(x, y), lambda V: sympy.Mod(x, -3),
    lambda V: V.ModularIndexing(x + 20, 2, 3), lambda V: V.CeilToInt(V.IntTrueDiv(x, 2)),
    lambda V: V.FloorToInt(V.IntTrueDiv(x, y)), lambda V: V.TruncToInt(V.IntTrueDiv(x, 3)),
    lambda V: V.TruncToInt(V.IntTrueDiv(x, y)), lambda V: V.ToFloat(x) * 3,
    lambda V: V.FloatTrueDiv(V.ToFloat(x), 4), lambda V: V.PowByNatural(y, 3),
    lambda V: V.Min(x, y, z + 1), lambda V: V.Max(x, -y), lambda V: sympy.Min(x, y, 3), lambda V: sympy.Max(x, -y), lambda V: V.Identity(x + y),
    lambda V: V.Where(x > y, x - y, y * 2), lambda V: sympy.Abs(x - y),
    lambda V: sympy.Piecewise((x, x > 3), (y, y < 0), (z, True)),
    lambda V: x // 3, lambda V: x % 5, lambda V: sympy.ceiling(x / 2), lambda V: sympy.floor(x / y),
    lambda V: x ** 2 - 3 * y, lambda V: x / 2 + y / 3, lambda V: x / y,
])
def test_class_semantics(V, build):
    try:
        expr = build(V)
    except ZeroDivisionError:
        pytest.skip("constructor evaluated a division by zero")
    for env in POINTS:
        agree(expr, env)


def test_relations_and_connectives():
    exprs = [x <= y, x < y, x >= y, x > y, sympy.Eq(x, y), sympy.Ne(x, y),
             sympy.And(x > 0, y < 3), sympy.Or(x > 0, sympy.Not(y < 3)),
             sympy.Implies(x > 0, y > 0), sympy.Eq(sympy.Mod(x, 8), 0)]
    for e in exprs:
        for env in POINTS:
            agree(e, env)


def test_sqrt_and_float_pow_are_real_powers():
    t = to_term(STANDIN.OpaqueUnaryFn_sqrt(STANDIN.ToFloat(x)))
    assert t.kind == "pow" and t.sort is T.REAL
    assert evaluate(t, {"x": 9}) == 3
    assert evaluate(to_term(STANDIN.FloatPow(STANDIN.ToFloat(x), sympy.Rational(1, 2))), {"x": 16}) == 4


def test_integer_symbols_are_int_others_real():
    assert to_term(x).sort is T.INT
    assert to_term(sympy.Symbol("r")).sort is T.REAL


def test_ceil_half_is_the_floor_div_of_the_successor():
    assert to_term(sympy.ceiling(x / 2)) is to_term((x + 1) // 2)
    assert to_term(STANDIN.CeilToInt(STANDIN.IntTrueDiv(x, 2))) is to_term(STANDIN.FloorDiv(x + 1, 2))


def test_positive_constant_divisor_gives_plain_div():
    t = to_term(STANDIN.FloorDiv(x, 8))
    assert t.kind == "div"


def test_divisor_of_unknown_sign_gives_ite_and_known_sign_plain_div():
    assert to_term(STANDIN.FloorDiv(x, y)).kind == "ite"
    positive = SympyToTerms(sign_of=lambda b: 1)
    assert positive(STANDIN.FloorDiv(x, y)) is T.div(T.var("x", T.INT), T.var("y", T.INT))
    negative = SympyToTerms(sign_of=lambda b: -1)
    assert negative(STANDIN.PythonMod(x, y)).kind == "lin"  # -mod(-x, -y)


def test_unsure_translations_are_retried_after_facts_grow():
    known = {"positive": False}
    tr = SympyToTerms(sign_of=lambda b: 1 if known["positive"] else None)
    e = STANDIN.FloorDiv(x, y) + 1
    assert tr(e).kind == "lin" and tr(STANDIN.FloorDiv(x, y)).kind == "ite"
    known["positive"] = True
    tr.forget_unsure()
    assert tr(STANDIN.FloorDiv(x, y)).kind == "div"


def test_python_numbers_are_accepted():
    assert to_term(True) is T.TRUE
    assert to_term(3) is T.const(3)


@pytest.mark.parametrize("expr, name", [
    (sympy.sin(x), "sin"),
    (_stand_in("IsNonOverlappingAndDenseIndicator")(x, y), "IsNonOverlappingAndDenseIndicator"),
    (_stand_in("RoundToInt")(x), "RoundToInt"),
    (x + sympy.oo, "Infinity"),
])
def test_unsupported_node_is_named(expr, name):
    with pytest.raises(UnsupportedExpression, match=name) as info:
        to_term(expr)
    assert info.value.class_name == name


def test_piecewise_without_default_is_refused():
    with pytest.raises(UnsupportedExpression, match="Piecewise"):
        to_term(sympy.Piecewise((x, x > 0), (y, y > 0)))


def test_table_is_keyed_by_class_name():
    assert {"FloorDiv", "PythonMod", "CeilToInt", "PowByNatural", "OpaqueUnaryFn_sqrt", "Min"} <= set(FROM_SYMPY)


# ---------------------------------------------------------------- random expressions


def _expressions(V, with_real: bool = True, max_leaves: int = 8):
    atoms = st.sampled_from([x, y, z]) | st.integers(-6, 9).map(sympy.Integer)
    divisors = st.sampled_from([x, y]) | st.sampled_from([-5, -2, 2, 3, 8]).map(sympy.Integer)

    def extend(children):
        pairs = st.tuples(children, children)
        out = (
            pairs.map(lambda p: p[0] + p[1])
            | pairs.map(lambda p: p[0] - p[1])
            | pairs.map(lambda p: p[0] * p[1])
            | st.tuples(children, divisors).map(lambda p: V.FloorDiv(*p))
            | st.tuples(children, divisors).map(lambda p: V.PythonMod(*p))
            | st.tuples(children, divisors).map(lambda p: sympy.Mod(*p))
            | pairs.map(lambda p: V.Min(*p))
            | pairs.map(lambda p: V.Max(*p))
            | st.tuples(children, children, children).map(lambda p: V.Where(p[0] > p[1], p[1], p[2]))
        )
        if with_real:
            out = out | st.tuples(children, divisors).map(lambda p: V.CeilToInt(V.IntTrueDiv(*p))) \
                | st.tuples(children, divisors).map(lambda p: V.TruncToInt(V.IntTrueDiv(*p)))
        return out

    return st.recursive(atoms, extend, max_leaves=max_leaves)


def _build_or_skip(data, strategy):
    try:
        return data.draw(strategy)
    except (ZeroDivisionError, ValueError):  # constructors evaluate constant divisions, compare constants
        assume(False)


ENVS = st.fixed_dictionaries({"x": st.integers(-20, 20), "y": st.integers(-20, 20), "z": st.integers(-20, 20)})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), env=ENVS)
def test_random_expressions_agree_with_python(data, env):
    expr = _build_or_skip(data, _expressions(STANDIN))
    agree(expr, env)


@pytest.mark.skipif(TORCH is None, reason="torch not installed")
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), env=ENVS)
def test_random_torch_expressions_agree_with_python(data, env):
    expr = _build_or_skip(data, _expressions(TORCH))
    agree(expr, env)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), env=ENVS)
def test_back_translation_round_trips(data, env):
    # small: a symbolic divisor's two readings are both written out, so sizes multiply
    expr = _build_or_skip(data, _expressions(STANDIN, with_real=False, max_leaves=5))
    t = to_term(expr)
    for vocabulary in ["sympy"] + ([_torch_functions()] if TORCH is not None else []):
        back = to_sympy(t, {"x": x, "y": y, "z": z}, vocabulary)
        try:
            want = evaluate(t, env)
        except NotEvaluable:
            continue
        assert evaluate(to_term(back), env) == want, (expr, t, back, vocabulary)
        assert ref(back, env) == want, (expr, t, back, vocabulary)


def test_back_translation_of_nested_mod_is_not_evaluated_by_sympy():
    # found by the property above: sympy 1.14 evaluates Mod(4*Mod(x, 3), 5) to
    # Mod(4*Mod(x, 3)**2, 5), a different function (x = 2 gives 3 against 1)
    t = to_term(STANDIN.PythonMod(STANDIN.PythonMod(x, 3), -5))
    back = to_sympy(t, {"x": x}, "sympy")
    for v in range(-6, 7):
        want = (v % 3) % -5
        assert evaluate(t, {"x": v}) == want
        assert evaluate(to_term(back), {"x": v}) == want, back


@pytest.mark.skipif(TORCH is None, reason="torch not installed")
def test_back_translation_survives_an_eval_pytorch_cannot_carry_out():
    # found by test_back_translation_round_trips: PyTorch's FloorDiv.eval simplifies its
    # operands with sympy, which fails on a Where (AttributeError from inside sympy)
    expr = STANDIN.FloorDiv(STANDIN.Where(2 * x > STANDIN.FloorDiv(x, y), STANDIN.FloorDiv(x, y), x), x)
    t = to_term(expr)
    back = to_sympy(t, {"x": x, "y": y, "z": z}, _torch_functions())
    for env in ({"x": 7, "y": 2, "z": 0}, {"x": -5, "y": 3, "z": 0}, {"x": 4, "y": -1, "z": 0}):
        assert evaluate(to_term(back), env) == evaluate(t, env) == ref(back, env)


def test_back_translation_of_comparisons_is_readable():
    tb = TermsToSympy({"u0": sympy.Symbol("u0", integer=True), "s0": sympy.Symbol("s0", integer=True),
                       "s1": sympy.Symbol("s1", integer=True)})
    u0, s0, s1 = (tb.symbols[n] for n in ("u0", "s0", "s1"))
    assert tb(to_term(u0 <= s0 * s1)) == (u0 <= s0 * s1)
    assert tb(to_term(u0 >= 3)) == (u0 >= 3)
    eq = tb(to_term(sympy.Eq(u0, s0 + 1)))  # its orientation follows term ids
    assert isinstance(eq, sympy.Eq) and sympy.expand(eq.lhs - eq.rhs) in (u0 - s0 - 1, s0 + 1 - u0)


def test_back_translation_uses_the_callers_symbols():
    s = sympy.Symbol("s0", integer=True, positive=True)
    back = to_sympy(to_term(s // 4), {"s0": s})
    assert back.free_symbols == {s}
