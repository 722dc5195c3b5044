"""``absint analyze`` against the faults of an independent fuzzing report: each test is one
finding (a hang, a lost batch, a traceback, lost records, a false alarm) and fails on the
code before the fix.

Runs that could hang on a regression are subprocesses with a time limit, so a regression
fails the test instead of stopping the suite.
"""

from __future__ import annotations

import builtins
import os
import re
import subprocess
import sys

import pytest

from absint import cli
from absint.batch import jsonl
from absint.batch.executors import FAULT_ENV
from absint.batch.plan import plan
from absint.readers import files
from benchmarks import generators as G
from repo_paths import ROOT

REPO = str(ROOT)


def analyze_process(*argv, timeout: float = 120) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [REPO, os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "absint", "analyze", *map(str, argv)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)


def good(directory, name="good.smt2", n=3):
    (directory / name).write_text(G.build("conv", n, 0).text)


# ------------------------------------------------------------------ only regular files, read by the workers


def test_a_fifo_and_a_device_are_records_and_the_batch_goes_on(by_file, tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    good(d)
    os.mkfifo(d / "fifo.smt2")  # opening it for reading would block until a writer comes
    os.symlink("/dev/zero", d / "zero.smt2")  # reading it whole never ends
    out = tmp_path / "out.jsonl"
    done = analyze_process(d, "--jsonl", out, "--quiet", timeout=60)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    recs = by_file(out)
    assert recs["good.smt2"]["error"] is None
    assert recs["fifo.smt2"]["error"] == f"{d / 'fifo.smt2'}: cannot read: not a regular file (a FIFO)"
    assert recs["zero.smt2"]["error"] == f"{d / 'zero.smt2'}: cannot read: not a regular file (a character device)"


def test_a_file_over_max_file_size_is_a_record_and_the_batch_goes_on(analyze, by_file, tmp_path):
    good(tmp_path)
    (tmp_path / "big.smt2").write_text("; " + "x" * (2 << 20) + "\n(check-sat)\n")
    out = tmp_path / "out.jsonl"
    assert analyze(tmp_path, "--jsonl", out, "--max-file-size", 1, "--quiet") == 1
    recs = by_file(out)
    assert recs["good.smt2"]["error"] is None
    assert recs["big.smt2"]["error"].startswith(f"{tmp_path / 'big.smt2'}: cannot read: too large (")
    assert "--max-file-size" in recs["big.smt2"]["error"]
    assert analyze(tmp_path, "--jsonl", out, "--quiet") == 0  # the default limit is far above 2 MB


def test_the_parent_plans_without_reading_a_file(tmp_path, monkeypatch):
    for name in ("a.smt2", "b.smt2"):
        good(tmp_path, name)

    def no_reading(*args, **kwargs):
        raise AssertionError("the parent read a file")

    monkeypatch.setattr(builtins, "open", no_reading)
    monkeypatch.setattr(os, "open", no_reading)
    tasks = plan(files.smt2_files([str(tmp_path)]))
    assert [t.name for t in tasks] == [str(tmp_path / n) for n in ("a.smt2", "b.smt2")]
    assert all(t.size > 0 for t in tasks)


def test_read_regular_refuses_what_is_not_a_regular_file_or_too_large(tmp_path):
    import socket

    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "f").write_bytes(b"12345")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    assert files.read_regular(str(tmp_path / "f"), 5) == b"12345"
    for path, limit, reason in ((tmp_path / "fifo", 0, "not a regular file (a FIFO)"),
                                (tmp_path / "sock", 0, "not a regular file (a socket)"),
                                (tmp_path, 0, "not a regular file (a directory)"),
                                (tmp_path / "f", 4, "too large (5 bytes")):
        with pytest.raises(files.UnreadableFile, match=re.escape(reason)):
            files.read_regular(str(path), limit)
    assert files.file_sha256(str(tmp_path / "fifo")) is None
    sock.close()


def test_max_file_size_is_documented_and_checked(analyze, capsys):
    with pytest.raises(SystemExit):
        cli.main(["analyze", "--help"])
    assert "--max-file-size MB" in capsys.readouterr().out
    assert analyze("x.smt2", "--max-file-size", -1) == 2


# ------------------------------------------------------------------ file names that are not UTF-8


