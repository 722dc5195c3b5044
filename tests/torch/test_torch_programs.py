"""absint.torch on real PyTorch: each program of ``torch_programs`` exported and compiled with
absint off and on (fallback mode, with the check at the example point).

Nothing that works without absint may fail with it; no run with absint may record more
guards or runtime asserts; the artifacts agree with eager on valid inputs (or reject them, as an exported program
off its guards does, only where the artifact without absint rejects them too); every bad input
the artifact without absint rejects, the one with absint rejects too (and an artifact only
absint made possible rejects every input eager rejects); absint's answers never contradict
the values at the example point.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="absint.torch tests need torch (pip install torch==2.13.0+cpu)")

import torch_programs as tp  # noqa: E402

pytestmark = pytest.mark.torch

CASES = [(p, how) for p in tp.PROGRAMS for how in ("export", "compile")]


@pytest.fixture(autouse=True)
def _clean():
    yield
    tp.absint_torch.uninstall()


@pytest.mark.parametrize("p,how", CASES, ids=[f"{p.name}-{how}" for p, how in CASES])
def test_program_off_and_on(p, how):
    for inputs in p.bad:  # the bad inputs are bad: eager rejects each
        assert tp.rejects(p.fn, inputs), f"eager accepts the bad input {inputs}"
    off = tp.run_and_check(p, how, absint=False)
    on = tp.run_and_check(p, how, absint=True)
    assert on.outcome.ok or not off.outcome.ok, f"works without absint, fails with it: {on.outcome.error}"
    stats = on.outcome.stats
    assert stats.get("disagreements", 0) == 0 and stats.get("check_failures", 0) == 0, stats
    assert not stats.get("errors"), stats
    if off.outcome.ok and on.outcome.ok:
        assert on.outcome.guards <= off.outcome.guards
        assert on.outcome.asserts <= off.outcome.asserts
    assert "wrong" not in off.valid and "wrong" not in on.valid, (off.valid, on.valid)
    assert on.valid[:1] in ([], ["ok"]), on.valid  # the example itself always runs
    if off.outcome.ok and on.outcome.ok:  # absint never makes a valid input rejected
        assert all(b != "rejected" or a == "rejected" for a, b in zip(off.valid, on.valid)), (off.valid, on.valid)
    if on.outcome.ok:
        if off.outcome.ok:
            assert all(b for a, b in zip(off.rejected, on.rejected) if a), (off.rejected, on.rejected)
        else:
            assert all(on.rejected), on.rejected


def test_absint_traces_programs_pytorch_cannot():
    """The point of it: some programs trace only with absint (data-dependent errors avoided)."""
    names = {"chain_if", "if_part_le_total"}
    for p in tp.PROGRAMS:
        if p.name in names:
            assert not tp.run(p, "export", absint=False).ok
            assert tp.run(p, "export", absint=True).ok


def test_answering_produce_guards_calls_would_miscompile(monkeypatch):
    """The hazard the plain-call rule exists for, planted: when absint also answers the
    ``axioms=()`` calls of ``produce_guards``, the entry guard of ``if x.size(0) > y.size(0)``
    is dropped and the compiled function returns a wrong result; the harness sees it."""
    from absint.torch import policy

    p = next(p for p in tp.PROGRAMS if p.name == "if_sizes")
    assert "wrong" not in tp.run_and_check(p, "compile", absint=True).valid
    monkeypatch.setattr(policy, "plain_call", lambda args, kwargs: True)
    assert "wrong" in tp.run_and_check(p, "compile", absint=True).valid
