"""``absint analyze`` over many files: process pool, limits, streaming, resume, determinism.

Every program is generated here (benchmarks.generators or literal text); no
corpus file is copied. "Same JSONL content" always means: the same lines once
the timing fields (``seconds``, ``parse_seconds``: CPU time, different on every
run) are removed. No test asserts anything about wall-clock speed.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from absint.readers import files
from absint.batch import jsonl
from absint.batch import run as batch_run
from absint.batch.plan import plan, split_resumed
from absint.batch.summary import layer_totals
from absint.batch.executors import FAULT_ENV, Task, parse_faults
from absint.batch.record import FileRecord
from benchmarks import generators as G
from repo_paths import ROOT

REPO = str(ROOT)

UNKNOWN_OP = """(declare-const s0 Int)
(set-info :example-s0 4)
(assert (<= 2 s0))
(assert (frobnicate s0 2))
"""

GOOD = [("conv", 4, 0), ("reshape", 3, 1), ("attention", 1, 2), ("jagged", 8, 3), ("chain", 16, 4),
        ("conv", 6, 5), ("reshape", 5, 6)]


def write_good(directory, cases=GOOD, prefix="good") -> list[str]:
    names = []
    for kind, n, seed in cases:
        name = f"{prefix}_{kind}_{n}_{seed}.smt2"
        (directory / name).write_text(G.build(kind, n, seed).text)
        names.append(name)
    return names


def slow_program() -> str:
    """A long <= chain: far beyond a 1 s limit (parsing alone takes seconds)."""
    return G.le_chain(100_000, 0)


def records(path) -> list[dict]:
    return jsonl.read_records(str(path))


def untimed(path) -> list[dict]:
    """The file's records without timing fields: what must be identical from run to run."""
    return [jsonl.without_timing(r) for r in records(path)]


# ------------------------------------------------------------------ the JSONL file


def test_read_records_ignores_a_partial_last_line(tmp_path):
    out = tmp_path / "r.jsonl"
    out.write_text('{"file": "a.smt2", "asserts": 1}\n{"file": "b.smt2", "asse')
    assert [r["file"] for r in jsonl.read_records(str(out))] == ["a.smt2"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.text(min_size=1, max_size=12), st.integers(0, 10**6)), max_size=8), st.data())
def test_a_file_cut_anywhere_reads_back_as_the_complete_lines_before_the_cut(tmp_path, items, data):
    out = tmp_path / "cut.jsonl"
    sink = jsonl.JsonlSink.fresh(str(out))
    recs = [{"file": name, "asserts": n, "verdicts": "T?", "error": None} for name, n in items]
    for r in recs:
        sink.write(r)
    sink.close()
    content = out.read_bytes()
    cut = data.draw(st.integers(0, len(content)))
    out.write_bytes(content[:cut])
    assert jsonl.read_records(str(out)) == recs[: content[:cut].count(b"\n")]


def test_read_records_of_a_missing_file_is_empty(tmp_path):
    assert jsonl.read_records(str(tmp_path / "none.jsonl")) == []


def test_sink_streams_complete_flushed_lines(tmp_path):
    out = tmp_path / "r.jsonl"
    sink = jsonl.JsonlSink.fresh(str(out))
    sink.write({"file": "b.smt2", "asserts": 2})
    assert out.read_text() == '{"file": "b.smt2", "asserts": 2}\n'  # visible before close
    sink.write({"file": "a.smt2", "asserts": 1})
    sink.close()
    assert [r["file"] for r in records(out)] == ["b.smt2", "a.smt2"]


def test_write_sorted_orders_by_name_then_hash(tmp_path):
    out = tmp_path / "r.jsonl"
    jsonl.write_sorted(str(out), [{"file": "b", "sha256": "1"}, {"file": "a", "sha256": "2"},
                                  {"file": "a", "sha256": "1"}])
    assert [(r["file"], r["sha256"]) for r in records(out)] == [("a", "1"), ("a", "2"), ("b", "1")]
    assert [p.name for p in tmp_path.iterdir()] == ["r.jsonl"]  # no temporary file left


def test_resume_sink_drops_the_partial_tail(tmp_path):
    out = tmp_path / "r.jsonl"
    out.write_text('{"file": "a.smt2"}\n{"file": "b.sm')
    sink = jsonl.JsonlSink.resume(str(out), jsonl.read_records(str(out)))
    sink.write({"file": "c.smt2"})
    sink.close()
    assert out.read_text() == '{"file": "a.smt2"}\n{"file": "c.smt2"}\n'


# ------------------------------------------------------------------ planning


