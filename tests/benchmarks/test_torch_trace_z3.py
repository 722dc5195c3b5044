"""benchmarks.torch_trace_z3 on a trace of this project's own: a question absint left UNKNOWN
that Z3 decides is listed; one this checkout's absint decides, or that Z3 cannot, is not."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("z3", reason="the trace check asks Z3 (pip install z3-solver)")

from benchmarks import torch_trace_z3  # noqa: E402


def _trace(tmp_path, questions):
    events = [{"t": "session", "s": 0, "label": "t::case", "torch": "2.13.0", "mode": "shadow", "deferred": False},
              {"t": "symbol", "s": 0, "name": "s0", "sort": "Int", "hint": 6, "backed": True},
              {"t": "symbol", "s": 0, "name": "u0", "sort": "Int", "hint": None, "backed": False},
              {"t": "fact", "s": 0, "tier": "entry", "smt": "(>= s0 2)"},
              {"t": "fact", "s": 0, "tier": "full", "smt": "(= (mod s0 2) 0)"},
              {"t": "fact", "s": 0, "tier": "full", "smt": "(>= u0 0)"}]
    events += [{"t": "q", "s": 0, "smt": q, "route": route, "torch": "none", "absint": "unknown", "by": "none",
                "value": None} for q, route in questions]
    path = tmp_path / "trace.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def test_only_what_z3_decides_and_absint_still_leaves_open_is_listed(tmp_path, capsys):
    path = _trace(tmp_path, [
        # u0*(u0 + 1) is even and 2*s0 + 1 odd: absint open, Z3 FALSE
        ("(= (* u0 (+ u0 1)) (+ (* 2 s0) 1))", "full"),
        # PyTorch's test_python_mod_padding_no_recompile asks it: decided now by the
        # case split on the values the guard leaves u0 (it was the open example)
        ("(= (+ u0 (mod (* 3 u0) 4) (- 1)) 0)", "full"),
        ("(>= s0 1)", "entry"),  # this checkout's absint decides it: not listed
        ("(= (mod (* s0 s0 u0) 4) 0)", "full"),  # so does it (s0 even): not listed
        ("(= u0 3)", "full"),  # open for both
    ])
    assert torch_trace_z3.main([str(path), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert [(f["smt"], f["z3"], f["route"], f["label"]) for f in found] == [
        ("(= (* u0 (+ u0 1)) (+ (* 2 s0) 1))", "false", "full", "t::case")]
    assert found[0]["operators"] == ["*"]
    assert torch_trace_z3.main([str(path)]) == 0
    assert "recorded UNKNOWN: 5; decided by this checkout's absint: 3; of the rest, Z3 decides 1" in capsys.readouterr().out
