"""``absint analyze --executor dask`` on a real local cluster: a scheduler and two
workers started as separate processes on 127.0.0.1, torn down afterwards.

The Dask run must give the same records as the local pool, timing fields
(``seconds``, ``parse_seconds``) aside, including the records of bad files.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

distributed = pytest.importorskip("distributed", reason="dask[distributed] is not installed (pip install 'absint[dask]')")

from absint import cli  # noqa: E402
from absint.batch import jsonl  # noqa: E402
from absint.batch.executors import FAULT_ENV  # noqa: E402
from benchmarks import generators as G  # noqa: E402
from repo_paths import ROOT  # noqa: E402

REPO = str(ROOT)
DASK = os.path.join(os.path.dirname(sys.executable), "dask")
FAULTS = "exit:crash.smt2"
PLANTED = 'raise RuntimeError("the planted absint package was imported")\n'


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(procs) -> None:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
    deadline = time.monotonic() + 10
    for p in procs:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """``tcp://127.0.0.1:PORT`` of a scheduler with two single-threaded workers (separate processes),
    run from a folder holding a planted ``absint/`` whose import raises: the absint worker each Dask
    worker starts must import the package the task came from, never the working directory's."""
    if not os.path.exists(DASK):
        pytest.skip(f"no dask executable next to {sys.executable}")
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, FAULT_ENV: FAULTS,
           "PYTHONPATH": os.pathsep.join(filter(None, [REPO, os.environ.get("PYTHONPATH")]))}
    logs = tmp_path_factory.mktemp("dask-logs")
    (logs / "absint").mkdir()
    (logs / "absint" / "__init__.py").write_text(PLANTED)
    procs = []

    def start(name, *args):
        log = open(logs / f"{name}.log", "w")
        procs.append(subprocess.Popen([DASK, *args], env=env, stdout=log, stderr=subprocess.STDOUT,
                                      cwd=str(logs), start_new_session=True))

    try:
        start("scheduler", "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard")
        for i in range(2):
            start(f"worker{i}", "worker", address, "--nworkers", "1", "--nthreads", "1",
                  "--no-dashboard", "--host", "127.0.0.1")
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
        yield address
    finally:
        _stop(procs[1:])
        _stop(procs[:1])


def make_inputs(d) -> None:
    for kind, n, seed in [("conv", 4, 0), ("reshape", 3, 1), ("attention", 1, 2), ("jagged", 8, 3),
                          ("chain", 16, 4), ("conv", 9, 5), ("jagged", 30, 6)]:
        (d / f"{kind}_{n}_{seed}.smt2").write_text(G.build(kind, n, seed).text)
    text = G.build("attention", 2, 0).text
    (d / "truncated.smt2").write_text(text[: text.index("(assert ", len(text) // 2) + 8])
    (d / "unknown_op.smt2").write_text("(declare-const s0 Int)\n(set-info :example-s0 4)\n(assert (frob s0))\n")
    (d / "slow.smt2").write_text(G.le_chain(100_000, 0))
    (d / "crash.smt2").write_text(G.build("conv", 2, 0).text)


def test_dask_cluster_gives_the_verdicts_of_the_local_pool(cluster, tmp_path, monkeypatch):
    d = tmp_path / "in"
    d.mkdir()
    make_inputs(d)
    monkeypatch.setenv(FAULT_ENV, FAULTS)  # the same fault for the local workers as for the cluster's
    local, remote = tmp_path / "local.jsonl", tmp_path / "dask.jsonl"
    common = ["--timeout", "1", "--quiet"]
    assert cli.main(["analyze", str(d), "--jsonl", str(local), "--jobs", "2", *common]) == 1
    assert cli.main(["analyze", str(d), "--jsonl", str(remote), "--executor", "dask",
                     "--scheduler", cluster, *common]) == 1
    a = [jsonl.without_timing(r) for r in jsonl.read_records(str(local))]
    b = [jsonl.without_timing(r) for r in jsonl.read_records(str(remote))]
    assert len(b) == 11
    assert b == a
    errors = {os.path.basename(r["file"]): r["error"] for r in b if r["error"]}
    assert errors["slow.smt2"] == "timeout: exceeded 1 s"
    assert errors["crash.smt2"] == "worker died (exit code 70)"
    assert set(errors) == {"slow.smt2", "crash.smt2", "truncated.smt2", "unknown_op.smt2"}


def test_dask_resume_appends_only_the_missing_files(cluster, tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    make_inputs(d)
    for name in ("slow.smt2", "crash.smt2", "truncated.smt2", "unknown_op.smt2"):
        (d / name).unlink()
    out = tmp_path / "out.jsonl"
    first = sorted(os.listdir(d))[:3]
    args = ["--executor", "dask", "--scheduler", cluster, "--quiet", "--jsonl", str(out)]
    assert cli.main(["analyze", *[str(d / n) for n in first], *args]) == 0
    before = {os.path.basename(r["file"]): r for r in jsonl.read_records(str(out))}
    assert cli.main(["analyze", str(d), *args, "--resume"]) == 0
    after = {os.path.basename(r["file"]): r for r in jsonl.read_records(str(out))}
    assert len(after) == 7
    assert all(after[n] == before[n] for n in first)  # untouched, timing included


def test_unreachable_scheduler_is_a_clear_usage_error(tmp_path, capsys):
    (tmp_path / "a.smt2").write_text("(declare-const s0 Int)\n(assert (< 0 s0))\n")
    start = time.monotonic()
    code = cli.main(["analyze", str(tmp_path), "--executor", "dask", "--scheduler",
                     f"tcp://127.0.0.1:{free_port()}"])
    assert code == 2
    assert "cannot reach the Dask scheduler" in capsys.readouterr().err
    assert time.monotonic() - start < 60
