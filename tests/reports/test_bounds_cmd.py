"""``absint bounds``: numeric and symbolic bounds of a program's unbacked sizes after all its asserts."""

from __future__ import annotations

import json

from absint.cli import main
from benchmarks.generators import PRELUDE_TEXT

#: torch.nonzero on an (s0, s1) input: u0 is at most numel; u1 is bounded below only
NONZERO = PRELUDE_TEXT + """
(declare-const s0 Int)
(set-info :example-s0 8)
(declare-const s1 Int)
(set-info :example-s1 16)
(declare-const u0 Int)
(declare-const u1 Int)
(assert (and (>= s0 1) (<= s0 100)))
(assert (and (>= s1 1) (<= s1 100)))
(assert (<= 0 u0))
(assert (<= u0 (* s0 s1)))
(assert (>= u1 3))
(define-fun output0_size0 () Int u0)
(define-fun output0_stride0 () Int 1)
"""

#: the same bound on u0 without ranges on the inputs
NO_RANGES = PRELUDE_TEXT + """
(declare-const s0 Int)
(set-info :example-s0 8)
(declare-const s1 Int)
(set-info :example-s1 16)
(declare-const u0 Int)
(assert (>= s0 1))
(assert (>= s1 1))
(assert (<= 0 u0))
(assert (<= u0 (* s0 s1)))
"""

#: values.split(lengths.tolist()): the lengths sum to the backed size, which an equality eliminates
JAGGED = PRELUDE_TEXT + """
(declare-const n Int)
(set-info :example-n 10)
(declare-const u0 Int)
(declare-const u1 Int)
(declare-const u2 Int)
(assert (>= u0 0))
(assert (>= u1 0))
(assert (>= u2 0))
(assert (= (+ u0 u1 u2) n))
"""

CONTRADICTORY = PRELUDE_TEXT + """
(declare-const s0 Int)
(set-info :example-s0 3)
(declare-const u0 Int)
(assert (>= u0 5))
(assert (<= u0 s0))
(assert (<= s0 4))
"""

MALFORMED = """\
(declare-const u0 Int)
(assert (> u0 1)
"""

TOO_BIG = """\
(declare-const u0 Int)
(assert (>= u0 2147483648))
"""


