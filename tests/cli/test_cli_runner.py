"""The loop every per-file command shares (absint/cli/runner.py): files, budgets, output,
messages and the exit code, on jobs of the test's own."""

from __future__ import annotations

import argparse
import json
import time

from absint.batch.budgets import DEFAULT_MAX_MEMORY
from absint.cli.runner import OK, PROBLEM, USAGE, FileOutcome, each_file, files_with_errors

PROGRAM = "(declare-const s0 Int)\n(assert (>= s0 2))\n"


def _args(paths, json_out=False, timeout=5.0, **extra) -> argparse.Namespace:
    return argparse.Namespace(paths=[str(p) for p in paths], json=json_out, timeout=timeout,
                              max_memory=DEFAULT_MAX_MEMORY, max_file_size=16, **extra)


def _files(tmp_path, *names):
    for n in names:
        (tmp_path / n).write_text(PROGRAM)
    return [tmp_path / n for n in names]


def _job(path: str, presets) -> FileOutcome:
    name = path.rsplit("/", 1)[-1]
    status = {"bad.smt2": PROBLEM, "refused.smt2": USAGE}.get(name, OK)
    messages = (f"{path}: trouble",) if status else ()
    return FileOutcome({"file": path, "status": status}, (f"{name}: text",), messages, status, {"seen": 1})


def test_text_messages_summary_and_the_worst_status(tmp_path, capsys):
    files = _files(tmp_path, "a.smt2", "bad.smt2")
    code = each_file(_args([tmp_path]), "demo", _job, budgeted=False,
                     summary=lambda n, t: f"{n} file(s), {t['problems']} with an error, {t['seen']} seen")
    out, err = capsys.readouterr()
    assert code == PROBLEM
    assert out == "a.smt2: text\nbad.smt2: text\n2 file(s), 1 with an error, 2 seen\n"
    assert err == f"{files[1]}: trouble\n"


def test_json_prints_the_records_and_no_summary(tmp_path, capsys):
    _files(tmp_path, "a.smt2", "refused.smt2")
    code = each_file(_args([tmp_path], json_out=True), "demo", _job, budgeted=False, summary=files_with_errors)
    out, _ = capsys.readouterr()
    assert code == USAGE
    assert [json.loads(line)["status"] for line in out.splitlines()] == [OK, USAGE]


def test_a_job_over_its_time_budget_is_that_files_error_and_the_others_go_on(tmp_path, capsys):
    def slow(path: str, presets) -> FileOutcome:
        if path.endswith("slow.smt2"):
            time.sleep(30)
        return _job(path, presets)

    files = _files(tmp_path, "a.smt2", "slow.smt2")
    code = each_file(_args([tmp_path], timeout=1.0), "demo", slow, summary=files_with_errors)
    out, err = capsys.readouterr()
    assert code == PROBLEM
    assert out == "a.smt2: text\n2 file(s), 1 with an error\n"
    assert err == f"{files[1]}: timeout after 1 s\n"


def test_no_file_and_a_bad_budget_are_usage_errors(tmp_path, capsys):
    assert each_file(_args([tmp_path]), "demo", _job) == USAGE
    assert "absint demo: no .smt2 files found" in capsys.readouterr().err
    _files(tmp_path, "a.smt2")
    assert each_file(_args([tmp_path], timeout=-1), "demo", _job) == USAGE
    assert "must be >= 0" in capsys.readouterr().err
