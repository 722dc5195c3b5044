"""``absint check``: a file parses and every assert holds at its example point."""

from __future__ import annotations

import os

from absint.reports.check import check_file
from absint.cli import main

GOOD = """\
(define-fun min2 ((x Int) (y Int)) Int (ite (< x y) x y))
(declare-const s0 Int)
(set-info :example-s0 6)
(declare-const s1 Int)
(set-info :example-s1 4)
(define-fun m () Int (min2 s0 s1))
(assert (> s0 1))
(assert (= (mod s0 2) 0))
(assert (= m 4))
(define-fun output0_size0 () Int (div s0 2))
(check-sat)
"""

FAILING = """\
(declare-const s0 Int)
(set-info :example-s0 6)
(assert (> s0 1))
  (assert (< s0 5))
(assert (>= s0 0))
"""

MALFORMED = """\
(declare-const s0 Int)
(assert (> s0 1)
"""


def test_valid_file_is_ok(write_program):
    path = write_program("good.smt2", GOOD)
    report = check_file(path)
    assert report.ok
    assert (report.file, report.asserts, report.holding) == (path, 3, 3)  # the path as given
    assert report.failing == () and report.error is None
    assert report.summary() == f"{path}: ok: 3 asserts, 3 hold at the example point"


def test_assert_false_at_the_example_point_is_reported_with_its_position(write_program):
    path = write_program("bad.smt2", FAILING)
    report = check_file(path)
    assert not report.ok
    assert (report.asserts, report.holding) == (3, 2)
    assert len(report.failing) == 1
    assert report.failing[0].startswith(f"{path}:4:3: ")  # the path as given, not its base name
    assert "FAIL" in report.summary() and f"{path}:4:3" in report.summary()


def test_malformed_file_is_an_error_without_traceback(write_program):
    path = write_program("broken.smt2", MALFORMED)
    report = check_file(path)
    assert not report.ok
    assert report.error.startswith(f"{path}:3:1: unexpected end of file")
    assert "Traceback" not in report.summary()
    assert report.summary().startswith(f"{path}: ERROR {path}:3:1: ")


def test_missing_file_is_an_error(tmp_path):
    report = check_file(str(tmp_path / "absent.smt2"))
    assert not report.ok and "absent.smt2" in report.error


def test_unbacked_symbols_are_counted_and_their_asserts_not_evaluable(write_program):
    text = "(declare-const u Int)\n(declare-const s Int)\n(set-info :example-s 2)\n" \
           "(assert (> s 0))\n(assert (> u 0))\n"
    path = write_program("unbacked.smt2", text)
    report = check_file(path)
    assert report.unbacked == 1
    assert report.holding == 1 and len(report.not_evaluable) == 1
    assert report.not_evaluable[0].startswith(f"{path}:5:1: ")
    assert report.ok  # not evaluable is not a failure


def test_assert_dividing_by_zero_at_the_example_point_is_not_evaluable(write_program):
    text = "(declare-const s Int)\n(set-info :example-s 0)\n(assert (> (div 4 s) 0))\n"
    report = check_file(write_program("zero.smt2", text))
    assert report.ok and report.holding == 0
    assert "division by zero" in report.not_evaluable[0]


def test_deep_failing_assert_is_reported_not_a_crash(write_program):
    lines = ["(declare-const x Int)", "(set-info :example-x 0)", "(define-fun d0 () Int x)"]
    lines += [f"(define-fun d{k} () Int (mod (+ d{k - 1} 1) 1000))" for k in range(1, 3001)]
    lines.append("(assert (< d3000 0))")
    path = write_program("deep.smt2", "\n".join(lines) + "\n")
    report = check_file(path)
    assert not report.ok and len(report.failing) == 1
    assert report.failing[0].startswith(f"{path}:3004:1: ")


def test_cli_check_exits_0_when_every_file_is_ok(write_program, capsys):
    code = main(["check", write_program("good.smt2", GOOD)])
    out = capsys.readouterr().out
    assert code == 0
    assert "good.smt2: ok" in out and "1 file(s), 0 with a problem" in out


def test_cli_check_exits_1_when_an_assert_fails(write_program, capsys):
    code = main(["check", write_program("good.smt2", GOOD), write_program("bad.smt2", FAILING)])
    out = capsys.readouterr().out
    assert code == 1
    assert "bad.smt2: FAIL" in out and "2 file(s), 1 with a problem" in out


