"""The compiler API: what a compiler asks, and what it must be told."""

from __future__ import annotations

import math
import re

import pytest
import sympy

import absint
from absint import DataDependentGuardError, Layer, ShapeReasoner, Truth, UnsupportedExpression
from repo_paths import DOCS

API_PAGE = DOCS / "api.md"


def FloorDiv(a, b):
    """A stand-in for torch's FloorDiv: absint reads classes by name."""
    return _FloorDiv(a, b)


_FloorDiv = type("FloorDiv", (sympy.Function,), {"is_integer": True})
_CeilToInt = type("CeilToInt", (sympy.Function,), {"is_integer": True})
_IntTrueDiv = type("IntTrueDiv", (sympy.Function,), {"is_real": True})


def true(r: ShapeReasoner, e) -> bool:
    return r.decide(e).truth is Truth.TRUE


def unknown(r: ShapeReasoner, e) -> bool:
    return r.decide(e).truth is Truth.UNKNOWN


# ---------------------------------------------------------------- the examples


@pytest.mark.parametrize("n", [1, 4, 32])
def test_prefix_sums_of_unbacked_lengths_against_a_total(n):
    r = ShapeReasoner()
    total = r.declare("values_size0", hint=1000)
    us = [r.declare(f"u{i}", size_like=True) for i in range(n)]
    r.assume(sympy.Eq(sympy.Add(*us), total))
    start = sympy.Integer(0)
    for u in us:
        end = start + u
        for guard in (start >= 0, start <= end, end <= total):
            assert true(r, guard), guard
        start = end


def test_transitivity_of_le_chains():
    r = ShapeReasoner()
    xs = [r.declare(f"x{i}", hint=i) for i in range(10)]
    for a, b in zip(xs, xs[1:]):
        r.assume(a <= b)
    assert true(r, xs[0] <= xs[-1])
    assert true(r, xs[2] <= xs[7] + 3)
    assert r.decide(xs[0] > xs[-1]).truth is Truth.FALSE
    assert unknown(r, xs[0] < xs[-1])


