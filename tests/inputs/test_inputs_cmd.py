"""``absint inputs`` on the command line and ``ShapeReasoner.valid_inputs``: JSON schema,
``--within`` counterexamples (each re-checked here with the evaluator), ``--export``
(parses as Python, names every dynamic symbol), bad files, exit status."""

from __future__ import annotations

import glob
import importlib.util
import json
import os
import pathlib
import random
import re
import subprocess
import sys

import pytest

import sympy

from absint import ShapeReasoner
from absint.lang import terms as T
from absint.lang.evaluator import NotEvaluable, evaluate, truth_at
from absint.readers.smtlib import parse
from absint.inputs import within
from absint.inputs.export import python_name
from absint.inputs.within import first_failing
from benchmarks.generators import PRELUDE_TEXT, build
from programs import TRANSPOSED
from repo_paths import EXAMPLES

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


def test_json_schema(write_program, run_cli):
    path = write_program("p.smt2", PROGRAM)
    code, out, _ = run_cli("inputs", path, "--json")
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


def test_within_counterexamples_are_checked(write_program, run_cli):
    path = write_program("p.smt2", PROGRAM)
    declared = {"x_size0": (1, 100), "x_size2": (32, 512)}
    code, out, err = run_cli("inputs", path, "--json", "--within", "x_size0=1..100,x_size2=32..512")
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


def test_within_message_and_exit_status(write_program, run_cli):
    path = write_program("p.smt2", PROGRAM)
    code, out, _ = run_cli("inputs", path, "--within", "x_size0=1..64,x_size2=35..512")
    assert code == 1  # x_size2 = 37 is 1 mod 4
    line = PROGRAM.splitlines().index("(assert (not (= (mod x_size2 4) 1)))") + 1
    assert f"{path}:{line}:1: guard (x_size2 % 4) != 1 can fail: x_size2=37" in out
    code, out, err = run_cli("inputs", path, "--within", "x_size0=1..64,x_size2=35..35")
    assert code == 0 and "can fail" not in out and "undecided" not in err


def test_within_usage_errors(write_program, run_cli):
    path = write_program("p.smt2", PROGRAM)
    assert run_cli("inputs", path, "--within", "x_size0=1..")[0] == 2
    code, _, err = run_cli("inputs", path, "--within", "nope=1..3")
    assert code == 2 and "no symbol named nope" in err


def _exported(write_program, run_cli, name: str, text: str, as_script: bool = False):
    """The module ``--export`` writes for ``text``, imported (and first run as a script:
    ``python out.py``, a second interpreter importing torch, where ``as_script``)."""
    path = write_program(f"{name}.smt2", text)
    code, out, _ = run_cli("inputs", path, "--export")
    assert code == 0
    module = pathlib.Path(path).with_name(f"{name}_inputs.py")
    module.write_text(out)
    if as_script:
        ran = subprocess.run([sys.executable, str(module)], capture_output=True, text=True, timeout=300)
        assert ran.returncode == 0, ran.stderr
    spec = importlib.util.spec_from_file_location(f"{name}_inputs", module)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return out, loaded


def _passes(check_inputs, point: dict) -> bool:
    try:
        check_inputs(**{python_name(k): v for k, v in point.items()})
        return True
    except RuntimeError:
        return False


EXPORTED = [(os.path.basename(f)[:-5], open(f).read()) for f in sorted(glob.glob(os.path.join(EXAMPLES, "*.smt2")))]
EXPORTED += [(kind, build(kind, n, 0).text) for kind, n in (("conv", 3), ("reshape", 2), ("attention", 1), ("jagged", 4))]


def _around(example: dict, program, rng: random.Random) -> dict:
    """The example point with symbols moved a little, then each symbol an assert defines
    (``x_stride0 = C*H*W``) set to its definition's value, so that most points pass the
    equalities and the other constraints decide."""
    point = {k: max(-2, v + rng.choice((0, 0, -1, 1, rng.randint(-9, 9)))) for k, v in example.items()}
    for f in program.facts:
        t = f.term
        if t.kind == "eq" and t.args[0].kind == "lin":  # a normal x - rhs == 0
            coefs, c = T.linear_parts(t.args[0])
            for x, a in coefs.items():
                if x.kind == "var" and a in (1, -1) and x.data in point:
                    try:
                        point[x.data] = -a * evaluate(T.add(t.args[0], T.scale(x, -a)), point)
                    except NotEvaluable:
                        pass
                    break
    return point


