"""Primary mode's answer to ``_maybe_evaluate_static(expr, unbacked_only=True)``: the question
itself, only where PyTorch's own result keeps a symbol that is not backed (its callers read
nothing else of it). Checked against PyTorch's own method on random programs of a real
ShapeEnv; a planted error for each condition of the rule."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch", reason="absint.torch tests need torch (pip install torch==2.13.0+cpu)")

import sympy  # noqa: E402
from torch._dynamo.source import ConstantSource  # noqa: E402
from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv  # noqa: E402

import absint.torch as absint_torch  # noqa: E402
from absint.torch import bridge  # noqa: E402
from absint.torch.bridge import ShapeEnvBridge  # noqa: E402

pytestmark = pytest.mark.torch

_OPS = {"le": sympy.Le, "lt": sympy.Lt, "eq": sympy.Eq, "ne": sympy.Ne, "ge": sympy.Ge}
#: a linear relation over (s0, s1, u0, u1, u2): coefficients, constant, operator
_REL = st.tuples(st.lists(st.integers(-2, 2), min_size=5, max_size=5), st.integers(-4, 4), st.sampled_from(sorted(_OPS)))
#: u0 replaced by s0 (``torch._check(u0 == s0)``), u1 given a lower bound, both, or neither
_FACTS = st.sampled_from(["none", "replace", "size", "both"])


def _program(facts: str):
    """A real ShapeEnv with backed s0, s1 and unbacked u0, u1, u2, and the facts asked for."""
    se = ShapeEnv()
    s0 = se.create_symbol(7, source=ConstantSource("x"), dynamic_dim=DimDynamic.DYNAMIC)
    s1 = se.create_symbol(5, source=ConstantSource("y"), dynamic_dim=DimDynamic.DYNAMIC)
    us = [se.create_unbacked_symint().node.expr for _ in range(3)]
    if facts in ("replace", "both"):
        se.guard_or_defer_runtime_assert(sympy.Eq(us[0], s0), "test")  # PyTorch makes it u0 -> s0
    if facts in ("size", "both"):
        se._constrain_range_for_size(us[1])
        se.guard_or_defer_runtime_assert(sympy.Ge(us[2], 3), "test")
    return se, (s0, s1, *us)


def _question(rel, symbols):
    coefs, c, op = rel
    return _OPS[op](sum(k * x for k, x in zip(coefs, symbols)) + c, 0)


def _pytorch_keeps_unbacked(se, expr) -> bool:
    """PyTorch's own answer: does its result keep a symbol that is not backed?"""
    out = ShapeEnv.__dict__["_maybe_evaluate_static"](se, expr, unbacked_only=True)
    return not (out.free_symbols <= se.backed_var_to_val.keys())


KEPT: list[int] = [0]


def _check(facts, questions) -> None:
    se, symbols = _program(facts)
    b = ShapeEnvBridge(se)
    b.sync()
    for rel in questions:
        expr = _question(rel, symbols)
        if not isinstance(expr, sympy.core.relational.Relational):
            continue  # sympy decided it on construction
        if b.keeps_unbacked(expr):
            KEPT[0] += 1
            assert _pytorch_keeps_unbacked(se, expr), (facts, expr)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(facts=_FACTS, questions=st.lists(_REL, min_size=1, max_size=4))
@example(facts="replace", questions=[([0, 0, 1, 0, 0], -3, "le")])  # u0 <= 3 is s0 <= 3: backed only
@example(facts="size", questions=[([0, 0, 0, 1, 0], 0, "ge")])  # u1 >= 0 is decided by its range
def test_the_question_is_kept_only_where_pytorch_keeps_an_unbacked_symbol(facts, questions):
    _check(facts, questions)


def test_the_random_programs_kept_questions():
    assert KEPT[0] > 50, KEPT  # runs after the property above (file order)


