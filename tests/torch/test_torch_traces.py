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
