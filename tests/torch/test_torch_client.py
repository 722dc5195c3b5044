"""absint.torch's installation in real PyTorch: install/uninstall/enabled, the signature
check, shadow mode changing nothing, ``python -m absint.torch``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch", reason="absint.torch tests need torch (pip install torch==2.13.0+cpu)")

import absint.torch as absint_torch  # noqa: E402
import torch_programs as tp  # noqa: E402
from torch.fx.experimental.symbolic_shapes import ShapeEnv  # noqa: E402

pytestmark = pytest.mark.torch


@pytest.fixture(autouse=True)
def _clean():
    yield
    absint_torch.uninstall()


def test_install_and_uninstall_put_pytorchs_method_back():
    original = ShapeEnv.__dict__["_maybe_evaluate_static"]
    absint_torch.install("shadow")
    assert ShapeEnv.__dict__["_maybe_evaluate_static"] is not original
    assert hasattr(ShapeEnv._maybe_evaluate_static, "cache_clear")  # PyTorch calls it
    absint_torch.install("fallback")  # replaces, does not stack
    assert ShapeEnv.__dict__["_maybe_evaluate_static"].__wrapped__ is original
    absint_torch.uninstall()
    assert ShapeEnv.__dict__["_maybe_evaluate_static"] is original
    with absint_torch.enabled("shadow"):
        with absint_torch.enabled("fallback"):
            assert absint_torch.installed() == "fallback"
        assert absint_torch.installed() == "shadow"
    assert absint_torch.installed() is None
    with pytest.raises(ValueError, match="mode"):
        absint_torch.install("always")


def test_install_refuses_another_signature(monkeypatch):
    def changed(self, expr, *, unbacked_only=False, compute_hint=False, size_oblivious=False, axioms=None,
                var_to_range=None, new_option=False):
        return None

    monkeypatch.setattr(ShapeEnv, "_maybe_evaluate_static", changed)
    with pytest.raises(absint_torch.UnsupportedTorch, match=re.escape(f"torch {torch.__version__} has") + ".*new_option"):
        absint_torch.install()
    assert ShapeEnv.__dict__["_maybe_evaluate_static"] is changed
    assert absint_torch.installed() is None


def test_this_torch_is_a_tested_version():
    assert torch.__version__.split("+")[0] in absint_torch.TESTED_TORCH_VERSIONS


SHADOW_CASES = [(p, how) for p in tp.PROGRAMS for how in ("export", "compile")]


@pytest.mark.parametrize("p,how", SHADOW_CASES, ids=[f"{p.name}-{how}" for p, how in SHADOW_CASES])
def test_shadow_mode_changes_nothing_and_never_disagrees(p, how):
    off = tp.run(p, how, absint=False)
    shadow = tp.run(p, how, absint=True, mode="shadow", check=True)
    assert (shadow.ok, shadow.error, shadow.guards, shadow.asserts) == (off.ok, off.error, off.guards, off.asserts)
    s = shadow.stats
    assert s["disagreements"] == 0 and s["check_failures"] == 0 and not s["errors"], s
    assert s["answered"] == 0  # shadow never answers


def test_python_m_absint_torch_runs_a_script(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent("""
        import sys, torch
        class M(torch.nn.Module):
            def forward(self, abc):
                a, b, c = abc.tolist()
                torch._check(a <= b)
                torch._check(b <= c)
                return torch.ones(3) if a <= c else torch.zeros(3)
        ep = torch.export.export(M(), (torch.tensor([1, 2, 3]),))
        print("exported", sys.argv[1:])
    """))
    trace = tmp_path / "t.jsonl"
    env = {**os.environ, "ABSINT_TORCH": "fallback", "ABSINT_TORCH_RECORD": str(trace)}
    r = subprocess.run([sys.executable, "-m", "absint.torch", str(script), "x"], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "exported ['x']" in r.stdout
    assert "absint.torch: {" in r.stderr and '"answered": 1' in r.stderr
    assert absint_torch.replay(trace.read_text().splitlines()).findings == ()
    r = subprocess.run([sys.executable, "-m", "absint.torch", str(script)], capture_output=True, text=True,
                       env={**os.environ, "ABSINT_TORCH": "off"}, timeout=300)
    assert r.returncode == 2 and "ABSINT_TORCH must be one of" in r.stderr


def test_docs_example_runs():
    from repo_paths import DOCS

    text = (DOCS / "torch.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    example = [b for b in blocks if "torch.export.export" in b]
    assert len(example) == 1
    exec(compile(example[0], "docs/torch.md", "exec"), {})


EXPORTS = list(tp.PROGRAMS)


@pytest.mark.parametrize("p", EXPORTS, ids=[p.name for p in EXPORTS])
def test_answers_hold_at_the_real_unbacked_values(p):
    """Exported with real-tensor propagation, PyTorch knows each unbacked symbol's real value:
    check mode evaluates every TRUE/FALSE of absint there too, and none is refuted."""
    on = tp.run(p, "export", absint=True, check=True, real=True)
    s = on.stats
    assert s["check_failures"] == 0 and s["disagreements"] == 0 and not s["errors"], s


def test_sorted_offsets_lose_every_slice_end_assert_but_the_users_own():
    """benchmarks.torch_scale at a small N (its goal at N = 128 is timed there, not here):
    each ``o[i] <= size`` that narrow adds follows from the chain of ``_check``s."""
    from benchmarks import torch_scale

    n = 12
    r = torch_scale.measure(torch_scale.offsets_program(n), "export")
    assert r["ok_off"] and r["ok_on"]
    assert r["asserts_off"] - r["asserts_on"] == n - 2  # o[n-2] <= size is the user's last _check
    split = torch_scale.measure(torch_scale.split_program(n), "export")
    assert split["ok_on"] and split["asserts_on"] == split["asserts_off"]  # only the user's own _checks


# ---------------------------------------------------------------- primary mode: absint first

#: every program under export; under compile every other one and those whose user ``if`` PyTorch
#: alone cannot trace (the suite's time: each case traces twice)
PRIMARY_CASES = [(p, how) for i, p in enumerate(tp.PROGRAMS) for how in ("export", "compile")
                 if how == "export" or i % 2 == 0 or "_if" in p.name or p.name.startswith("if_")]


@pytest.mark.parametrize("p,how", PRIMARY_CASES, ids=[f"{p.name}-{how}" for p, how in PRIMARY_CASES])
def test_primary_mode_traces_what_pytorch_traces_with_no_more_guards(p, how):
    """absint answers first: every program PyTorch traces alone still traces, with no guard or
    runtime assert more, and every TRUE/FALSE holds at the example point (check mode)."""
    off = tp.run(p, how, absint=False)
    primary = tp.run(p, how, absint=True, mode="primary", check=True)
    s = primary.stats
    assert s["check_failures"] == 0 and not s["errors"], s
    if off.ok:
        assert primary.ok, (primary.error, s)
        assert primary.guards <= off.guards and primary.asserts <= off.asserts, (off, primary)
    assert primary.data_dependent <= off.data_dependent


def _counting_original(monkeypatch) -> list:
    """PyTorch's own method, counting its calls (installed under absint's wrapper)."""
    original = ShapeEnv.__dict__["_maybe_evaluate_static"]
    calls: list = []

    import functools

    @functools.wraps(original)
    def counted(self, expr, *args, **kwargs):
        calls.append(kwargs)
        return original(self, expr, *args, **kwargs)

    monkeypatch.setattr(ShapeEnv, "_maybe_evaluate_static", counted)
    return calls


def test_primary_mode_answers_without_pytorchs_evaluation(monkeypatch):
    calls = _counting_original(monkeypatch)
    p = next(q for q in tp.PROGRAMS if q.name == "chain12_if")
    out = tp.run(p, "export", absint=True, mode="primary")
    s = out.stats
    assert out.ok and s["answered"] > 0
    plain = [c for c in calls if not any(k in c and c[k] not in (None, False) for k in
                                         ("axioms", "var_to_range", "compute_hint", "unbacked_only"))]
    # PyTorch evaluated only the plain questions absint could not read or left to it
    assert len(plain) == s["unread"] + s["unknown_to_torch"], (len(plain), s)
    assert s["asked"] == s["answered"] + s["unread"] + s["final_unknown"] + s["unknown_to_torch"], s


def test_primary_mode_sends_unknowns_to_pytorch_when_asked_to(monkeypatch):
    calls = _counting_original(monkeypatch)
    p = next(q for q in tp.PROGRAMS if q.name == "chain12_if")
    out = tp.run(p, "export", absint=True, mode="primary", unknown="ask_torch")
    s = out.stats
    assert out.ok and s["final_unknown"] == 0 and s["unknown_to_torch"] > 0
    with pytest.raises(ValueError, match="unknown"):
        absint_torch.install("primary", unknown="never")


def test_a_size_oblivious_question_is_answered_as_pytorch_means_it():
    """Under size_oblivious PyTorch assumes a size-like unbacked symbol is >= 2: ``u0 == 1`` is
    False there, and absint answers it so in primary mode (the plain call stays None); a
    size-oblivious question still open (``u1`` is not size-like) goes to PyTorch."""
    import sympy

    answers = []
    for mode in (None, "primary"):
        if mode:
            absint_torch.install(mode)
        se = ShapeEnv()
        u0, u1 = se.create_unbacked_symint().node.expr, se.create_unbacked_symint().node.expr
        se._constrain_range_for_size(u0)
        question = sympy.Eq(u0, 1)
        answers.append((se._maybe_evaluate_static(question), se._maybe_evaluate_static(question, size_oblivious=True),
                        se._maybe_evaluate_static(sympy.Eq(u1, 1), size_oblivious=True)))
    assert answers[0] == answers[1] == (None, sympy.false, None)
    stats = absint_torch.stats()
    assert (stats["final_unknown"], stats["answered"], stats["unknown_to_torch"]) == (1, 1, 1)
    assert stats["decided_by_layer"] == {"size-oblivious": 1}


def test_shadow_mode_lists_what_only_pytorch_decided(monkeypatch):
    """Planted: an absint that reads every question and decides none; each question PyTorch
    decided is then listed by ``torch_only()`` with its expression and PyTorch's answer."""
    from absint.reasoning.verdict import Truth
    from absint.torch import bridge

    p = next(q for q in tp.PROGRAMS if q.name == "split_tolist")
    real = tp.run(p, "export", absint=True, mode="shadow")
    assert real.stats["torch_only"] == 0 and absint_torch.torch_only() == []  # absint decides all PyTorch does
    monkeypatch.setattr(bridge.ShapeEnvBridge, "decide", lambda self, expr, *_: bridge.Answer(Truth.UNKNOWN, "none", "full"))
    planted = tp.run(p, "export", absint=True, mode="shadow")
    listed = absint_torch.torch_only()
    assert planted.stats["torch_only"] == len(listed) == planted.stats["torch_decided"] > 0
    assert all(t.torch in ("true", "false") and t.expr for t in listed)