def test_cli_check_json_gives_one_object_per_file(write_program, capsys):
    import json

    code = main(["check", "--json", write_program("good.smt2", GOOD), write_program("bad.smt2", FAILING)])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 1
    by_file = {os.path.basename(r["file"]): r for r in lines}
    assert len(lines) == 2 and by_file["good.smt2"]["ok"] and not by_file["bad.smt2"]["ok"]
    assert by_file["bad.smt2"]["failing"] and by_file["good.smt2"]["holding"] == by_file["good.smt2"]["asserts"] > 0


def test_cli_check_exits_1_on_a_malformed_file(write_program, capsys):
    path = write_program("broken.smt2", MALFORMED)
    code = main(["check", path])
    captured = capsys.readouterr()
    assert code == 1
    assert f"{path}: ERROR {path}:3:1:" in captured.out
    assert "Traceback" not in captured.out + captured.err


def test_cli_check_searches_directories(write_program, tmp_path, capsys):
    (tmp_path / "sub").mkdir()
    write_program("sub/b.smt2", GOOD)
    write_program("a.smt2", GOOD)
    write_program("notes.txt", "not a program")
    assert main(["check", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in out[:2]] == [str(tmp_path / "a.smt2"), str(tmp_path / "sub" / "b.smt2")]
    assert out[-1] == "2 file(s), 0 with a problem"


def test_cli_check_exits_2_when_no_files_are_found(tmp_path, capsys):
    assert main(["check", str(tmp_path)]) == 2
    assert "no .smt2 files" in capsys.readouterr().err


# ------------------------------------------------------------------ budgets


def test_a_file_over_the_time_limit_is_reported_and_the_others_are_still_checked(write_program, tmp_path, capsys):
    from benchmarks.generators import le_chain

    write_program("a_slow.smt2", le_chain(100_000, 0))  # about 10 s of reading alone
    write_program("good.smt2", GOOD)
    code = main(["check", str(tmp_path), "--timeout", "2"])
    captured = capsys.readouterr()
    assert code == 1
    assert captured.err == f"{tmp_path / 'a_slow.smt2'}: timeout after 2 s\n"
    assert "good.smt2: ok" in captured.out and "2 file(s), 1 with a problem" in captured.out


def test_a_file_over_the_memory_limit_is_reported_and_the_others_are_still_checked(write_program, tmp_path, monkeypatch, capsys):
    from absint.batch.executors import FAULT_ENV

    monkeypatch.setenv(FAULT_ENV, "memory:hog.smt2")  # the process checking hog.smt2 allocates too much
    write_program("hog.smt2", GOOD)
    write_program("good.smt2", GOOD)
    assert main(["check", str(tmp_path), "--max-memory", "256"]) == 1
    captured = capsys.readouterr()
    assert captured.err == f"{tmp_path / 'hog.smt2'}: memory limit exceeded (256 MB)\n"
    assert "good.smt2: ok" in captured.out


def test_check_budget_options_are_documented_and_checked(write_program, capsys):
    import pytest

    with pytest.raises(SystemExit):
        main(["check", "--help"])
    out = capsys.readouterr().out
    assert "--timeout S" in out and "--max-memory MB" in out and "--max-file-size MB" in out
    assert "timeout after" in out
    assert main(["check", write_program("good.smt2", GOOD), "--timeout", "-1"]) == 2


def test_check_reads_only_regular_files(tmp_path, capsys):
    import os

    os.mkfifo(tmp_path / "fifo.smt2")
    assert main(["check", str(tmp_path / "fifo.smt2"), "--timeout", "60"]) == 1
    assert "not a regular file (a FIFO)" in capsys.readouterr().out


def test_a_dash_reads_one_program_from_standard_input():
    """``-`` as a path: the program comes from stdin (as a file ``stdin.smt2`` that every
    command, and the batch's workers, read); records and messages name it ``-``, as the user did."""
    import subprocess
    import sys

    text = "(declare-const x Int)\n(set-info :example-x 3)\n(assert (>= x 1))\n(assert (>= x 0))\n"
    for argv, expected in ((["check", "-"], "-: ok: 2 asserts"),
                           (["analyze", "-", "--asserts"], "-:4:1: T"),
                           (["analyze", "-", "--jobs", "1", "-q", "--json"], '"verdicts": "?T"'),
                           (["analyze", "-", "--jobs", "1", "-q", "--json"], '"file": "-"'),
                           (["check", "-", "--json"], '"file": "-"')):
        out = subprocess.run([sys.executable, "-m", "absint", *argv], input=text, capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0 and expected in out.stdout, (argv, out.stdout, out.stderr)
        assert "absint-stdin" not in out.stdout + out.stderr  # the private file is not named
