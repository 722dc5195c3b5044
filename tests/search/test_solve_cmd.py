"""``absint solve`` on the command line: answers, JSON, and errors that stop no other file."""

from __future__ import annotations

import json
import os
import shutil

from absint.lang.evaluator import truth_at
from absint.readers.smtlib import read_file
from programs import TRANSPOSED
from repo_paths import EXAMPLES

RESHAPE = os.path.join(EXAMPLES, "reshape_chain.smt2")


def test_found_prints_the_point_and_the_outputs(run_cli):
    code, out, err = run_cli("solve", RESHAPE, "--want", "output0_size1 == 812")
    assert code == 0 and not err
    assert "reshape_chain.smt2: found: s0=25 s1=432 s2=812 s3=176; outputs:" in out
    assert "output0_size1=812" in out


def test_verbose_says_how_the_search_decided(run_cli):
    code, out, _ = run_cli("solve", RESHAPE, "--want", "output0_size1 == 812", "--verbose")
    found, spent = out.splitlines()[:2]
    assert code == 0 and ": found: " in found
    assert spent.startswith("  search: a point checked by the evaluator (") and spent.endswith(" s")
    code, out, _ = run_cli("solve", RESHAPE, "--want", "s1 == 433", "-v")
    assert out.splitlines()[1].startswith("  search: propagation reached a contradiction; ")


def test_json_has_the_issues_fields_and_the_point_holds(run_cli):
    code, out, _ = run_cli("solve", RESHAPE, "--want", "(= output0_size0 (* 2 10800))", "--want", "s2 != 406",
                       "--json", "--seed", "3")
    record = json.loads(out)
    assert code == 0
    assert {"file", "status", "point", "outputs", "reason"} <= set(record)
    assert record["status"] == "found" and record["outputs"]["output0_size0"] == 21600
    program = read_file(RESHAPE)
    assert all(truth_at(f.term, record["point"]) for f in program.facts)
    assert record["point"]["s2"] != 406


def test_impossible_names_the_asserts_with_positions(run_cli):
    code, out, _ = run_cli("solve", RESHAPE, "--want", "s1 == 433", "--json")
    record = json.loads(out)
    assert code == 0 and record["status"] == "impossible" and record["point"] is None
    assert [a["index"] for a in record["asserts"]] == [11]
    assert record["asserts"][0]["at"].endswith("reshape_chain.smt2:47:1")


def test_a_bad_file_stops_no_other_file(run_cli, tmp_path):
    bad = tmp_path / "a_bad.smt2"
    bad.write_text("(declare-const s0 Int)\n(assert (> s0 )\n")
    shutil.copy(RESHAPE, tmp_path / "b_good.smt2")
    code, out, err = run_cli("solve", str(tmp_path), "--want", "s1 == 864")
    assert code == 1
    assert "a_bad.smt2:2:" in err
    assert "b_good.smt2: found:" in out


def test_a_want_naming_what_a_file_lacks_is_a_usage_error_for_that_file(run_cli, tmp_path):
    shutil.copy(RESHAPE, tmp_path / "a.smt2")
    shutil.copy(os.path.join(EXAMPLES, "le_chain.smt2"), tmp_path / "b.smt2")
    code, out, err = run_cli("solve", str(tmp_path), "--want", "s1 == 864")
    assert code == 2
    assert "b.smt2: --want 1 's1 == 864': undefined name 's1'" in err
    assert "a.smt2: found:" in out


def test_bad_want_syntax_is_refused_before_any_file(run_cli):
    code, out, err = run_cli("solve", RESHAPE, "--want", "s1 == 1.5")
    assert code == 2 and not out and "only integers" in err


def test_unknown_reports_the_budget(run_cli, tmp_path):
    f = tmp_path / "p.smt2"
    f.write_text("(declare-const x Int)\n(declare-const y Int)\n(assert (> x 1))\n(assert (> y 1))\n")
    code, out, _ = run_cli("solve", str(f), "--want", f"x * y == {2**61 - 1}", "--budget", "30")
    assert code == 0 and "unknown: budget spent: 30 nodes" in out


POOLED = os.path.join(EXAMPLES, "pooled_input.smt2")


def test_a_found_point_satisfies_the_preset_facts(run_cli):
    from absint.presets.facts import preset_facts
    code, out, _ = run_cli("solve", POOLED, "--preset", "ge2", "--want", "output0_size0 <= 3", "--json")
    record = json.loads(out)
    assert code == 0 and record["status"] == "found"
    program = read_file(POOLED)
    facts = preset_facts(program, ["ge2"])
    assert facts and all(truth_at(f.term, record["point"]) for f in facts)
    assert all(truth_at(f.term, record["point"]) for f in program.facts)
    assert record["point"]["x_size0"] in (2, 3)


def test_an_impossible_caused_by_a_preset_names_it(run_cli):
    code, out, _ = run_cli("solve", POOLED, "--want", "x_size0 == 1")
    assert code == 0 and ": found:" in out
    code, out, _ = run_cli("solve", POOLED, "--preset", "ge2", "--want", "x_size0 == 1")
    assert code == 0 and "impossible" in out and "preset ge2: x_size0 >= 2" in out
    code, out, _ = run_cli("solve", POOLED, "--preset", "ge2", "--want", "x_size0 == 1", "--json")
    record = json.loads(out)
    assert record["presets"] == ["preset ge2: x_size0 >= 2"]
    assert all(0 <= a["index"] < len(read_file(POOLED).facts) for a in record["asserts"])




def test_a_refused_or_unknown_preset_exits_2(run_cli, tmp_path):
    path = tmp_path / "transposed.smt2"  # strides 1, 4 for sizes 4, 4: not contiguous
    path.write_text(TRANSPOSED)
    code, _, err = run_cli("solve", str(path), "--preset", "contiguous", "--want", "y_size0 >= 1")
    assert code == 2 and "preset contiguous refused" in err and "is false at the example point" in err
    code, _, err = run_cli("solve", POOLED, "--preset", "nope", "--want", "x_size0 >= 1")
    assert code == 2 and "unknown preset 'nope'" in err