def test_plan_starts_largest_files_first_and_keeps_paths_apart(tmp_path):
    """Records name a file by its path as given: two ``small.smt2`` in different folders
    are two tasks (they once collided under their base name); one path given twice is one."""
    (tmp_path / "small.smt2").write_text("(check-sat)\n")
    (tmp_path / "big.smt2").write_text("; " + "x" * 1000 + "\n(check-sat)\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "small.smt2").write_text("(check-sat)\n")
    tasks = plan(files.smt2_files([str(tmp_path)]) + [str(tmp_path / "big.smt2")])
    assert [t.name for t in tasks] == [str(tmp_path / n) for n in ("big.smt2", "small.smt2", "sub/small.smt2")]


def test_records_keep_the_path_as_given(analyze, tmp_path, monkeypatch):
    for folder in ("x", "y"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "model.smt2").write_text(G.build("conv", 4, 0).text)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out.jsonl"
    assert analyze("x", "y/model.smt2", "--jsonl", out, "--quiet") == 0
    assert sorted(r["file"] for r in records(out)) == ["x/model.smt2", "y/model.smt2"]


def test_split_resumed_skips_recorded_files_and_drops_stale_records():
    tasks = [Task("d/a", "a", 1, "h1"), Task("d/b", "b", 1, "h2"), Task("d/c", "c", 1, "h3")]
    old = [FileRecord.from_json(r) for r in
           ({"file": "a", "sha256": "h1"}, {"file": "b", "sha256": "old"}, {"file": "z", "sha256": "h9"})]
    kept, todo = split_resumed(tasks, old)
    assert set(kept) == {("a", "h1"), ("z", "h9")}  # b changed: stale; z is not in this run: kept
    assert [t.name for t in todo] == ["b", "c"]


def test_parse_faults():
    assert parse_faults("exit:a.smt2, sleep:b.smt2,bogus:c,memory:") == {"a.smt2": "exit", "b.smt2": "sleep"}


# ------------------------------------------------------------------ bad files, good files


def test_each_bad_file_gets_its_reason_and_the_good_ones_complete(analyze, by_file, tmp_path, monkeypatch, capsys):
    d = tmp_path / "in"
    d.mkdir()
    good = write_good(d)
    text = G.build("attention", 2, 0).text
    cut = text.index("(assert ", len(text) // 2) + len("(assert ")
    (d / "truncated.smt2").write_text(text[:cut])  # ends inside an assert
    (d / "unknown_op.smt2").write_text(UNKNOWN_OP)
    (d / "slow.smt2").write_text(slow_program())
    for name in ("crash.smt2", "worker_exit.smt2", "memory_hog.smt2"):
        (d / name).write_text(G.build("conv", 2, 0).text)
    monkeypatch.setenv(FAULT_ENV, "exit:crash.smt2,kill-worker:worker_exit.smt2,memory:memory_hog.smt2")
    out = tmp_path / "out.jsonl"

    code = analyze(d, "--jsonl", out, "--jobs", 2, "--timeout", 1, "--max-memory", 1024)

    assert code == 1
    recs = by_file(out)
    assert sorted(recs) == sorted(good + ["truncated.smt2", "unknown_op.smt2", "slow.smt2", "crash.smt2",
                                          "worker_exit.smt2", "memory_hog.smt2"])
    assert "unexpected end of file" in recs["truncated.smt2"]["error"]
    assert "unknown operator 'frobnicate'" in recs["unknown_op.smt2"]["error"]
    assert recs["slow.smt2"]["error"] == "timeout: exceeded 1 s"
    assert recs["crash.smt2"]["error"] == "worker died (exit code 70)"  # the analysis process exited
    assert recs["worker_exit.smt2"]["error"] == "worker died (exit code 71)"  # the worker itself: replaced
    assert recs["memory_hog.smt2"]["error"] == "memory limit exceeded (1024 MB)"
    for name in good:
        r = recs[name]
        assert r["error"] is None, r
        assert r["asserts"] > 0 and len(r["verdicts"]) == r["asserts"]
        assert set(r["verdicts"]) <= set("TF?")
        assert r["example_violations"] == []
    for r in recs.values():  # every record can be matched on resume
        assert len(r["sha256"]) == 64
    stdout = capsys.readouterr().out
    assert "slow.smt2: ERROR timeout: exceeded 1 s" in stdout
    assert "timeouts" in stdout and "slowest" in stdout


def test_an_unresponsive_worker_is_killed_by_the_parent_and_replaced(analyze, by_file, tmp_path, monkeypatch):
    from absint.batch import executors

    monkeypatch.setattr(executors, "SAFETY_GRACE", 0.5)
    monkeypatch.setenv(FAULT_ENV, "hang-worker:hang.smt2")
    write_good(tmp_path, GOOD[:3])
    (tmp_path / "hang.smt2").write_text(G.build("conv", 40, 0).text)  # the largest: started first
    out = tmp_path / "out.jsonl"
    assert analyze(tmp_path, "--jsonl", out, "--jobs", 1, "--timeout", 1, "--quiet") == 1
    recs = by_file(out)
    assert recs["hang.smt2"]["error"] == "timeout: exceeded 1 s (worker unresponsive)"
    assert [r["error"] for name, r in recs.items() if name != "hang.smt2"] == [None] * 3


def test_good_records_are_those_of_analyze_file_in_a_fresh_interpreter(analyze, tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    names = write_good(d, GOOD[:3])
    out = tmp_path / "out.jsonl"
    assert analyze(d, "--jsonl", out, "--jobs", 1, "--quiet") == 0
    fresh = subprocess.run(
        [sys.executable, "-c", "import json, sys; from absint.batch.analyze import analyze_file; "
         "print(json.dumps([analyze_file(p).to_json() for p in sys.argv[1:]]))", *[str(d / n) for n in names]],
        capture_output=True, text=True, check=True, cwd=REPO).stdout
    expected = sorted((jsonl.without_timing(r) for r in json.loads(fresh)), key=jsonl.record_key)
    assert untimed(out) == expected


def test_output_is_sorted_and_the_same_for_any_number_of_jobs(analyze, tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    write_good(d)
    write_good(d, [("jagged", 20, 9), ("conv", 12, 8)], prefix="more")
    one, three = tmp_path / "one.jsonl", tmp_path / "three.jsonl"
    assert analyze(d, "--jsonl", one, "--jobs", 1, "--quiet") == 0
    assert analyze(d, "--jsonl", three, "--jobs", 3, "--quiet") == 0
    names = [r["file"] for r in records(one)]
    assert names == sorted(names)
    assert untimed(one) == untimed(three)


def test_exit_status_zero_and_stats_per_layer(analyze, tmp_path, capsys):
    d = tmp_path / "in"
    d.mkdir()
    write_good(d, GOOD[:2])
    out = tmp_path / "out.jsonl"
    assert analyze(d, "--jsonl", out, "--stats", "--quiet") == 0
    totals = layer_totals([FileRecord.from_json(r) for r in records(out)])
    assert sum(totals.values()) == sum(len(r["verdicts"]) - r["verdicts"].count("?") for r in records(out))
    stdout = capsys.readouterr().out
    assert "verdicts per layer" in stdout
    for layer, n in totals.items():
        assert layer in stdout


def test_quiet_and_not_a_terminal_means_no_progress_and_no_file_lines(analyze, tmp_path, capsys):
    d = tmp_path / "in"
    d.mkdir()
    write_good(d, GOOD[:1])
    assert analyze(d, "--quiet") == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert "good_conv_4_0.smt2:" not in captured.out  # no per-file line
    assert "files" in captured.out and "slowest" in captured.out  # the summary table


def test_no_worker_outlives_a_run(analyze, tmp_path):
    psutil = pytest.importorskip("psutil")
    d = tmp_path / "in"
    d.mkdir()
    write_good(d, GOOD[:3])
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    assert analyze(d, "--jobs", 2, "--quiet") == 0
    alive = [p for p in psutil.Process().children(recursive=True)
             if p.pid not in before and p.status() != psutil.STATUS_ZOMBIE]
    assert alive == []


def test_soundness_bugs_are_loud_and_fail_the_run(analyze, tmp_path, monkeypatch, capsys):
    class Buggy:
        def run(self, tasks):
            for t in tasks:
                yield t, FileRecord(t.name, 2, "TF", 0.0, None, t.sha256, 0.0, example_violations=[1])

    monkeypatch.setattr(batch_run, "_executor", lambda options: (Buggy(), "test"))
    (tmp_path / "a.smt2").write_text(UNKNOWN_OP)
    out = tmp_path / "out.jsonl"
    assert analyze(tmp_path / "a.smt2", "--jsonl", out) == 1
    assert records(out)[0]["example_violations"] == [1]
    captured = capsys.readouterr()
    assert f"SOUNDNESS BUG: {tmp_path / 'a.smt2'}" in captured.err


def test_usage_errors(analyze, tmp_path, capsys):
    (tmp_path / "a.smt2").write_text(UNKNOWN_OP)
    assert analyze(tmp_path / "a.smt2", "--resume") == 2
    assert analyze(tmp_path / "a.smt2", "--executor", "dask") == 2
    assert "--scheduler" in capsys.readouterr().err


def test_dask_missing_gives_install_hint(analyze, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    (tmp_path / "a.smt2").write_text(UNKNOWN_OP)
    assert analyze(tmp_path / "a.smt2", "--executor", "dask", "--scheduler", "tcp://127.0.0.1:1") == 2
    assert "pip install 'absint[dask]'" in capsys.readouterr().err


def test_unreadable_file_is_a_record(analyze, tmp_path):
    out = tmp_path / "out.jsonl"
    assert analyze(tmp_path / "missing.smt2", "--jsonl", out, "--quiet") == 1
    (rec,) = records(out)
    assert rec["file"] == str(tmp_path / "missing.smt2") and "cannot read" in rec["error"]


# ------------------------------------------------------------------ resume


def test_resume_analyses_only_new_or_changed_files(analyze, by_file, tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    first = write_good(d, GOOD[:2])
    out = tmp_path / "out.jsonl"
    assert analyze(d, "--jsonl", out, "--quiet") == 0
    before = by_file(out)
    write_good(d, GOOD[2:4])
    (d / first[1]).write_text(G.build("conv", 7, 7).text)  # changed content: analysed again
    assert analyze(d, "--jsonl", out, "--quiet", "--resume") == 0
    after = by_file(out)
    assert after[first[0]] == before[first[0]]  # kept as it was, timing included
    assert after[first[1]]["sha256"] != before[first[1]]["sha256"]
    assert len(after) == 4
    fresh = tmp_path / "fresh.jsonl"
    assert analyze(d, "--jsonl", fresh, "--quiet") == 0
    assert untimed(out) == untimed(fresh)


def _descendants(pid: int):
    psutil = pytest.importorskip("psutil")
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def test_sigkill_half_way_then_resume_gives_the_uninterrupted_content(analyze, tmp_path):
    psutil = pytest.importorskip("psutil")
    d = tmp_path / "in"
    d.mkdir()
    cases = [(kind, n, seed) for seed in range(8) for kind, n in
             (("conv", 20), ("reshape", 12), ("attention", 4), ("jagged", 30), ("chain", 30))]
    write_good(d, cases)
    reference, out = tmp_path / "reference.jsonl", tmp_path / "out.jsonl"
    assert analyze(d, "--jsonl", reference, "--jobs", 1, "--quiet") == 0
    assert len(records(reference)) == len(cases) == 40

    proc = subprocess.Popen([sys.executable, "-m", "absint", "analyze", str(d), "--jsonl", str(out),
                             "--jobs", "1", "--quiet"], cwd=REPO, stdout=subprocess.DEVNULL)
    workers = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            workers = _descendants(proc.pid) or workers
            if out.exists() and out.read_bytes().count(b"\n") >= 5:
                break
            time.sleep(0.005)
        assert proc.poll() is None, "the run finished before it could be killed"
        workers = _descendants(proc.pid) or workers
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert workers, "the run had worker processes"
    gone_by = time.monotonic() + 10
    while time.monotonic() < gone_by:
        alive = [p for p in workers if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
        if not alive:
            break
        time.sleep(0.05)
    assert not alive, f"workers outlived their parent: {alive}"

    done = len(records(out))
    assert 5 <= done < 40
    assert analyze(d, "--jsonl", out, "--jobs", 1, "--quiet", "--resume") == 0
    assert untimed(out) == untimed(reference)  # timing fields differ between runs: ignored


def test_json_prints_one_object_with_the_summary_and_the_records(analyze, tmp_path, capsys):
    names = write_good(tmp_path, GOOD[:2])
    (tmp_path / "broken.smt2").write_text("(assert (<= x")
    out = tmp_path / "out.jsonl"
    rc = analyze(tmp_path, "--jobs", "1", "--json", "--jsonl", out)
    printed = json.loads(capsys.readouterr().out)
    assert rc == 1  # the broken file
    assert [f["file"] for f in printed["files"]] == sorted(str(tmp_path / n) for n in names + ["broken.smt2"])
    assert printed["files"] == records(out)
    s = printed["summary"]
    assert s["files"] == 3 and s["errors"] == 1
    assert s["implied"] + s["refuted"] + s["open"] == s["asserts"] == sum(f["asserts"] for f in printed["files"])
    assert sum(printed["layers"].values()) == s["implied"] + s["refuted"]


def test_verbose_narrates_each_file_from_its_record(analyze, tmp_path, capsys):
    """``-v``: under each file's line, its reading and deciding time and the verdicts per
    layer, the same numbers as its record."""
    write_good(tmp_path, GOOD[4:5])
    out = tmp_path / "out.jsonl"
    assert analyze(tmp_path, "--jobs", "1", "-v", "--jsonl", out) == 0
    (rec,) = records(out)
    text = capsys.readouterr().out
    assert f"  read {rec['parse_seconds']:.3f} s, decided in " in text
    layers = ", ".join(f"{layer} {n}" for layer, n in rec["layers"].items())
    assert sum(rec["layers"].values()) == rec["verdicts"].count("T") + rec["verdicts"].count("F") > 0
    assert f"  decided by {layers}\n" in text
    assert analyze(tmp_path, "--jobs", "1") == 0 and "decided by" not in capsys.readouterr().out
