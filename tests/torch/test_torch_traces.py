"""Replay of traces the project recorded itself (``tests/data/torch_traces.jsonl``, from
``tests/support/torch_programs.py`` under torch 2.13 export and compile; regenerate with
``python -m benchmarks.torch_client --record tests/data/torch_traces.jsonl``), without torch:
absint's answers, recorded and replayed, never contradict PyTorch's answers (shadow
sessions: PyTorch answered every plain question) nor the values at the example point."""

from __future__ import annotations

import json
import sys

from absint.torch.trace import replay
from repo_paths import DATA

TRACES = DATA / "torch_traces.jsonl"


def test_traces_replay_without_contradiction():
    report = replay(TRACES.read_text().splitlines())
    assert report.findings == ()
    assert report.sessions >= 20 and report.unread == 0
    assert report.questions >= 200
    assert report.torch_decided >= 50  # shadow sessions: PyTorch's own answers to compare with
    assert report.with_values >= 100  # the value at the example: hints, and real unbacked values (export)
    assert report.recorded_decided >= 100
    assert report.replayed_decided >= report.recorded_decided  # the same facts decide as much again


def test_traces_cover_both_modes_and_both_tracers():
    labels = {json.loads(line)["label"] for line in TRACES.read_text().splitlines() if '"t":"session"' in line}
    assert {label.split("/")[1] for label in labels} == {"export", "compile"}
    assert {label.split("/")[2] for label in labels} == {"fallback", "shadow"}


def test_replaying_needs_no_torch():
    import subprocess

    code = (f"import sys; from absint.torch.trace import replay; r = replay(open({str(TRACES)!r})); "
            "assert not r.findings; assert 'torch' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_replay_starts_its_points_at_the_backed_hints():
    """The replay's reasoners take each backed symbol's hint as the bridge's ShapeReasoner
    does (``example``): their witness points, and so what a replayed question costs, are
    the live run's. An open question shows the hint at the point where it holds."""
    from absint.torch.trace import _Replay

    rp = _Replay(0, None)
    rp.event({"s": 0, "t": "symbol", "name": "s0", "sort": "Int", "hint": 4034, "backed": True})
    rp.event({"s": 0, "t": "symbol", "name": "u0", "sort": "Int", "hint": None, "backed": False})
    rp.event({"s": 0, "t": "fact", "tier": "full", "smt": "(<= (+ (* (- 1) s0) 2) 0)"})
    rp.event({"s": 0, "t": "fact", "tier": "full", "smt": "(<= (+ (* (- 1) s0) u0) 0)"})
    v = rp.full.decide(rp.term("(<= (+ s0 (- 5000)) 0)"))
    assert v.open_at is not None and v.open_at[0]["s0"] == 4034
    rp.event({"s": 0, "t": "rebuild"})  # a rebuilt session keeps them
    v = rp.full.decide(rp.term("(<= (+ s0 (- 5000)) 0)"))
    assert v.open_at is not None and v.open_at[0]["s0"] == 4034