def test_a_file_name_that_is_not_utf8_keeps_its_record_under_a_readable_name(analyze, by_file, tmp_path, capsys):
    d = os.fsencode(tmp_path / "in")
    os.mkdir(d)
    with open(os.path.join(d, b"bad\xff.smt2"), "w") as f:
        f.write(G.build("conv", 3, 0).text)
    os.symlink(b"nowhere", os.path.join(d, b"gone\xfe.smt2"))
    out = tmp_path / "out.jsonl"
    assert analyze(os.fsdecode(d), "--jsonl", out) == 1  # the dangling link is an error record
    recs = by_file(out)
    assert recs["bad\\xff.smt2"]["error"] is None and recs["bad\\xff.smt2"]["asserts"] > 0
    assert recs["gone\\xfe.smt2"]["error"].endswith("gone\\xfe.smt2: cannot read: No such file or directory")
    assert "bad\\xff.smt2: " in capsys.readouterr().out
    before = out.read_bytes()
    assert analyze(os.fsdecode(d), "--jsonl", out, "--resume", "--quiet") == 1
    assert by_file(out)["bad\\xff.smt2"] == recs["bad\\xff.smt2"]  # matched on resume, not analysed again
    assert out.read_bytes().count(b"\n") == before.count(b"\n") == 2


# ------------------------------------------------------------------ the results file


