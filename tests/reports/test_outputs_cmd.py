"""``absint outputs`` and ``ShapeReasoner.simplify``: each output as an expression over the
inputs, its constant whenever the facts fix it; ``bounds --outputs`` shows the same form."""

from __future__ import annotations

import json

import sympy

from absint import ShapeReasoner
from absint.cli import main
from benchmarks.generators import PRELUDE_TEXT, conv_stack

#: an (x_size0, x_size1) input pooled twice; x_size1 is fixed by the asserts, x_size0 is even
POOLED = PRELUDE_TEXT + """
(declare-const x_size0 Int)
(set-info :example-x_size0 64)
(declare-const x_size1 Int)
(set-info :example-x_size1 32)
(declare-const x_stride0 Int)
(set-info :example-x_stride0 32)
(assert (>= x_size0 2))
(assert (= (mod x_size0 2) 0))
(assert (= x_size1 32))
(assert (= x_stride0 x_size1))
(define-fun p0 () Int (div (+ x_size0 1) 2))
(define-fun p1 () Int (div p0 2))
(define-fun output0_size0 () Int p1)
(define-fun output0_size1 () Int (div (div x_size1 2) 2))
(define-fun output0_stride0 () Int (min2 (* 2 x_stride0) x_stride0))
(define-fun output0_stride1 () Int (* 4 (div x_size0 4)))
"""

CONTRADICTORY = PRELUDE_TEXT + """
(declare-const s0 Int)
(set-info :example-s0 3)
(assert (>= s0 5))
(assert (<= s0 4))
(define-fun output0_size0 () Int s0)
"""

UNBACKED = PRELUDE_TEXT + """
(declare-const s0 Int)
(set-info :example-s0 8)
(declare-const u0 Int)
(assert (>= u0 0))
(assert (<= u0 s0))
(define-fun output0_size0 () Int u0)
(define-fun output0_stride0 () Int 1)
"""


def by_name(out: str) -> dict[str, dict]:
    (record,) = [json.loads(line) for line in out.splitlines()]
    return {o["name"]: o for o in record["outputs"]}


def test_json_has_the_documented_fields_and_constants_where_the_facts_fix_them(write_program, run_cli):
    code, out, err = run_cli("outputs", "--json", write_program("pooled.smt2", POOLED))
    assert code == 0 and err == ""
    record = json.loads(out)
    assert set(record) == {"file", "asserts", "presets", "contradiction", "outputs", "error"}
    got = by_name(out)
    assert set(got["output0_size0"]) == {"name", "expr", "exact", "constant", "lo", "hi"}
    assert got["output0_size1"]["constant"] == 8 and got["output0_size1"]["expr"] == "8"
    assert got["output0_stride0"]["constant"] == 32  # min(2*32, 32), fixed
    # ((x + 1) div 2) div 2 with x even: x div 4
    assert got["output0_size0"] == {"name": "output0_size0", "expr": "(div x_size0 4)", "exact": True,
                                    "constant": None, "lo": 0, "hi": "oo"}


def test_table_prints_each_output_and_the_file_line(write_program, run_cli):
    code, out, _ = run_cli("outputs", write_program("pooled.smt2", POOLED))
    assert code == 0
    assert "pooled.smt2: 4 asserts, 4 output(s), 2 constant" in out
    assert "output0_size0    = x_size0 // 4    in [0, oo]" in out
    assert "output0_size1    = 8" in out


def test_an_output_over_unbacked_symbols_is_not_exact_and_shows_its_bounds(write_program, run_cli):
    code, out, _ = run_cli("outputs", "--json", write_program("u.smt2", UNBACKED))
    got = by_name(out)
    assert code == 0
    assert got["output0_size0"]["exact"] is False and (got["output0_size0"]["lo"], got["output0_size0"]["hi"]) == (0, "oo")
    code, out, _ = run_cli("outputs", write_program("u.smt2", UNBACKED))
    assert "in [0, oo]  (over unbacked symbols: u0)" in out


