"""Comparisons built without sympy's fold (``absint/torch/relations.py``): the same sympy
object as PyTorch's constructor on random linear and non-linear relations over symbols with
PyTorch's assumptions and others; a planted error (the unit coefficient of ``==`` dropped,
or a positive size taken as free) is caught; installed by primary mode only, in real PyTorch."""

from __future__ import annotations

import pytest
import sympy
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from absint.torch import relations

U0, U1 = sympy.symbols("u0 u1", integer=True)  # unbacked: integer, nothing else
S0, S1 = sympy.symbols("s0 s1", integer=True, positive=True)  # backed sizes
SYMBOLS = (U0, U1, S0, S1, sympy.Symbol("n0", integer=True, nonnegative=True),
           sympy.Symbol("e0", integer=True, even=True), sympy.Symbol("r0", real=True),
           sympy.Symbol("k0", integer=True, negative=True))

_term = st.tuples(st.integers(-3, 3), st.sampled_from(SYMBOLS)).map(lambda cs: cs[0] * cs[1])
_product = st.tuples(st.sampled_from(SYMBOLS), st.sampled_from(SYMBOLS)).map(lambda ab: ab[0] * ab[1])
_sum = st.tuples(st.lists(st.one_of(_term, _term, _term, _product), max_size=3),
                 st.integers(-4, 4)).map(lambda ts: sympy.Add(*ts[0], ts[1]))
#: an even multiple of an unbacked symbol: against an odd number, sympy folds ``==`` to false
_even = st.tuples(st.sampled_from((-2, 2, 4)), st.sampled_from((U0, U1)),
                  st.integers(-3, 3)).map(lambda cus: cus[0] * cus[1] + cus[2])
_side = st.one_of(_sum, _even, st.integers(-3, 3).map(sympy.Integer))


def _mismatch(method: str, a, b) -> str | None:
    ours, sympys = relations.builder(method)(a, b), relations.RELATIONS[method](a, b)
    if type(ours) is not type(sympys) or ours != sympys:
        return f"{method}({a}, {b}): built {ours!r}, sympy folds to {sympys!r}"
    return None


def _check(cases) -> None:
    for method, a, b in cases:
        found = _mismatch(method, a, b)
        assert found is None, found


_cases = st.lists(st.tuples(st.sampled_from(sorted(relations.RELATIONS)), _side, _side), min_size=1, max_size=8)
_settings = settings(max_examples=300, deadline=None, database=None, derandomize=True,
                     suppress_health_check=[HealthCheck.too_slow], phases=[Phase.generate])


@_settings
@given(_cases)
def test_the_same_object_as_sympys_constructor(cases):
    _check(cases)


def test_the_fold_is_skipped_where_a_free_symbol_moves_the_relation():
    one, three, zero = sympy.Integer(1), sympy.Integer(3), sympy.Integer(0)
    assert relations.varies("le", U0, three) and relations.varies("le", U0, U1)
    assert relations.varies("ge", 2 * U0 + S0, three) and relations.varies("eq", U0 - U1, one)
    assert relations.varies("ne", -U0 + 3 * S0, S1)
    assert not relations.varies("le", U0, 3)  # not a sympy expression (PyTorch passes them): sympy's to build
    assert not relations.varies("eq", 2 * U0 + 1, zero)  # never zero: sympy folds it to false
    assert sympy.Eq(2 * U0 + 1, 0) is sympy.false
    assert not relations.varies("ge", S0, zero) and not relations.varies("le", U0, U0 + 1)
    assert not relations.varies("le", U0 * U1, three)  # a product: sympy's to decide
    assert type(relations.builder("le")(U0, U1)) is sympy.LessThan


@pytest.mark.parametrize("planted", ["unit dropped", "positive taken as free"])
def test_a_planted_error_is_caught(monkeypatch, planted):
    """The property above must see a builder that skips a fold sympy would have made."""
    if planted == "unit dropped":
        monkeypatch.setattr(relations, "_NEEDS_UNIT", frozenset())
    else:
        monkeypatch.setattr(relations, "_free_integer", lambda s: s.is_integer is True)

    @_settings
    @given(_cases)
    def run(cases):
        _check(cases)

    with pytest.raises(AssertionError, match="sympy folds to"):
        run()


@pytest.mark.torch
def test_primary_mode_installs_them_and_uninstall_puts_pytorchs_back():
    pytest.importorskip("torch", reason="absint.torch tests need torch (pip install torch==2.13.0+cpu)")
    import absint.torch as absint_torch
    from torch.fx.experimental.sym_node import SymNode

    before = {m: SymNode.__dict__[f"_{m}"] for m in relations.RELATIONS}
    try:
        absint_torch.install("shadow")
        assert all(SymNode.__dict__[f"_{m}"] is f for m, f in before.items())
        absint_torch.install("primary")
        assert all(SymNode.__dict__[f"_{m}"] is not f for m, f in before.items())
    finally:
        absint_torch.uninstall()
    assert all(SymNode.__dict__[f"_{m}"] is f for m, f in before.items())


@pytest.mark.torch
def test_a_torch_whose_constructor_refuses_ours_keeps_its_own_methods(monkeypatch):
    """Another torch's ``_make_node_magic`` may take other arguments: PyTorch's methods stay."""
    pytest.importorskip("torch", reason="absint.torch tests need torch (pip install torch==2.13.0+cpu)")
    from torch.fx.experimental import sym_node

    before = {m: sym_node.SymNode.__dict__[f"_{m}"] for m in relations.RELATIONS}
    monkeypatch.setattr(sym_node.SymNode, "_le", before["le"])  # put back at teardown whatever happens
    calls = []

    def refusing(method, func):
        calls.append(method)
        if len(calls) == 3:
            raise TypeError("another signature")
        sym_node.SymNode._le = func  # a partial install the refusal must undo

    monkeypatch.setattr(sym_node, "_make_node_magic", refusing)
    assert relations.install() is None
    assert all(sym_node.SymNode.__dict__[f"_{m}"] is f for m, f in before.items())