@pytest.mark.parametrize("name,text", EXPORTED, ids=[n for n, _ in EXPORTED])
def test_exported_module_runs_and_its_check_is_the_asserts(write_program, run_cli, name, text):
    """The module runs (as a script for pool_skip, whose module-level checks raised before);
    ``check_inputs`` passes exactly where every assert holds (the evaluator), at the example
    point and at 200 points around it."""
    pytest.importorskip("torch")
    _, module = _exported(write_program, run_cli, name, text, as_script=name == "pool_skip")
    program = parse(text)
    example = {s.name: s.hint if s.hint is not None else 1 for s in program.symbols}
    rng = random.Random(0)
    points = [example] + [_around(example, program, rng) for _ in range(200)]
    agreed = {True: 0, False: 0}
    for p in points:
        truths = [truth_at(f.term, p) for f in program.facts]
        if None in truths:
            continue
        valid = all(truths)
        assert _passes(module.check_inputs, p) == valid, (name, p)
        agreed[valid] += 1
    assert agreed[False] > 0
    if all(s.hint is not None for s in program.symbols):
        assert _passes(module.check_inputs, example)


def test_export_of_derived_and_residues(write_program, run_cli):
    pytest.importorskip("torch")
    out, module = _exported(write_program, run_cli, "p", PROGRAM)
    assert 'x_size0 = Dim("x_size0", min=1, max=64)' in out
    assert "y_size0 = 2*x_size0 + 1  # derived" in out
    assert "x_size1 = 3" in out
    assert "(x_size2 % 4) == 0 or (x_size2 % 4) == 3" in out
    assert module.dynamic_shapes == {"x": {0: module.x_size0, 1: 3, 2: module.x_size2}, "y": {0: module.y_size0}}
    assert "x_stride0" not in module.dims  # a stride is no dimension: a parameter of check_inputs


TENSOR_NAMED = [e for e in EXPORTED if e[0] == "pooled_input"] + [("derived", PROGRAM)]


@pytest.mark.parametrize("name,text", TENSOR_NAMED, ids=[n for n, _ in TENSOR_NAMED])
def test_torch_export_takes_the_dynamic_shapes(write_program, run_cli, name, text):
    """A real ``nn.Module`` over the program's tensors, exported with the module's
    ``dynamic_shapes`` at the example sizes: torch accepts the Dims, ranges and derived dims."""
    torch = pytest.importorskip("torch")
    _, module = _exported(write_program, run_cli, name, text)
    program = parse(text)
    hints = {s.name: s.hint for s in program.symbols}
    tensors = {t: torch.zeros(*[hints[f"{t}_size{d}"] for d in range(len(shape))])
               for t, shape in module.dynamic_shapes.items()}
    assert tensors, name

    class Sum(torch.nn.Module):
        def forward(self, *xs):
            return sum(x.sum() for x in xs)

    shapes = tuple(module.dynamic_shapes[t] for t in tensors)
    ep = torch.export.export(Sum(), tuple(tensors.values()), dynamic_shapes=(shapes,))  # the one *xs
    assert ep.range_constraints


def test_a_bad_file_is_positioned_and_the_others_reported(write_program, run_cli):
    bad = write_program("a_bad.smt2", BROKEN)
    good = write_program("b_good.smt2", PROGRAM)
    code, out, err = run_cli("inputs", bad, good, "--json")
    assert code == 1
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["file"] for r in records] == [bad, good]
    assert re.match(re.escape(bad) + r":\d+:\d+: ", records[0]["error"])
    assert records[1]["error"] is None and records[1]["specialized"] == {"x_size1": 3}
    assert err.startswith(records[0]["error"])


def test_contradiction_on_the_command_line(write_program, run_cli):
    text = PRELUDE_TEXT + "(declare-const u Int)\n(assert (>= u 5))\n(assert (<= u 4))\n"
    code, out, _ = run_cli("inputs", write_program("c.smt2", text))
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


POOL_SKIP = str(EXAMPLES / "pool_skip.smt2")