@pytest.mark.parametrize("where", ["a directory", "a missing parent", "under a file", "unwritable"])
def test_a_bad_jsonl_path_is_one_line_and_exit_2_before_any_work(tmp_path, where):
    good(tmp_path)
    (tmp_path / "plain").write_text("")
    out = {"a directory": tmp_path, "a missing parent": tmp_path / "no" / "out.jsonl",
           "under a file": tmp_path / "plain" / "out.jsonl", "unwritable": "/sys/absint-out.jsonl"}[where]
    if where == "unwritable" and not os.path.isdir("/sys/kernel"):
        pytest.skip("no sysfs here: no directory that even root cannot write")
    done = analyze_process(tmp_path / "good.smt2", "--jsonl", out, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith(f"absint analyze: cannot write --jsonl {out}: ") and done.stderr.count("\n") == 1
    assert done.stdout == ""  # nothing analysed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.smt2", "plain"]


def test_a_usage_error_found_after_the_results_file_was_opened_leaves_no_file(analyze, tmp_path):
    good(tmp_path)
    out = tmp_path / "out.jsonl"
    assert analyze(tmp_path / "good.smt2", "--jsonl", out, "--executor", "dask") == 2  # no --scheduler
    assert not out.exists()


def test_a_second_run_on_the_same_results_file_is_refused_naming_the_file(analyze, tmp_path, monkeypatch, capsys):
    good(tmp_path)
    out = tmp_path / "out.jsonl"
    assert analyze(tmp_path, "--jsonl", out, "--quiet") == 0
    before = out.read_bytes()
    holder = jsonl.JsonlSink(str(out))  # the first run, still going
    try:
        assert analyze(tmp_path, "--jsonl", out, "--quiet") == 2
        assert analyze(tmp_path, "--jsonl", out, "--quiet", "--resume") == 2
    finally:
        holder.close()
    err = capsys.readouterr().err
    assert f"absint analyze: {out} is in use by another absint analyze run" in err
    assert out.read_bytes() == before  # the first run's records are untouched
    assert analyze(tmp_path, "--jsonl", out, "--quiet", "--resume") == 0  # free again


def test_the_lock_follows_the_file_across_its_rewrites(tmp_path):
    out = str(tmp_path / "out.jsonl")
    sink = jsonl.JsonlSink.fresh(out)  # the file was replaced: the new one is the locked one
    sink.write({"file": "a.smt2"})
    with pytest.raises(jsonl.ResultsBusy):
        jsonl.JsonlSink(out)
    sink.finish([{"file": "a.smt2"}])
    jsonl.JsonlSink(out).close()


@pytest.mark.parametrize("mask", [0o022, 0o027])
def test_the_results_file_has_the_umasks_mode(analyze, tmp_path, mask):
    good(tmp_path)
    out = tmp_path / "out.jsonl"
    old = os.umask(mask)
    try:
        assert analyze(tmp_path, "--jsonl", out, "--quiet") == 0
        assert analyze(tmp_path, "--jsonl", out, "--quiet", "--resume") == 0
        jsonl.write_sorted(str(tmp_path / "direct.jsonl"), [{"file": "a"}])
    finally:
        os.umask(old)
    assert os.stat(out).st_mode & 0o777 == 0o666 & ~mask
    assert os.stat(tmp_path / "direct.jsonl").st_mode & 0o777 == 0o666 & ~mask
    os.chmod(out, 0o640)  # a mode the user chose is kept
    assert analyze(tmp_path, "--jsonl", out, "--quiet") == 0
    assert os.stat(out).st_mode & 0o777 == 0o640


# ------------------------------------------------------------------ resume after a death


def test_resume_retries_a_file_whose_process_died_once(analyze, by_file, tmp_path, monkeypatch):
    good(tmp_path)
    good(tmp_path, "victim.smt2", 4)
    out = tmp_path / "out.jsonl"
    monkeypatch.setenv(FAULT_ENV, "kill:victim.smt2")  # as if the OOM killer had chosen it
    assert analyze(tmp_path, "--jsonl", out, "--quiet") == 1
    first = by_file(out)
    assert first["victim.smt2"]["error"] == "worker died (signal SIGKILL)" and "attempts" not in first["victim.smt2"]

    assert analyze(tmp_path, "--jsonl", out, "--quiet", "--resume") == 1  # retried, and it dies again
    second = by_file(out)
    assert second["victim.smt2"]["error"] == "worker died (signal SIGKILL)"
    assert second["victim.smt2"]["attempts"] == 2
    assert second["good.smt2"] == first["good.smt2"]  # not run again

    monkeypatch.delenv(FAULT_ENV)
    assert analyze(tmp_path, "--jsonl", out, "--quiet", "--resume") == 1  # a second death is final
    assert by_file(out) == second


def test_a_retried_file_that_now_succeeds_gets_the_ordinary_record(analyze, tmp_path, monkeypatch):
    good(tmp_path, "victim.smt2", 4)
    out, fresh = tmp_path / "out.jsonl", tmp_path / "fresh.jsonl"
    monkeypatch.setenv(FAULT_ENV, "exit:victim.smt2")  # worker died (exit code 70): a death too
    assert analyze(tmp_path / "victim.smt2", "--jsonl", out, "--quiet") == 1
    monkeypatch.delenv(FAULT_ENV)
    assert analyze(tmp_path / "victim.smt2", "--jsonl", out, "--quiet", "--resume") == 0
    assert analyze(tmp_path / "victim.smt2", "--jsonl", fresh, "--quiet") == 0
    assert [jsonl.without_timing(r) for r in jsonl.read_records(str(out))] == \
        [jsonl.without_timing(r) for r in jsonl.read_records(str(fresh))]


# ------------------------------------------------------------------ example points that break their own file

#: s0 = 6 breaks the first assert; after it, the facts contradict each other (everything is decided)
INCONSISTENT = """(declare-const s0 Int)
(set-info :example-s0 6)
(assert (< s0 5))
(assert (>= s0 5))
(assert (< s0 10))
"""


def test_an_example_point_that_violates_an_assert_is_a_warning_not_a_soundness_bug(analyze, tmp_path, capsys):
    (tmp_path / "inconsistent.smt2").write_text(INCONSISTENT)
    out = tmp_path / "out.jsonl"
    assert analyze(tmp_path, "--jsonl", out) == 0
    (rec,) = jsonl.read_records(str(out))
    assert rec["example_violations"] == []
    assert rec["warning"] == "example point violates assert 0: hints inconsistent"
    captured = capsys.readouterr()
    assert "SOUNDNESS BUG" not in captured.err + captured.out
    assert f"WARNING: {tmp_path / 'inconsistent.smt2'}: example point violates assert 0: hints inconsistent" in captured.err


class Says:
    """A reasoner stand-in that gives the same verdict on every assert (a planted bug)."""

    def __init__(self, truth):
        from absint.reasoning.verdict import Layer, Verdict

        self.verdict = Verdict(truth, next(iter(Layer)))
        self.contradiction = False

    def prefer_to_eliminate(self, terms):
        list(terms)

    def register(self, terms):
        pass

    def decide(self, term):
        return self.verdict

    def assume(self, term):
        pass

    def example(self, values):
        pass


def _violations(text: str, truth) -> tuple:
    from absint.analysis import analyze_program
    from absint.readers.smtlib import parse

    a = analyze_program(parse(text, "t.smt2"), reasoner=Says(truth))
    return a.example_violations, a.inconsistent_at


def test_a_point_that_is_a_real_model_of_the_asserts_before_still_catches_a_wrong_verdict():
    from absint.reasoning.verdict import Truth

    # s0 = 6: assert 0 holds, assert 1 is false there, assert 2 is beyond the point's reach
    text = "(declare-const s0 Int)\n(set-info :example-s0 6)\n" \
           "(assert (> s0 1))\n(assert (< s0 5))\n(assert (> s0 100))\n"
    assert _violations(text, Truth.TRUE) == ((1,), 1)  # 'implied' at 1, but the point satisfies 0 and not 1
    assert _violations(text, Truth.FALSE) == ((0,), 1)  # 'refuted' at 0, which holds at the point
    consistent = "(declare-const s0 Int)\n(set-info :example-s0 6)\n(assert (> s0 1))\n(assert (< s0 7))\n"
    assert _violations(consistent, Truth.FALSE) == ((0, 1), None)
    assert _violations(consistent, Truth.TRUE) == ((), None)
    unbacked = "(declare-const s0 Int)\n(set-info :example-s0 6)\n(declare-const u0 Int)\n" \
               "(assert (> u0 s0))\n(assert (< s0 5))\n"
    assert _violations(unbacked, Truth.TRUE) == ((), 1)  # u0 has no value: the point is no model of assert 0


def test_two_processes_on_one_results_file_the_second_is_refused_and_the_first_keeps_all(by_file, tmp_path):
    import time

    good(tmp_path)
    good(tmp_path, "slow.smt2", 4)
    out = tmp_path / "out.jsonl"
    env = dict(os.environ, PYTHONPATH=REPO, **{FAULT_ENV: "sleep:slow.smt2"})  # slow.smt2 takes the 5 s limit
    first = subprocess.Popen([sys.executable, "-m", "absint", "analyze", str(tmp_path), "--jsonl", str(out),
                              "--timeout", "5", "--jobs", "2", "--quiet"], cwd=REPO, env=env,
                             stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60  # good.smt2's record written: the run is under way (and holds OUT)
        while time.monotonic() < deadline and first.poll() is None and \
                not (out.exists() and out.read_bytes().count(b"\n") >= 1):
            time.sleep(0.05)
        assert first.poll() is None, "the first run ended before the second started"
        second = analyze_process(tmp_path, "--jsonl", out, "--quiet", timeout=60)
        assert second.returncode == 2
        assert second.stderr == f"absint analyze: {out} is in use by another absint analyze run; " \
                                "not started (wait for it, or write to another file)\n"
        assert first.wait(timeout=120) == 1  # slow.smt2 timed out
    finally:
        if first.poll() is None:
            first.kill()
    recs = by_file(out)
    assert sorted(recs) == ["good.smt2", "slow.smt2"]
    assert recs["slow.smt2"]["error"] == "timeout: exceeded 5 s"


def test_a_refuted_assert_in_a_program_without_example_values_is_no_soundness_bug():
    """A specification (no ``:example-`` values) is no trace: its asserts need not all hold
    anywhere, so a FALSE verdict there is an answer, not a bug."""
    from absint.analysis import analyze_program
    from absint.readers.smtlib import parse

    text = ("(declare-const W Int)(declare-const OW Int)(assert (<= 1 W 2))"
            "(assert (= OW (- W 2)))(assert (>= OW 1))")
    a = analyze_program(parse(text, "spec.smt2"))
    assert a.letters == "??F" and a.example_violations == ()


def test_an_internal_error_on_one_assert_costs_that_assert_only(tmp_path, monkeypatch):
    """A bug of ours while deciding one assert (a RecursionError in a layer) leaves that
    assert ``?`` with its message and position; the file's other verdicts stay; an error
    while assuming one leaves the asserts after it ``?`` (never a verdict from a
    half-updated reasoner)."""
    from absint.batch.analyze import analyze_file
    from absint.batch.record import FileRecord
    from absint.reasoning.reasoner import Reasoner

    path = tmp_path / "p.smt2"
    path.write_text("(declare-const x Int)\n(assert (>= x 1))\n(assert (>= x 0))\n"
                    "(assert (>= x 2))\n(assert (>= x -5))\n")
    decide, assume = Reasoner.decide, Reasoner.assume

    def failing_decide(self, guard):
        if "(- 5)" in str(guard) or "-5" in str(guard):
            raise RecursionError("maximum recursion depth exceeded")
        return decide(self, guard)

    monkeypatch.setattr(Reasoner, "decide", failing_decide)
    rec = analyze_file(str(path))
    assert rec.error is None and rec.verdicts == "?T??"
    assert [i for i, _ in rec.assert_errors] == [3]
    assert "p.smt2:5:1: internal error: RecursionError" in rec.assert_errors[0][1]
    assert FileRecord.from_json(rec.to_json()) == rec

    def failing_assume(self, fact):
        if "2" in str(fact):
            raise ValueError("planted")
        return assume(self, fact)

    monkeypatch.setattr(Reasoner, "decide", decide)
    monkeypatch.setattr(Reasoner, "assume", failing_assume)
    rec = analyze_file(str(path))
    assert rec.verdicts == "?T??" and rec.assert_errors[0][0] == 2
    assert "the asserts after it are not decided" in rec.assert_errors[0][1]