def test_contradictory_facts_are_reported_instead_of_vacuous_expressions(write_program, run_cli):
    code, out, _ = run_cli("outputs", write_program("c.smt2", CONTRADICTORY))
    assert code == 0 and "CONTRADICTORY facts: assert 2" in out


def test_a_bad_file_is_an_error_and_the_others_are_reported(write_program, run_cli):
    bad = write_program("bad.smt2", "(assert (> x 1)")
    code, out, err = run_cli("outputs", bad, write_program("pooled.smt2", POOLED))
    assert code == 1 and "bad.smt2" in err and "pooled.smt2: 4 asserts" in out


def test_an_unknown_preset_is_a_usage_error(write_program, run_cli):
    code, _, err = run_cli("outputs", "--preset", "ge3", write_program("pooled.smt2", POOLED))
    assert code == 2 and "unknown preset 'ge3'" in err


def test_conv_stack_outputs_fold_their_nested_divisions(write_program, run_cli):
    code, out, _ = run_cli("outputs", write_program("conv.smt2", conv_stack(4, 0)))
    assert code == 0 and "output0_size2           = ((H + 7) // 8) - 1" in out


def test_bounds_outputs_shows_the_same_simplified_form(write_program, capsys):
    code = main(["bounds", "--outputs", "--json", write_program("conv.smt2", conv_stack(4, 0))])
    out, _ = capsys.readouterr()
    symbols = {s["name"]: s for s in json.loads(out)["symbols"]}
    assert code == 0 and symbols["output0_size2"]["upper"] == ["((H + 7) // 8) - 1"]


def test_shape_reasoner_simplify_folds_and_fixes():
    s0, s1 = sympy.symbols("s0 s1", integer=True)
    r = ShapeReasoner()
    r.declare(s0, hint=64)
    r.declare(s1, hint=3)
    r.assume(sympy.Eq(s0 % 8, 0))
    r.assume(s1 >= 2)
    assert r.simplify(sympy.floor(sympy.floor(s0 / 2) / 4)) == sympy.floor(s0 / 8)
    assert r.simplify(sympy.Min(s0, s0 + s1)) == s0
    assert r.simplify((s0 + 3) // 8) == sympy.floor(s0 / 8)
    r.assume(sympy.Eq(s1, 3))
    assert r.simplify(s1 * s0 - 3 * s0 + s1) == 3


# ------------------------------------------------------------------ budgets


def test_a_file_over_a_budget_is_reported_and_the_others_still_shown(write_program, run_cli, tmp_path, monkeypatch):
    import os

    from absint.batch.executors import FAULT_ENV

    monkeypatch.setenv(FAULT_ENV, "sleep:a_slow.smt2,memory:hog.smt2")
    for name in ("a_slow.smt2", "hog.smt2", "pooled.smt2"):
        write_program(name, POOLED)
    os.mkfifo(tmp_path / "fifo.smt2")
    code, out, err = run_cli("outputs", "--json", "--timeout", "2", "--max-memory", "256", "--preset", "ge2",
                             str(tmp_path))
    assert code == 1
    errors = err.splitlines()
    assert f"{tmp_path / 'a_slow.smt2'}: timeout after 2 s" in errors
    assert f"{tmp_path / 'hog.smt2'}: memory limit exceeded (256 MB)" in errors
    assert any("fifo.smt2: cannot read: not a regular file" in e for e in errors)
    reports = {os.path.basename(r["file"]): r for r in map(json.loads, out.splitlines())}
    assert reports["pooled.smt2"]["error"] is None and reports["pooled.smt2"]["presets"] == ["ge2"]
    assert reports["pooled.smt2"]["outputs"]


def test_outputs_budget_options_are_documented_and_checked(write_program, run_cli, capsys):
    import pytest

    with pytest.raises(SystemExit):
        main(["outputs", "--help"])
    out = capsys.readouterr().out
    assert "--timeout S" in out and "--max-memory MB" in out and "--max-file-size MB" in out
    code, _, err = run_cli("outputs", "--timeout", "-1", write_program("pooled.smt2", POOLED))
    assert code == 2 and "must be >= 0" in err
