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
    import pathlib

    text = (pathlib.Path(__file__).resolve().parent.parent / "docs" / "torch.md").read_text()
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
