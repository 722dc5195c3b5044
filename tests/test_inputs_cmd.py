"""``absint inputs`` on the command line and ``ShapeReasoner.valid_inputs``: JSON schema,
``--within`` counterexamples (each re-checked here with the evaluator), ``--export``
(parses as Python, names every dynamic symbol), bad files, exit status."""

from __future__ import annotations

import ast
import json
import re

import sympy

from absint import ShapeReasoner
from absint.cli import main
from absint.lang.evaluator import truth_at
from absint.readers.smtlib import parse
from benchmarks.generators import PRELUDE_TEXT, build

#: x_size2 must be at least 35 and odd-or-zero mod 4, and x_stride0 is defined by the sizes
PROGRAM = PRELUDE_TEXT + """
(declare-const x_size0 Int)
(set-info :example-x_size0 8)
(declare-const x_size1 Int)
(set-info :example-x_size1 3)
(declare-const x_size2 Int)
(set-info :example-x_size2 64)
(declare-const x_stride0 Int)
(set-info :example-x_stride0 192)
(declare-const y_size0 Int)
(set-info :example-y_size0 17)
(assert (= x_stride0 (* x_size1 x_size2)))
(assert (>= x_size0 1))
(assert (= x_size1 3))
(assert (>= x_size2 35))
(assert (not (= (mod x_size2 4) 1)))
(assert (not (= (mod x_size2 4) 2)))
(assert (= y_size0 (+ (* 2 x_size0) 1)))
(assert (<= x_size0 64))
"""

BROKEN = PRELUDE_TEXT + "(declare-const s Int)\n(assert (>= s 1)\n"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(["inputs", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_json_schema(tmp_path, capsys):
    path = write(tmp_path, "p.smt2", PROGRAM)
    code, out, _ = run(capsys, path, "--json")
    assert code == 0
    rec = json.loads(out)
    for key in ("file", "asserts", "contradiction", "specialized", "equalities", "ranges", "relations",
                "smtlib", "exact", "error"):
        assert key in rec
    assert rec["specialized"] == {"x_size1": 3}
    assert ["y_size0", "(+ (* 2 x_size0) 1)"] in rec["equalities"]
    assert ["x_stride0", "(* 3 x_size2)"] in rec["equalities"]
    ranges = {r["symbol"]: r for r in rec["ranges"]}
    assert ranges["x_size2"] == {"symbol": "x_size2", "lo": 35, "hi": None, "modulus": 4, "residues": [0, 3]}
    assert ranges["x_size0"]["lo"] == 1 and ranges["x_size0"]["hi"] == 64
    assert rec["exact"] is True and rec["contradiction"] is None
    assert len(rec["smtlib"]) == rec["size"] + 2  # a range with both ends, one with residues: two each


def test_within_counterexamples_are_checked(tmp_path, capsys):
    path = write(tmp_path, "p.smt2", PROGRAM)
    declared = {"x_size0": (1, 100), "x_size2": (32, 512)}
    code, out, err = run(capsys, path, "--json", "--within", "x_size0=1..100,x_size2=32..512")
    assert code == 1
    rec = json.loads(out)
    program = parse(PROGRAM, path)
    facts = [f.term for f in program.facts]
    failing = {v["index"] for v in rec["violations"]}
    assert {3, 4, 5, 7} <= failing  # x_size2 >= 35, both residues, x_size0 <= 64
    assert 0 not in failing and 6 not in failing  # definitions of x_stride0 and y_size0 never fail
    for v in rec["violations"]:
        point = v["counterexample"]
        assert all(lo <= point[n] <= hi for n, (lo, hi) in declared.items())
        assert all(truth_at(f, point) is True for f in facts[:v["index"]])
        assert truth_at(facts[v["index"]], point) is False
        assert v["position"].startswith(path + ":")


def test_within_message_and_exit_status(tmp_path, capsys):
    path = write(tmp_path, "p.smt2", PROGRAM)
    code, out, _ = run(capsys, path, "--within", "x_size0=1..64,x_size2=35..512")
    assert code == 1  # x_size2 = 37 is 1 mod 4
    line = PROGRAM.splitlines().index("(assert (not (= (mod x_size2 4) 1)))") + 1
    assert f"{path}:{line}:1: guard can fail: x_size2=37" in out
    code, out, err = run(capsys, path, "--within", "x_size0=1..64,x_size2=35..35")
    assert code == 0 and "can fail" not in out and "undecided" not in err


def test_within_usage_errors(tmp_path, capsys):
    path = write(tmp_path, "p.smt2", PROGRAM)
    assert run(capsys, path, "--within", "x_size0=1..")[0] == 2
    code, _, err = run(capsys, path, "--within", "nope=1..3")
    assert code == 2 and "no symbol named nope" in err


def test_export_parses_and_names_every_dynamic_symbol(tmp_path, capsys):
    for kind, n in (("conv", 3), ("reshape", 2), ("attention", 1), ("jagged", 4)):
        path = write(tmp_path, f"{kind}.smt2", build(kind, n, 0).text)
        code, out, _ = run(capsys, path, "--export")
        assert code == 0
        tree = ast.parse(out)
        assigned = {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign) for t in node.targets}
        for s in parse(build(kind, n, 0).text).symbols:
            assert s.name in assigned, (kind, s.name)


def test_export_of_derived_and_residues(tmp_path, capsys):
    path = write(tmp_path, "p.smt2", PROGRAM)
    _, out, _ = run(capsys, path, "--export")
    ast.parse(out)
    assert 'x_size0 = Dim("x_size0", min=1, max=64)' in out
    assert "y_size0 = 2*x_size0 + 1  # derived" in out
    assert "x_size1 = 3" in out
    assert "torch._check(x_size2 % 4 == 0 or x_size2 % 4 == 3)" in out


def test_a_bad_file_is_positioned_and_the_others_reported(tmp_path, capsys):
    bad = write(tmp_path, "a_bad.smt2", BROKEN)
    good = write(tmp_path, "b_good.smt2", PROGRAM)
    code, out, err = run(capsys, bad, good, "--json")
    assert code == 1
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["file"] for r in records] == [bad, good]
    assert re.match(re.escape(bad) + r":\d+:\d+: ", records[0]["error"])
    assert records[1]["error"] is None and records[1]["specialized"] == {"x_size1": 3}
    assert err.startswith(records[0]["error"])