def records(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


def by_name(record: dict) -> dict[str, dict]:
    return {s["name"]: s for s in record["symbols"]}


def row(out: str, name: str) -> list[str]:
    return next(line.split() for line in out.splitlines() if line.split()[:1] == [name])


def test_unbacked_size_gets_numeric_bounds_from_ranges_and_the_product_as_symbolic_bound(write_program, run_cli):
    code, out, err = run_cli("bounds", write_program("nonzero.smt2", NONZERO))
    assert code == 0 and err == ""
    assert "nonzero.smt2: 5 asserts, 2 term(s) bounded" in out
    assert row(out, "u0") == ["u0", "0", "10000", "s0*s1", "-"]


def test_symbol_without_upper_bound_has_hi_oo_and_no_symbolic_upper_bound(write_program, run_cli):
    code, out, _ = run_cli("bounds", "--json", write_program("nonzero.smt2", NONZERO))
    u1 = by_name(records(out)[0])["u1"]
    assert code == 0
    assert (u1["lo"], u1["hi"], u1["upper"]) == (3, "oo", None)
    assert u1["lower"] is None  # 3 is already lo: no piece repeats it
    assert row(run_cli("bounds", write_program("nonzero.smt2", NONZERO))[1], "u1") == ["u1", "3", "oo", "-", "-"]


def test_json_is_one_object_per_file_with_the_documented_fields(write_program, run_cli):
    a = write_program("a.smt2", NONZERO)
    b = write_program("b.smt2", JAGGED)
    code, out, _ = run_cli("bounds", "--json", "--int32", a, b)
    recs = records(out)
    assert code == 0
    assert [r["file"] for r in recs] == [a, b]
    assert set(recs[0]) == {"file", "asserts", "contradiction", "symbols", "error"}
    assert (recs[0]["asserts"], recs[0]["contradiction"], recs[0]["error"]) == (5, None, None)
    assert by_name(recs[0])["u0"] == {"name": "u0", "lo": 0, "hi": 10000, "upper": ["s0*s1"], "lower": None,
                                       "int32": "TRUE"}
    assert [s["name"] for s in recs[1]["symbols"]] == ["u0", "u1", "u2"]


def test_symbol_bounded_by_an_eliminated_backed_size_is_bounded_by_it(write_program, run_cli):
    code, out, _ = run_cli("bounds", "--json", write_program("jagged.smt2", JAGGED))
    syms = by_name(records(out)[0])
    assert code == 0
    assert all(syms[u]["upper"] == ["n"] and syms[u]["hi"] == "oo" for u in ("u0", "u1", "u2"))


def test_malformed_file_is_one_error_line_and_the_other_files_are_still_reported(write_program, run_cli, tmp_path):
    good = write_program("a_good.smt2", NONZERO)
    bad = write_program("b_broken.smt2", MALFORMED)
    also_good = write_program("c_good.smt2", JAGGED)
    code, out, err = run_cli("bounds", str(tmp_path))
    assert code == 1
    assert err.splitlines() == [f"{bad}:3:1: unexpected end of file; expected ')'"]
    assert "Traceback" not in out + err
    assert f"{good}: 5 asserts" in out and f"{also_good}: 4 asserts" in out
    assert out.splitlines()[-1] == "3 file(s), 1 with an error"


def test_malformed_file_in_json_has_its_error_and_no_symbols(write_program, run_cli):
    bad = write_program("broken.smt2", MALFORMED)
    code, out, err = run_cli("bounds", "--json", bad)
    (rec,) = records(out)
    assert code == 1
    assert rec["error"].startswith(f"{bad}:3:1: unexpected end of file") and rec["symbols"] == []
    assert err.startswith(f"{bad}:3:1: ")


def test_missing_file_is_an_error_and_the_command_goes_on(write_program, run_cli, tmp_path):
    missing = str(tmp_path / "absent.smt2")
    code, out, err = run_cli("bounds", missing, write_program("nonzero.smt2", NONZERO))
    assert code == 1
    assert err == f"{missing}: cannot read: No such file or directory\n"
    assert row(out, "u0")[3] == "s0*s1"


def test_unknown_symbol_is_a_usage_error_naming_it(write_program, run_cli):
    path = write_program("nonzero.smt2", NONZERO)
    code, out, err = run_cli("bounds", "--symbol", "u9", "--symbol", "u0", path)
    assert code == 2
    assert err.startswith(f"{path}: no symbol or output named 'u9' (known: s0, s1, u0, u1, output0_size0")
    assert out == ""  # nothing reported for a file with a bad name


def test_symbol_option_reports_only_the_named_symbols_and_outputs(write_program, run_cli):
    path = write_program("nonzero.smt2", NONZERO)
    code, out, _ = run_cli("bounds", "--json", "-s", "output0_size0", "-s", "s1", path)
    syms = records(out)[0]["symbols"]
    assert code == 0
    assert [s["name"] for s in syms] == ["output0_size0", "s1"]
    assert (syms[0]["hi"], syms[0]["upper"]) == (10000, ["s0*s1"])
    assert (syms[1]["lo"], syms[1]["hi"], syms[1]["upper"]) == (1, 100, None)  # not bounded by itself


def test_outputs_option_adds_the_outputs(write_program, run_cli):
    code, out, _ = run_cli("bounds", "--outputs", write_program("nonzero.smt2", NONZERO))
    assert code == 0
    assert row(out, "output0_size0") == ["output0_size0", "0", "10000", "s0*s1", "-"]
    assert row(out, "output0_stride0") == ["output0_stride0", "1", "1", "-", "-"]


def test_int32_is_true_with_ranges_and_unknown_without(write_program, run_cli):
    code, out, _ = run_cli("bounds", "--int32", "--json",
                          write_program("a.smt2", NONZERO), write_program("b.smt2", NO_RANGES))
    ranged, unranged = records(out)
    assert code == 0
    assert by_name(ranged)["u0"]["int32"] == "TRUE"
    assert by_name(unranged)["u0"]["int32"] == "UNKNOWN"
    assert by_name(unranged)["u0"]["upper"] == ["s0*s1"]  # the symbolic bound does not need ranges


def test_int32_is_false_when_the_symbol_is_provably_too_large(write_program, run_cli):
    code, out, _ = run_cli("bounds", "--int32", write_program("big.smt2", TOO_BIG))
    assert code == 0
    assert row(out, "u0") == ["u0", "2147483648", "oo", "FALSE", "-", "-"]


def test_int32_column_only_with_the_option(write_program, run_cli):
    _, out, _ = run_cli("bounds", write_program("nonzero.smt2", NONZERO))
    assert row(out, "symbol") == ["symbol", "lo", "hi", "upper", "lower"]
    _, out, _ = run_cli("bounds", "--int32", write_program("nonzero.smt2", NONZERO))
    assert row(out, "symbol") == ["symbol", "lo", "hi", "int32", "upper", "lower"]


def test_contradictory_facts_are_reported_instead_of_vacuous_bounds(write_program, run_cli):
    path = write_program("contra.smt2", CONTRADICTORY)
    code, out, _ = run_cli("bounds", path)
    assert code == 0
    assert "CONTRADICTORY" in out and f"assert 3 at {path}:" in out
    assert len(out.splitlines()) == 1  # no table of vacuous bounds
    code, out, _ = run_cli("bounds", "--json", path)
    (rec,) = records(out)
    assert (rec["contradiction"], rec["symbols"], rec["error"]) == (2, [], None)


def test_smtlib_option_prints_bounds_in_smtlib_syntax(write_program, run_cli):
    code, out, _ = run_cli("bounds", "--json", "--smtlib", write_program("nonzero.smt2", NONZERO))
    assert code == 0
    assert by_name(records(out)[0])["u0"]["upper"] == ["(* s0 s1)"]


def test_program_without_unbacked_symbols_says_how_to_ask_for_others(write_program, run_cli):
    text = "(declare-const s0 Int)\n(set-info :example-s0 4)\n(assert (>= s0 2))\n"
    code, out, _ = run_cli("bounds", write_program("backed.smt2", text))
    assert code == 0
    assert "no unbacked symbols (report others with --outputs or --symbol NAME)" in out


def test_directory_without_smt2_files_is_a_usage_error(run_cli, tmp_path):
    code, out, err = run_cli("bounds", str(tmp_path))
    assert code == 2 and out == ""
    assert err == "absint bounds: no .smt2 files found\n"


# ------------------------------------------------------------------ budgets


def test_a_file_over_the_time_limit_is_reported_and_the_others_still_bounded(tmp_path, capsys):
    from benchmarks.generators import le_chain

    slow = tmp_path / "a_slow.smt2"
    slow.write_text(le_chain(100_000, 0))  # far beyond 2 s
    good = tmp_path / "nonzero.smt2"
    good.write_text(NONZERO)
    code = main(["bounds", str(tmp_path), "--timeout", "2", "--json"])
    out, err = capsys.readouterr()
    assert code == 1
    assert err == f"{slow}: timeout after 2 s\n"
    reports = [json.loads(line) for line in out.splitlines()]
    assert reports[0]["error"] == f"{slow}: timeout after 2 s"
    assert reports[1]["error"] is None and reports[1]["symbols"]


def test_a_file_over_the_memory_limit_is_reported_and_the_others_still_bounded(tmp_path, monkeypatch, capsys):
    from absint.batch.executors import FAULT_ENV

    monkeypatch.setenv(FAULT_ENV, "memory:hog.smt2")
    (tmp_path / "hog.smt2").write_text(NONZERO)
    (tmp_path / "nonzero.smt2").write_text(NONZERO)
    assert main(["bounds", str(tmp_path), "--max-memory", "256"]) == 1
    out, err = capsys.readouterr()
    assert err == f"{tmp_path / 'hog.smt2'}: memory limit exceeded (256 MB)\n"
    assert "nonzero.smt2: 5 asserts" in out


def test_bounds_budget_options_are_documented(capsys):
    import pytest

    with pytest.raises(SystemExit):
        main(["bounds", "--help"])
    out = capsys.readouterr().out
    assert "--timeout S" in out and "--max-memory MB" in out and "--max-file-size MB" in out