@pytest.mark.parametrize("planted,facts,rel", [
    # replacements ignored: u0 <= 3 is s0 <= 3 to PyTorch, backed only
    ("replacements", "replace", ([0, 0, 1, 0, 0], -3, "le")),
    # absint's verdict ignored: u1 >= 0 is decided by u1's range, PyTorch returns True
    ("verdict", "size", ([0, 0, 0, 1, 0], 0, "ge")),
])
def test_planted_errors_are_caught(monkeypatch, planted, facts, rel):
    if planted == "replacements":
        monkeypatch.setattr(ShapeEnvBridge, "_unbacked_replaced", lambda self, expr, *_: expr)
    else:
        from absint.reasoning.verdict import Truth

        monkeypatch.setattr(ShapeEnvBridge, "decide", lambda self, expr, *_: bridge.Answer(Truth.UNKNOWN, "none", "full"))
    with pytest.raises(AssertionError):
        _check(facts, [rel])


def test_what_is_not_a_linear_relation_or_not_fully_read_goes_to_pytorch():
    se, (s0, s1, u0, u1, u2) = _program("none")
    b = ShapeEnvBridge(se)
    b.sync()
    assert b.keeps_unbacked(sympy.Le(u0 + 2 * u1, s0))
    assert not b.keeps_unbacked(sympy.Le(s0, s1))  # backed only
    assert not b.keeps_unbacked(sympy.Le(u0 * u1, s0))  # a product: expansion may cancel
    assert not b.keeps_unbacked(sympy.And(sympy.Le(u0, s0), sympy.Le(u1, s0)))  # not one relation
    b.facts_complete = False  # a fact left out: an axiom absint does not know could decide it
    assert not b.keeps_unbacked(sympy.Le(u0 + 2 * u1, s0))


def test_primary_mode_answers_unbacked_only_calls_in_a_real_export():
    import torch_programs as tp

    p = next(q for q in tp.PROGRAMS if q.name == "split_tolist")
    try:
        out = tp.run(p, "export", absint=True, mode="primary", check=True)
    finally:
        absint_torch.uninstall()
    s = out.stats
    assert out.ok and s["unbacked_kept"] > 0 and s["check_failures"] == 0, s


def _reference_coefficients(b: ShapeEnvBridge, relation) -> dict | None:
    """What the check reads, built as PyTorch writes it: sympy's difference of the sides."""
    coefs = bridge.linear_coefficients(b._unbacked_replaced(relation.lhs - relation.rhs))
    return None if coefs is None else {s: c for s, c in coefs.items() if c}


def _two_sided(rel, symbols, bend: bool):
    """The relation with its positive terms on the left and the rest on the right (as
    ``u1 <= u2`` comes from PyTorch); ``bend``: a product of two symbols added to both sides,
    so that neither side is linear but their difference is."""
    coefs, c, op = rel
    left = sum(k * x for k, x in zip(coefs, symbols) if k > 0) + max(c, 0)
    right = sum(-k * x for k, x in zip(coefs, symbols) if k < 0) - min(c, 0)
    if bend:
        left, right = left + symbols[2] * symbols[3], right + symbols[2] * symbols[3]
    return _OPS[op](left, right, evaluate=False)


def _difference_without_negation(self, relation):  # planted: the right side added, not taken away
    read = self._unbacked_replaced(relation)
    left, right = bridge.linear_coefficients(read.lhs), bridge.linear_coefficients(read.rhs)
    if left is None or right is None:
        return None
    for s, c in right.items():
        left[s] = left.get(s, 0) + c
    return left


def _sides_agree(facts, questions, bend) -> None:
    se, symbols = _program(facts)
    b = ShapeEnvBridge(se)
    b.sync()
    for rel in questions:
        relation = _two_sided(rel, symbols, bend)
        got = b._difference_coefficients(relation)
        got = None if got is None else {s: c for s, c in got.items() if c}
        assert got == _reference_coefficients(b, relation), (facts, relation)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(facts=_FACTS, questions=st.lists(_REL, min_size=1, max_size=4), bend=st.booleans())
def test_each_side_read_alone_gives_the_difference_sympy_builds(facts, questions, bend):
    _sides_agree(facts, questions, bend)


def test_planted_sign_error_in_the_sides_is_caught(monkeypatch):
    monkeypatch.setattr(ShapeEnvBridge, "_difference_coefficients", _difference_without_negation)
    with pytest.raises(AssertionError):
        _sides_agree("none", [([1, 0, 0, -1, 0], 0, "le")], bend=False)
