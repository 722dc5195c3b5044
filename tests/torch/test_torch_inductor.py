"""Inductor's own size questions (``absint.torch.inductor``): ``statically_known_multiple_of``
beyond PyTorch's 20-symbol limit, and ``evaluate_min``'s choice checked. On a real
``SizeVarAllocator`` over a real ShapeEnv; the multiple-of answers against Z3 on random
programs of 24 unbacked sizes, with a planted error the check catches. One real
``torch.compile`` with Inductor's Halide CPU backend (skipped without ``halide``) shows a kernel
indexed in int32 only with absint, and runs it at its bound against eager."""

from __future__ import annotations

import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch", reason="absint.torch tests need torch (pip install torch==2.13.0+cpu)")
z3 = pytest.importorskip("z3", reason="the multiple-of answers are checked against Z3 (pip install z3-solver)")

import sympy  # noqa: E402
from torch._inductor.sizevars import SizeVarAllocator  # noqa: E402
from torch.fx.experimental.symbolic_shapes import ShapeEnv  # noqa: E402

import absint.torch as absint_torch  # noqa: E402
from absint.reasoning.verdict import Truth  # noqa: E402
from absint.torch import bridge, inductor  # noqa: E402

pytestmark = pytest.mark.torch

N = 24  # beyond PyTorch's _MAX_SYMBOLS_FOR_EXPENSIVE_SYMPY_OPS (20)
#: a fact Mod(sum c_i*u_i + k, m) == 0 and a question "is sum d_i*u_i + e a multiple of m'?"
_COEFS = st.lists(st.integers(1, 3), min_size=N, max_size=N)
_CASE = st.tuples(_COEFS, st.integers(0, 7), st.sampled_from([2, 4, 8, 16]),  # fact: c, k, m
                  st.integers(1, 3), st.integers(0, 7), st.sampled_from([1, 2, 4, 8, 16]))  # t, e, m'
PROVED = [0]


def _unbacked(n: int):
    se = ShapeEnv()
    us = [se.create_unbacked_symint() for _ in range(n)]
    for u in us:
        torch._check(u >= 0)
    return se, us


def _z3_multiple(coefs, k, m, qcoefs, e, mq) -> bool:
    """Z3: do u >= 0 and m | sum(c*u) + k imply mq | sum(d*u) + e?"""
    us = [z3.Int(f"u{i}") for i in range(N)]
    s = z3.Solver()
    s.set("timeout", 20000)
    s.add(*(u >= 0 for u in us))
    s.add((sum(c * u for c, u in zip(coefs, us)) + k) % m == 0)
    s.add((sum(d * u for d, u in zip(qcoefs, us)) + e) % mq != 0)
    r = s.check()
    assert r != z3.unknown, "Z3 gave no answer"
    return r == z3.unsat


def _check(case) -> None:
    """Every True of the wrapped method (absint's, beyond the limit) is Z3's too."""
    coefs, k, m, t, e, mq = case
    se, us = _unbacked(N)
    torch._check((sum(c * u for c, u in zip(coefs, us)) + k) % m == 0)
    qcoefs = [t * c for c in coefs]  # a multiple of the fact's sum, so True is often the answer
    question = (sum(d * u for d, u in zip(qcoefs, us)) + t * k + e).node.expr
    if len(question.free_symbols) <= 20:
        return
    before = absint_torch.stats()["inductor"].get("multiple_of proved", 0)
    if SizeVarAllocator(se).statically_known_multiple_of(question, mq):
        assert _z3_multiple(coefs, k, m, qcoefs, t * k + e, mq), (case, question)
    PROVED[0] += absint_torch.stats()["inductor"].get("multiple_of proved", 0) - before


@pytest.fixture
def primary():
    absint_torch.install("primary")
    yield
    absint_torch.uninstall()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture],
          derandomize=True)
@given(case=_CASE)
def test_multiple_of_beyond_the_limit_is_sound_against_z3(primary, case):
    _check(case)


def test_the_random_programs_had_multiples_proved_beyond_the_limit():
    assert PROVED[0] >= 5, PROVED  # runs after the property above (file order)


def test_planted_error_is_caught(primary, monkeypatch):
    """absint's verdict replaced by TRUE: the Z3 check must fail."""
    monkeypatch.setattr(bridge.ShapeEnvBridge, "decide", lambda self, expr, *_: bridge.Answer(Truth.TRUE, "planted", "full"))
    with pytest.raises(AssertionError):
        _check(([1] * N, 1, 2, 1, 1, 2))  # the sum is odd: sum + 2 is not even