def test_preset_is_assumed_ahead_of_the_asserts(write_program, run_cli):
    path = write_program("p.smt2", PROGRAM)
    _, out, _ = run_cli("inputs", path, "--json")
    plain = json.loads(out)
    assert "presets" not in plain
    code, out, _ = run_cli("inputs", path, "--json", "--preset", "ge2")
    rec = json.loads(out)
    assert code == 0 and rec["asserts"] == plain["asserts"] == 8
    ranges = {r["symbol"]: r for r in rec["ranges"]}
    assert ranges["x_size0"]["lo"] == 2 and ranges["x_size0"]["hi"] == 64  # was 1..64
    assert rec["presets"]["names"] == ["ge2"]
    assert "(<= 2 x_size0)" in rec["presets"]["facts"]


def test_preset_keeps_the_within_indices_and_the_counterexamples_pass_it(write_program, run_cli):
    path = write_program("p.smt2", PROGRAM)
    code, out, _ = run_cli("inputs", path, "--json", "--preset", "ge2", "--within", "x_size0=0..100,x_size2=32..512")
    assert code == 1
    rec = json.loads(out)
    program = parse(PROGRAM, path)
    assert rec["violations"]
    for v in rec["violations"]:
        point = v["counterexample"]
        assert not truth_at(program.facts[v["index"]].term, point)  # the program's own assert
        assert all(truth_at(f.term, point) for f in program.facts[:v["index"]])
        assert point["x_size0"] >= 2 and point["x_size2"] >= 2




#: a conv stem's input: x (N x C x H x W), contiguous; no assert names a stride
CONV_STEM = PRELUDE_TEXT + """
(declare-const x_size0 Int)
(set-info :example-x_size0 8)
(declare-const x_size1 Int)
(set-info :example-x_size1 3)
(declare-const x_size2 Int)
(set-info :example-x_size2 224)
(declare-const x_size3 Int)
(set-info :example-x_size3 224)
(declare-const x_stride0 Int)
(set-info :example-x_stride0 150528)
(declare-const x_stride1 Int)
(set-info :example-x_stride1 50176)
(declare-const x_stride2 Int)
(set-info :example-x_stride2 224)
(declare-const x_stride3 Int)
(set-info :example-x_stride3 1)
(assert (= x_size1 3))
(assert (>= (+ (div (- x_size2 1) 2) 1) 4))
(assert (>= (+ (div (- x_size3 1) 2) 1) 4))
"""


@pytest.mark.parametrize("preset", ["contiguous", "dense", "ge2,contiguous"])
def test_within_under_a_layout_preset_moves_the_strides_with_the_sizes(write_program, run_cli, preset):
    """Kept at their example values, the strides would pin every size through the preset's
    facts (``x_stride0 == C*H*W``): ``x_size1 == 3`` could not fail and the declared ranges of
    H and W would be cut to 224. Following the sizes, each guard fails, at a checked point that
    satisfies the preset's facts."""
    from absint.presets.facts import parse as parse_presets, preset_facts

    path = write_program("stem.smt2", CONV_STEM)
    code, out, _ = run_cli("inputs", path, "--json", "--preset", preset,
                           "--within", "x_size1=1..8,x_size2=1..512,x_size3=1..512")
    record = json.loads(out)
    program = parse(CONV_STEM, path)
    facts = [f.term for f in program.facts]
    assumed = [f.term for f in preset_facts(program, parse_presets(preset))]
    assert code == 1 and sorted(v["index"] for v in record["violations"]) == [0, 1, 2]
    for v in record["violations"]:
        point = v["counterexample"]
        assert first_failing(facts, point) == v["index"]
        assert all(truth_at(t, point) is True for t in assumed)
        assert 1 <= point["x_size1"] <= 8 and point["x_size0"] == 8
    stem = {v["index"]: v["counterexample"] for v in record["violations"]}[0]
    assert stem["x_size1"] != 3 and stem["x_stride0"] == stem["x_size1"] * stem["x_size2"] * stem["x_size3"]


def test_within_the_channel_count_alone_finds_the_failing_stem_guard(write_program, run_cli):
    path = write_program("stem.smt2", CONV_STEM)
    code, text, _ = run_cli("inputs", path, "--preset", "contiguous", "--within", "x_size1=1..8")
    assert code == 1 and re.search(r"guard x_size1 == 3 can fail: x_size1=[124-8]\b", text), text