def test_multiple_of_8_is_a_multiple_of_4_and_divides_evenly():
    r = ShapeReasoner()
    x = r.declare("x", hint=64)
    r.assume(sympy.Eq(x % 8, 0))
    assert true(r, sympy.Eq(x % 4, 0))
    assert true(r, sympy.Eq((x // 8) * 8, x))
    assert true(r, sympy.Eq(FloorDiv(x, 8) * 8, x))
    assert unknown(r, sympy.Eq(x % 16, 0))


def test_ceil_half_equals_floor_div_of_successor():
    r = ShapeReasoner()
    s0 = r.declare("s0", hint=7)
    v = r.decide(sympy.Eq(sympy.ceiling(s0 / 2), (s0 + 1) // 2))
    assert v.truth is Truth.TRUE and v.by is Layer.NORMAL_FORM
    assert true(r, sympy.Eq(_CeilToInt(_IntTrueDiv(s0, 2)), FloorDiv(s0 + 1, 2)))


def test_nonzero_size_is_bounded_by_numel_symbolically():
    r = ShapeReasoner()
    s0, s1 = r.declare("s0", hint=3), r.declare("s1", hint=5)
    u0 = r.declare("u0", size_like=True)
    r.assume(u0 <= s0 * s1)
    assert r.upper_bound(u0) == [s0 * s1]
    assert r.upper_bound(u0, in_terms_of=[s0, s1]) == [s0 * s1]
    assert r.lower_bound(u0) == [0]
    assert r.bounds(u0) == (0, math.inf)


def test_upper_bound_of_a_minimum_has_one_piece_per_side():
    r = ShapeReasoner()
    s0, s1 = r.declare("s0", hint=3), r.declare("s1", hint=5)
    u0 = r.declare("u0", size_like=True)
    r.assume(u0 <= s0)
    r.assume(u0 <= s1)
    assert set(r.upper_bound(u0)) == {s0, s1}


def test_upper_bound_over_an_eliminated_total():
    r = ShapeReasoner()
    total = r.declare("s0", hint=10)
    u0, u1 = r.declare("u0", size_like=True), r.declare("u1", size_like=True)
    r.assume(sympy.Eq(u0 + u1, total))
    assert r.upper_bound(u0) == [total]


def test_unbounded_has_no_upper_bound():
    r = ShapeReasoner()
    u0 = r.declare("u0")
    assert r.upper_bound(u0) is None


def test_fits_int32_true_with_ranges_unknown_without():
    r = ShapeReasoner()
    sizes = [r.declare(f"size{i}", hint=8, lower=1, upper=1024) for i in range(2)]
    strides = [r.declare(f"stride{i}", hint=1, lower=0, upper=1 << 16) for i in range(2)]
    offset = r.declare("offset", hint=0, lower=0, upper=1 << 20)
    index = sum(st * (sz - 1) for st, sz in zip(strides, sizes)) + offset
    numel = sizes[0] * sizes[1]
    assert r.fits_int32(index, numel).truth is Truth.TRUE

    bare = ShapeReasoner()
    s = [bare.declare(f"size{i}", hint=8) for i in range(2)]
    assert bare.fits_int32(s[0] * s[1]).truth is Truth.UNKNOWN
    sized = ShapeReasoner()
    s = [sized.declare(f"size{i}", hint=8, size_like=True) for i in range(2)]
    assert sized.fits_int32(s[0] * s[1]).truth is Truth.UNKNOWN


def test_fits_int32_false_when_provably_out_of_range():
    r = ShapeReasoner()
    s = r.declare("s", hint=2**33, lower=2**31)
    small = r.declare("t", hint=1, lower=0, upper=10)
    assert r.fits_int32(small, s).truth is Truth.FALSE
    assert r.fits_int32(-s - 1).truth is Truth.FALSE


def test_fits_int32_of_nothing_is_true():
    assert ShapeReasoner().fits_int32().truth is Truth.TRUE


def test_data_dependent_guard_on_unbacked_symbol_raises():
    r = ShapeReasoner()
    s0 = r.declare("s0", hint=8)
    u0 = r.declare("u0", size_like=True)
    with pytest.raises(DataDependentGuardError) as info:
        r.evaluate(sympy.Eq(u0, 0))
    e = info.value
    assert e.symbols == (u0,)
    assert e.guard == sympy.Eq(u0, 0)
    assert e.ranges == {u0: (0, math.inf)}
    assert sympy.Eq(u0, 0) in e.suggestions and sympy.Ne(u0, 0) in e.suggestions
    assert sympy.Ge(u0, 1) in e.suggestions  # the size-like fact that decides it
    assert "u0" in str(e) and "u0 >= 1" in str(e)
    with pytest.raises(DataDependentGuardError):
        r.evaluate(u0 + s0 > 10)
    assert r.guards() == []


def test_data_dependent_guard_decided_by_facts_does_not_raise():
    r = ShapeReasoner()
    u0 = r.declare("u0", size_like=True)
    r.assume(u0 >= 2)
    assert r.evaluate(sympy.Eq(u0, 0)) is False
    assert r.evaluate(u0 > 1) is True


# ---------------------------------------------------------------- declare


def test_size_like_is_nonnegative_and_nothing_more():
    r = ShapeReasoner()
    u = r.declare("u0", size_like=True)
    assert true(r, u >= 0)
    assert unknown(r, u >= 1)
    assert unknown(r, sympy.Ne(u, 1))


def test_declared_range_is_a_fact():
    r = ShapeReasoner()
    s = r.declare("s", hint=4, lower=2, upper=64)
    assert r.bounds(s) == (2, 64)
    assert true(r, s * 2 <= 128)


def test_infinite_bounds_are_no_bounds():
    r = ShapeReasoner()
    s = r.declare("s", hint=4, lower=-sympy.oo, upper=sympy.oo)
    assert r.bounds(s) == (-math.inf, math.inf)


def test_hint_outside_the_range_is_refused():
    r = ShapeReasoner()
    with pytest.raises(ValueError, match="contradicts"):
        r.declare("s", hint=1, lower=2)
    with pytest.raises(ValueError, match="contradicts"):
        r.declare(sympy.Symbol("t", integer=True, positive=True), hint=0)
    assert r.facts() == []
    r.declare("s", hint=2, lower=2)  # the refused declaration left nothing behind


def test_sympy_assumptions_of_a_symbol_are_facts():
    r = ShapeReasoner()
    s = r.declare(sympy.Symbol("s", integer=True, positive=True), hint=3, lower=1)
    e = r.declare(sympy.Symbol("e", integer=True, even=True), hint=4)
    assert r.bounds(s) == (1, math.inf)
    assert true(r, sympy.Eq(e % 2, 0))
    u = sympy.Symbol("u", integer=True, nonnegative=True)  # undeclared: its assumptions still count
    assert true(r, u + s >= 1)
    assert r.bounds(u) == (0, math.inf)


def test_redeclaration_is_refused():
    r = ShapeReasoner()
    r.declare("s", hint=1)
    with pytest.raises(ValueError, match="already declared"):
        r.declare("s", hint=2)


def test_declare_keeps_the_callers_symbol():
    s = sympy.Symbol("s0", integer=True, positive=True)
    r = ShapeReasoner()
    assert r.declare(s, hint=3) is s
    assert r.upper_bound(s + 1, [s]) == [s + 1]


def test_hints_prove_nothing():
    r = ShapeReasoner()
    s = r.declare("s", hint=5)
    assert unknown(r, s > 4)


# ---------------------------------------------------------------- decide and its memo


def test_memoised_unknown_is_retried_after_a_new_fact():
    r = ShapeReasoner()
    s = r.declare("s", hint=5)
    assert unknown(r, s > 4)
    r.assume(s >= 10)
    assert true(r, s > 4)


def test_floor_div_by_a_symbol_uses_the_divisor_sign_once_known():
    r = ShapeReasoner()
    a, b = r.declare("a", hint=7), r.declare("b", hint=2)
    r.assume(a >= 0)
    guard = FloorDiv(a, b) >= 0
    assert unknown(r, guard)  # b may be negative: 7 // -2 == -4
    r.assume(b >= 1)
    assert true(r, guard)
    assert r.term(FloorDiv(a, b)).kind == "div"


def test_statically_known_true_and_false():
    r = ShapeReasoner()
    s = r.declare("s", hint=5, lower=1)
    assert r.statically_known_true(s >= 1)
    assert not r.statically_known_true(s >= 2)
    assert r.statically_known_false(s < 1)
    assert not r.statically_known_false(s < 2)
    assert r.statically_known_true(True) and r.statically_known_false(sympy.false)


def test_a_recorded_fact_and_its_conjuncts_are_true_when_asked_again():
    r = ShapeReasoner()
    u, v, w = (r.declare(n) for n in ("u", "v", "w"))
    odd = sympy.Ne(sympy.Mod(u * v, w), 3)  # nonlinear: no layer would decide it from scratch
    assert r.decide(odd).truth is Truth.UNKNOWN
    r.assume(sympy.And(odd, u >= 2))
    assert r.decide(odd).truth is Truth.TRUE and r.decide(odd).by is Layer.NORMAL_FORM
    assert r.decide(sympy.And(odd, u >= 2)).truth is Truth.TRUE
    assert r.decide(sympy.Not(odd)).truth is not Truth.TRUE


def test_decide_refuses_a_number():
    with pytest.raises(TypeError):
        ShapeReasoner().decide(sympy.Integer(1))


def test_unsupported_node_is_named():
    r = ShapeReasoner()
    s = r.declare("s", hint=1)
    with pytest.raises(UnsupportedExpression, match="sin"):
        r.decide(sympy.sin(s) <= 1)


def test_contradictory_facts_are_reported():
    r = ShapeReasoner()
    s = r.declare("s", hint=1)
    r.assume(s >= 3)
    r.assume(s <= 2)
    assert r.contradiction
    assert r.decide(s > 100).by is Layer.CONTRADICTION


def test_undeclared_symbols_are_unbacked():
    r = ShapeReasoner()
    u = sympy.Symbol("u9", integer=True)
    r.assume(u >= 3)
    assert true(r, u > 2)
    with pytest.raises(DataDependentGuardError):
        r.evaluate(u > 5)


# ---------------------------------------------------------------- evaluate


def test_evaluate_on_backed_symbols_follows_the_hint_and_records_it():
    r = ShapeReasoner()
    s0, s1 = r.declare("s0", hint=8), r.declare("s1", hint=3)
    assert r.evaluate(s0 > s1) is True
    assert r.evaluate(sympy.Eq(s1, 1)) is False
    assert r.guards() == [s0 > s1, sympy.Ne(s1, 1)]
    assert true(r, s0 > s1) and true(r, sympy.Ne(s1, 1))
    assert r.evaluate(s0 >= s1) is True  # implied: not recorded again
    assert len(r.guards()) == 2


def test_evaluate_with_torch_vocabulary():
    r = ShapeReasoner()
    s0 = r.declare("s0", hint=9)
    assert r.evaluate(sympy.Eq(FloorDiv(s0, 4), 2)) is True
    assert r.guards() == [sympy.Eq(FloorDiv(s0, 4), 2)]
    assert true(r, s0 >= 8) and true(r, s0 <= 11)


# ---------------------------------------------------------------- residual


def test_residual_of_implied_and_refuted_guards():
    r = ShapeReasoner()
    s = r.declare("s", hint=4, lower=2)
    assert r.residual(s >= 1) == sympy.true
    assert r.residual(s < 2) == sympy.false
    assert r.residual(s >= 3) == (s >= 3)


def test_residual_drops_implied_conjuncts():
    r = ShapeReasoner()
    s, t = r.declare("s", hint=4, lower=2), r.declare("t", hint=4)
    assert r.residual(sympy.And(s >= 1, t <= 10)) == (t <= 10)


def test_residual_gist_uses_the_other_conjuncts():
    r = ShapeReasoner()
    a, b = r.declare("a", hint=1), r.declare("b", hint=2)
    r.assume(a <= b)
    assert r.residual(sympy.And(a <= 5, b <= 5)) == (b <= 5)


def test_residual_keeps_a_nonlinear_guard():
    r = ShapeReasoner()
    a, b = r.declare("a", hint=2), r.declare("b", hint=3)
    g = sympy.Ne(a * b, 6)
    assert r.residual(g) == g


def test_residual_is_equivalent_under_the_facts():
    r = ShapeReasoner()
    a, b, c = (r.declare(n, hint=1) for n in "abc")
    r.assume(a <= b)
    r.assume(b + 2 <= c)
    g = sympy.And(a <= 10, c >= 0, b <= c, a + b <= 20)
    res = r.residual(g)
    for va in range(-3, 12):
        for vb in range(va, 14):
            for vc in range(vb + 2, 16):
                env = {a: va, b: vb, c: vc}
                assert bool(g.subs(env)) == bool(res.subs(env)), (env, res)


# ---------------------------------------------------------------- exports and docs


def test_exports():
    for name in ("ShapeReasoner", "DataDependentGuardError", "UnsupportedExpression", "Verdict", "Truth",
                 "Layer"):
        assert hasattr(absint, name)
    assert absint.__version__


def _doc_examples() -> list[str]:
    with open(API_PAGE, encoding="utf-8") as f:
        return re.findall(r"```python\n(.*?)```", f.read(), flags=re.S)


@pytest.mark.parametrize("index", range(len(_doc_examples())))
def test_docs_examples_run(index):
    exec(compile(_doc_examples()[index], f"docs/api.md[{index}]", "exec"), {})


def test_pytorch_functions_themselves():
    F = pytest.importorskip("torch.utils._sympy.functions")
    r = ShapeReasoner()
    s0 = r.declare(sympy.Symbol("s0", integer=True, positive=True), hint=10, lower=2)
    s1 = r.declare(sympy.Symbol("s1", integer=True, positive=True), hint=3, lower=1)
    assert true(r, sympy.Eq(F.CeilToInt(F.IntTrueDiv(s0, 2)), F.FloorDiv(s0 + 1, 2)))
    assert true(r, F.PythonMod(s0, s1) < s1)
    assert true(r, F.FloorDiv(s0, s1) <= s0)
    assert true(r, F.Min(s0, s1) <= F.Max(s0, s1))
    assert true(r, F.PowByNatural(s1, 2) >= 1)
    assert true(r, F.ModularIndexing(s0, 1, 4) <= 3)
    assert true(r, F.ToFloat(s0) >= 2)
    assert r.evaluate(sympy.Eq(F.PythonMod(s0, 4), 2)) is True
    assert true(r, sympy.Ne(F.PythonMod(s0, 4), 0))