def test_shadow_mode_counts_but_keeps_pytorchs_answer():
    se, us = _unbacked(N)
    torch._check(sum(us) % 16 == 0)
    total = sum(us).node.expr
    sv = SizeVarAllocator(se)
    assert sv.statically_known_multiple_of(total, 16) is False  # PyTorch alone: beyond its limit
    with absint_torch.enabled("shadow"):
        assert sv.statically_known_multiple_of(total, 16) is False
        assert absint_torch.stats()["inductor"] == {"multiple_of asked": 1, "multiple_of proved": 1}
    with absint_torch.enabled("primary"):
        assert sv.statically_known_multiple_of(total, 16) is True
        assert sv.statically_known_multiple_of(total, 32) is False
        assert sv.statically_known_multiple_of(total + 8, 16) is False
    assert SizeVarAllocator.statically_known_multiple_of is SizeVarAllocator.__dict__["statically_known_multiple_of"]
    assert not hasattr(SizeVarAllocator.statically_known_multiple_of, "__wrapped__")  # uninstalled


def test_inductor_is_wrapped_only_once_loaded(monkeypatch):
    """An export that never lowers must not import Inductor (~2 s): installed before Inductor is
    loaded, the client wraps it at its first ShapeEnv call after."""
    module = sys.modules["torch._inductor.sizevars"]
    own = SizeVarAllocator.__dict__["statically_known_multiple_of"]
    monkeypatch.delitem(sys.modules, "torch._inductor.sizevars")
    assert inductor.wrap_if_loaded(object()) is None
    try:
        absint_torch.install("primary")
        assert SizeVarAllocator.__dict__["statically_known_multiple_of"] is own
        sys.modules["torch._inductor.sizevars"] = module  # Inductor is imported now
        se, (u,) = _unbacked(1)
        se._maybe_evaluate_static(sympy.Le(u.node.expr, 5))
        assert SizeVarAllocator.__dict__["statically_known_multiple_of"] is not own
    finally:
        absint_torch.uninstall()
    assert SizeVarAllocator.__dict__["statically_known_multiple_of"] is own


def test_evaluate_min_choices_are_checked():
    se, (u0, u1) = _unbacked(2)
    v = se.create_unbacked_symint()  # no fact: may be negative
    sv = SizeVarAllocator(se)
    x0, x1, y = (s.node.expr for s in (u0, u1, v))
    with absint_torch.enabled("primary"):
        assert sv.evaluate_min(x0, x0 + x1) == x0  # u1 >= 0: proved
        assert sv.evaluate_min(y, 10 * y) == y  # PyTorch's gcd rule: wrong at y = -1
        assert sv.evaluate_max(x0, x0 + x1) == x0 + x1
        s = absint_torch.stats()
    assert s["inductor"] == {"min proved": 2, "min unproved": 1}, s
    assert s["inductor_unproved"] == [f"evaluate_min({y}, {10 * y}) -> {y}: unproved"]


@pytest.mark.slow
def test_a_kernel_is_indexed_in_int32_only_with_absint_and_runs_right_at_its_bound(monkeypatch):
    """``a * b <= 2**24`` bounds the kernel; PyTorch's ranges cannot see it (a product). One
    compile, with absint: its kernels are int32; PyTorch's own evaluation, asked the same
    32-bit question of the same ShapeEnv afterwards, cannot prove it (so int64 without absint:
    ``expr_fits_within_32bit`` has no hint to fall back on for unbacked sizes)."""
    pytest.importorskip("halide", reason="Inductor's Halide CPU backend needs halide (pip install halide)")
    import torch._dynamo
    import torch._inductor.config as inductor_config
    from torch._inductor import sizevars
    from torch._inductor.codegen import simd_kernel_features as features

    chosen, envs = [], []
    select = features.SIMDKernelFeatures.select_index_dtype
    monkeypatch.setattr(features.SIMDKernelFeatures, "select_index_dtype",
                        lambda self: chosen.append((select(self), self.numel * self.reduction_numel)) or chosen[-1][0])
    init = sizevars.SizeVarAllocator.__init__
    monkeypatch.setattr(sizevars.SizeVarAllocator, "__init__",
                        lambda self, shape_env=None: init(self, shape_env) or envs.append(self.shape_env))
    monkeypatch.setattr(inductor_config, "cpu_backend", "halide")
    monkeypatch.setattr(inductor_config, "force_disable_caches", True)

    from benchmarks.torch_inductor import _program

    f, _, _ = _program("product_bound")  # the benchmark's program: a * b <= 2**24
    torch._dynamo.reset()
    c = torch.compile(f, fullgraph=True)
    x = torch.randn(3)
    with torch._dynamo.config.patch(capture_scalar_outputs=True), absint_torch.enabled("primary"):
        assert torch.equal(c(x, torch.tensor([1, 1])), f(x, torch.tensor([1, 1])))
    n = torch.tensor([4096, 4096])  # at the bound: 2**24 elements
    assert torch.equal(c(x, n), f(x, n))
    assert chosen and {dtype for dtype, _ in chosen} == {torch.int32}, chosen
    sizes = [numel for _, numel in chosen if numel.free_symbols]
    assert sizes, chosen
    se = envs[-1]
    for numel in sizes:  # PyTorch alone
        assert sizevars.statically_known_true(se, numel <= 2 ** 31 - 1) is False, numel