def test_contradiction_on_the_command_line(tmp_path, capsys):
    text = PRELUDE_TEXT + "(declare-const u Int)\n(assert (>= u 5))\n(assert (<= u 4))\n"
    code, out, _ = run(capsys, write(tmp_path, "c.smt2", text))
    assert code == 0 and "no input passes (assert 2" in out


def test_api_valid_inputs():
    s0, s1, u0 = sympy.symbols("s0 s1 u0", integer=True)
    r = ShapeReasoner()
    r.declare(s0, hint=8)
    r.declare(s1, hint=17)
    r.declare(u0, size_like=True)
    r.assume(s0 >= 2)
    r.assume(sympy.Eq(s1, 2 * s0 + 1))
    r.assume(u0 <= 4 * s0)
    r.assume(s0 <= 64)
    d = r.valid_inputs()
    assert d.exact and d.contradiction is None
    assert [(n, repr(e)) for n, e in d.equalities] == [("s1", "(+ (* 2 s0) 1)")]
    assert {x.symbol: (x.lo, x.hi) for x in d.ranges} == {"s0": (2, 64), "u0": (0, None)}
    assert len(d.relations) == 1
    assert d.to_json()["smtlib"]


POOL_SKIP = str(__import__("pathlib").Path(__file__).parent.parent / "examples" / "pool_skip.smt2")


def test_preset_is_assumed_ahead_of_the_asserts(tmp_path, capsys):
    path = write(tmp_path, "p.smt2", PROGRAM)
    _, out, _ = run(capsys, path, "--json")
    plain = json.loads(out)
    assert "presets" not in plain
    code, out, _ = run(capsys, path, "--json", "--preset", "ge2")
    rec = json.loads(out)
    assert code == 0 and rec["asserts"] == plain["asserts"] == 8
    ranges = {r["symbol"]: r for r in rec["ranges"]}
    assert ranges["x_size0"]["lo"] == 2 and ranges["x_size0"]["hi"] == 64  # was 1..64
    assert rec["presets"]["names"] == ["ge2"]
    assert "(<= 2 x_size0)" in rec["presets"]["facts"]


def test_preset_keeps_the_within_indices_and_the_counterexamples_pass_it(tmp_path, capsys):
    path = write(tmp_path, "p.smt2", PROGRAM)
    code, out, _ = run(capsys, path, "--json", "--preset", "ge2", "--within", "x_size0=0..100,x_size2=32..512")
    assert code == 1
    rec = json.loads(out)
    program = parse(PROGRAM, path)
    assert rec["violations"]
    for v in rec["violations"]:
        point = v["counterexample"]
        assert not truth_at(program.facts[v["index"]].term, point)  # the program's own assert
        assert all(truth_at(f.term, point) for f in program.facts[:v["index"]])
        assert point["x_size0"] >= 2 and point["x_size2"] >= 2


def test_a_refused_or_unknown_preset_exits_2(tmp_path, capsys):
    code, out, err = run(capsys, POOL_SKIP, "--preset", "contiguous")
    assert code == 2 and "preset contiguous refused" in err and "is false at the example point" in err
    assert "pool_skip.smt2" in err
    code, _, err = run(capsys, POOL_SKIP, "--preset", "ge3")
    assert code == 2 and "unknown preset 'ge3'" in err