def test_within_a_size_duck_unifies_follows_the_declared_one(write_program, run_cli):
    """``duck`` makes H (224) and W (224) one size: W declared, H follows it (kept at 224, H
    would pin W to 224 through ``x_size3 == x_size2``)."""
    path = write_program("stem.smt2", CONV_STEM)
    code, out, _ = run_cli("inputs", path, "--json", "--preset", "duck", "--within", "x_size3=1..512")
    failing = {v["index"]: v["counterexample"] for v in json.loads(out)["violations"]}
    assert code == 1 and list(failing) == [1]
    point = failing[1]
    assert point["x_size2"] == point["x_size3"] < 7 and first_failing([f.term for f in parse(CONV_STEM).facts], point) == 1


@pytest.mark.parametrize("test", [test_within_the_channel_count_alone_finds_the_failing_stem_guard,
                                  test_within_a_size_duck_unifies_follows_the_declared_one])
def test_planted_error_symbols_kept_at_their_example_values_are_caught(write_program, run_cli, monkeypatch, test):
    from absint.presets import facts as presets

    monkeypatch.setattr(presets, "followers", lambda program, names, declared=(): [])
    with pytest.raises(AssertionError):
        test(write_program, run_cli)


def test_a_refused_or_unknown_preset_exits_2(write_program, run_cli):
    """A transposed input (strides 1, 4 for sizes 4, 4) is not contiguous: refused."""
    path = write_program("transposed.smt2", TRANSPOSED)
    code, out, err = run_cli("inputs", path, "--preset", "contiguous")
    assert code == 2 and "preset contiguous refused" in err and "is false at the example point" in err
    assert "transposed.smt2" in err
    code, _, err = run_cli("inputs", POOL_SKIP, "--preset", "ge3")
    assert code == 2 and "unknown preset 'ge3'" in err


def test_planted_error_a_dropped_check_is_caught(write_program, run_cli, monkeypatch):
    """``check_inputs`` without one constraint of the description (pool_skip's ``H mod 8 in
    {0, 7}``) passes points an assert fails: the evaluator comparison above catches it."""
    from absint.inputs.description import ValidInputs

    every = ValidInputs.constraints
    monkeypatch.setattr(ValidInputs, "constraints", lambda self: [c for c in every(self) if "mod H 8" not in str(c)])
    _, text = next(e for e in EXPORTED if e[0] == "pool_skip")
    with pytest.raises(AssertionError):  # (named apart: not run again as a script)
        test_exported_module_runs_and_its_check_is_the_asserts(write_program, run_cli, "planted", text)


JAGGED = PRELUDE_TEXT + """
(declare-const values_size0 Int)
(set-info :example-values_size0 12)
(declare-const u0 Int)
(declare-const u1 Int)
(assert (>= u0 0))
(assert (>= u1 0))
(assert (= values_size0 (+ u0 u1)))
"""


def test_within_moves_unbacked_symbols_that_no_range_limits(write_program, run_cli):
    """``u0 >= 0`` on an unbacked length fails at a negative ``u0``: the pool never moved it
    (it moves declared symbols); the search for the assert alone does."""
    path = write_program("jagged.smt2", JAGGED)
    code, out, err = run_cli("inputs", path, "--within", "values_size0=0..100", "--json")
    record = json.loads(out)
    failing = {v["index"]: v for v in record["violations"]}
    assert code == 1 and set(failing) == {0, 1, 2} and not record["undecided"]
    facts = [f.term for f in parse(JAGGED).facts]
    for i, v in failing.items():
        point = v["counterexample"]
        assert 0 <= point["values_size0"] <= 100 and first_failing(facts, point) == i
    assert failing[0]["text"] == "0 <= u0"
    _, text, _ = run_cli("inputs", path, "--within", "values_size0=0..100")
    line = JAGGED.splitlines().index("(assert (>= u0 0))") + 1
    assert f"{path}:{line}:1: guard 0 <= u0 can fail: u0=" in text


def test_within_says_why_an_assert_is_undecided(write_program, run_cli, monkeypatch):
    monkeypatch.setattr(within, "SEARCH_POINTS", 0)
    path = write_program("jagged.smt2", JAGGED)
    code, out, err = run_cli("inputs", path, "--within", "values_size0=0..100", "--json")
    undecided = json.loads(out)["undecided"]
    assert [u["reason"] for u in undecided] == ["budget spent: 0 points checked"] * 2
    assert "guard 0 <= u0 may fail (undecided: budget spent: 0 points checked)" in err
