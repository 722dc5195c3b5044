"""``absint sample`` and ``ShapeReasoner.sample``: never a wrong answer.

Property tests on generated specs: every sample satisfies every fact (the evaluator and Z3
confirm), ``impossible`` only where Z3 finds the facts unsatisfiable, an exhaustive count
equal to brute force; the draws' spread against uniform draws on small operator specs; the
command's output, errors and refusals; the API's symbols, seeds and untouched reasoner."""

from __future__ import annotations

import glob
import json
import os

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from absint import ShapeReasoner
from absint.cli import main
from absint.reports.sample import sample_file
from absint.lang import terms as T
from absint.lang.evaluator import truth_at
from absint.lang.printer import to_smtlib
from absint.readers.smtlib import parse
from absint.search.sampling import IMPOSSIBLE, SAT, UNKNOWN, Unsampleable, sample, solutions
from benchmarks.generators import PRELUDE_TEXT
from repo_paths import EXAMPLES
from term_strategies import int_terms

z3 = pytest.importorskip("z3")

SPECS = str(EXAMPLES / "specs")
NAMES = ("x", "y", "z")
VARS = [T.var(n, T.INT) for n in NAMES]
k = T.const
SETTINGS = settings(max_examples=120, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

INT_TERMS = int_terms(VARS, max_leaves=4)
COMPARE = st.sampled_from([T.le, T.lt, T.ge, T.gt, T.eq, T.ne])
ATOMS = st.tuples(COMPARE, INT_TERMS, INT_TERMS).map(lambda p: p[0](p[1], p[2]))
EQUALITIES = st.tuples(st.sampled_from(VARS), INT_TERMS).map(lambda p: T.eq(p[0], p[1]))
CONSTRAINTS = st.one_of(ATOMS, EQUALITIES, st.tuples(ATOMS, ATOMS).map(lambda p: T.or_(*p)))
#: every variable in a small box (lo, lo + width), so that brute force can count the solutions
BOXES = st.tuples(*[st.tuples(st.integers(-3, 3), st.integers(0, 5)) for _ in VARS])
SPECS_GENERATED = st.tuples(BOXES, st.lists(CONSTRAINTS, min_size=1, max_size=3)).map(
    lambda p: [T.and_(T.ge(v, k(lo)), T.le(v, k(lo + w))) for v, (lo, w) in zip(VARS, p[0])] + p[1])


def z3_solver(facts, point=None):
    """Z3 on the facts (and ``point``'s values, if given): 'sat' or 'unsat'."""
    text = PRELUDE_TEXT + "".join(f"(declare-const {n} Int)\n" for n in NAMES)
    text += "".join(f"(assert {to_smtlib(f)})\n" for f in facts)
    text += "".join(f"(assert (= {n} {v if v >= 0 else f'(- {-v})'}))\n" for n, v in (point or {}).items())
    s = z3.Solver()
    s.set("timeout", 10_000)
    s.add(z3.parse_smt2_string(text))
    r = s.check()
    assert r != z3.unknown
    return str(r)


def brute_force(facts) -> tuple[int, bool]:
    """Solutions the evaluator confirms in the variables' boxes, and whether some point of
    the boxes was not evaluable (``x div 0``: SMT-LIB may count it a solution)."""
    from itertools import product

    count, unevaluable = 0, False
    ranges = [_box_values(box, name) for box, name in zip(facts, NAMES)]
    for values in product(*ranges):
        point = dict(zip(NAMES, values))
        truths = [truth_at(f, point) for f in facts]
        count += all(t is True for t in truths)
        unevaluable = unevaluable or (None in truths and False not in truths)
    return count, unevaluable


def _box_values(box, name: str) -> list[int]:
    """The values of ``name`` its box fact (``lo <= name <= lo + w``, the spec's first facts) allows."""
    return [v for v in range(-3, 9) if truth_at(box, {name: v})]


# ------------------------------------------------------------------ never a wrong answer


@SETTINGS
@given(SPECS_GENERATED, st.integers(0, 2**16))
def test_every_sample_is_a_solution_and_impossible_is_proved(reasoner_with, facts, seed):
    r = reasoner_with(*facts)
    found = sample(r, 5, seed=seed, variables=VARS)
    if found.status == IMPOSSIBLE:
        assert z3_solver(facts) == "unsat"
        return
    assert found.status in (SAT, UNKNOWN)
    assert found.status == UNKNOWN or len(found.points) == 5 or found.reason
    for p in found.points:
        assert set(p) == set(NAMES)
        assert all(truth_at(f, p) is True for f in facts), (facts, p)
        assert z3_solver(facts, p) == "sat", (facts, p)


@SETTINGS
@given(SPECS_GENERATED, st.integers(0, 2**16))
def test_propagated_draws_are_solutions_and_leave_the_reasoner_as_it_was(reasoner_with, facts, seed):
    """The checkpointed path alone (no box draw): assumptions, refuted values, rollbacks."""
    from absint.search import sampling

    r = reasoner_with(*facts)
    guards = [T.le(VARS[0], VARS[1]), T.ge(T.add(VARS[1], VARS[2]), k(1))]
    before = [r.decide(g) for g in guards]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sampling.Sampler, "_box_budget", lambda self, i: 0)
        found = sample(r, 4, seed=seed, variables=VARS)
    assert found.status != IMPOSSIBLE or z3_solver(facts) == "unsat"
    for p in found.points:
        assert all(truth_at(f, p) is True for f in facts), (facts, p)
        assert z3_solver(facts, p) == "sat", (facts, p)
    assert [r.decide(g) for g in guards] == before and r.facts == list(facts)


@SETTINGS
@given(SPECS_GENERATED)
def test_the_exhaustive_count_is_the_brute_force_count(reasoner_with, facts):
    r = reasoner_with(*facts)
    found = solutions(r, variables=VARS)
    count, unevaluable = brute_force(facts)
    if found.status == IMPOSSIBLE:
        assert count == 0 and z3_solver(facts) == "unsat", facts
        return
    assert found.complete
    assert found.count == count, facts
    assert len(found.points) == count and len({tuple(sorted(p.items())) for p in found.points}) == count
    for p in found.points:
        assert all(truth_at(f, p) is True for f in facts)
    if count == 0:
        assert found.status == UNKNOWN and unevaluable


@SETTINGS
@given(SPECS_GENERATED, st.integers(0, 2**16))
def test_sampling_leaves_the_reasoner_as_it_was(reasoner_with, facts, seed):
    r = reasoner_with(*facts)
    guards = [T.le(VARS[0], VARS[1]), T.eq(T.add(VARS[0], VARS[2]), k(2)), T.ge(VARS[1], k(0))]
    before = [r.decide(g) for g in guards]
    sample(r, 3, seed=seed, variables=VARS)
    assert [r.decide(g) for g in guards] == before
    assert r.facts == list(facts)


# ------------------------------------------------------------------ uniformity


def expected_distinct(solutions: int, draws: int) -> float:
    """E = S * (1 - (1 - 1/S)**N): distinct points among N uniform draws from S."""
    return solutions * (1 - (1 - 1 / solutions) ** draws)


SMALL_SPECS = {
    "conv": """(declare-const H Int) (declare-const K Int) (declare-const s Int) (declare-const p Int)
        (declare-const d Int) (declare-const O Int)
        (assert (and (>= H 1) (<= H 12) (>= K 1) (<= K 4) (>= s 1) (<= s 3) (>= p 0) (<= p 2)
                     (>= d 1) (<= d 2)))
        (assert (= O (+ (div (- (+ H (* 2 p)) (* d (- K 1)) 1) s) 1))) (assert (>= O 2))""",
    "broadcast": """(declare-const a0 Int) (declare-const b0 Int) (declare-const a1 Int) (declare-const b1 Int)
        (assert (and (>= a0 1) (<= a0 8) (>= b0 1) (<= b0 8) (>= a1 1) (<= a1 8) (>= b1 1) (<= b1 8)))
        (assert (or (= a0 b0) (= a0 1) (= b0 1))) (assert (or (= a1 b1) (= a1 1) (= b1 1)))""",
    "reshape": """(declare-const i0 Int) (declare-const i1 Int) (declare-const o0 Int) (declare-const o1 Int)
        (declare-const o2 Int)
        (assert (and (>= i0 1) (<= i0 8) (>= i1 1) (<= i1 8) (>= o0 1) (<= o0 4) (>= o1 1) (<= o1 4)
                     (>= o2 1) (<= o2 4)))
        (assert (= (* i0 i1) (* o0 o1 o2)))""",
    "matmul": """(declare-const M Int) (declare-const K Int) (declare-const K2 Int) (declare-const N Int)
        (declare-const B0 Int) (declare-const B1 Int)
        (assert (and (>= M 1) (<= M 6) (>= K 1) (<= K 6) (>= N 1) (<= N 6) (>= B0 1) (<= B0 4)
                     (>= B1 1) (<= B1 4)))
        (assert (= K K2)) (assert (or (= B0 B1) (= B0 1) (= B1 1)))""",
    "pool": """(declare-const H Int) (declare-const W Int) (declare-const K Int) (declare-const s Int)
        (declare-const p Int) (declare-const OH Int) (declare-const OW Int)
        (assert (and (>= H 1) (<= H 10) (>= W 1) (<= W 10) (>= K 1) (<= K 4) (>= s 1) (<= s 3)
                     (>= p 0) (<= (* 2 p) K)))
        (assert (= OH (+ (div (- (+ H (* 2 p)) K) s) 1))) (assert (= OW (+ (div (- (+ W (* 2 p)) K) s) 1)))
        (assert (>= OH 1)) (assert (>= OW 1))""",
}


@pytest.mark.parametrize("name", sorted(SMALL_SPECS))
def test_distinct_samples_are_within_five_percent_of_uniform_draws(reasoner_with, name):
    program = parse(SMALL_SPECS[name], name)
    facts = [f.term for f in program.facts]
    every = solutions(reasoner_with(*facts))
    assert every.complete and every.count > 100
    n = every.count  # where the count of distinct points is most sensitive to bias
    drawn = sample(reasoner_with(*facts), n, seed=7)
    assert drawn.status == SAT and len(drawn.points) == n
    distinct = len({tuple(sorted(p.items())) for p in drawn.points})
    expected = expected_distinct(every.count, n)
    assert abs(distinct - expected) <= 0.05 * expected, (distinct, expected)
    listed = {tuple(sorted(p.items())) for p in every.points}
    assert {tuple(sorted(p.items())) for p in drawn.points} <= listed


@pytest.mark.parametrize("name", ["broadcast", "conv", "reshape"])
def test_propagated_draws_alone_are_near_uniform(reasoner_with, name, monkeypatch):
    """With no box draw at all (as on a sparse box), the propagated draws' distinct points,
    averaged over two seeds, are still within 5% of uniform draws' (measured: -0.8 to -3.8%)."""
    from absint.search import sampling

    monkeypatch.setattr(sampling.Sampler, "_box_budget", lambda self, i: 0)
    facts = [f.term for f in parse(SMALL_SPECS[name], name).facts]
    every = solutions(reasoner_with(*facts))
    distinct = []
    for seed in (7, 8):
        drawn = sample(reasoner_with(*facts), every.count, seed=seed)
        assert drawn.status == SAT and len(drawn.points) == every.count
        distinct.append(len({tuple(sorted(p.items())) for p in drawn.points}))
    expected = expected_distinct(every.count, every.count)
    assert abs(sum(distinct) / 2 - expected) <= 0.05 * expected, (distinct, expected)


# ------------------------------------------------------------------ the command


def test_every_shipped_spec_samples_points_z3_confirms(capsys):
    files = sorted(glob.glob(os.path.join(SPECS, "*.smt2")))
    assert len(files) >= 7
    assert main(["sample", *files, "-n", "5", "--seed", "3", "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["file"] for r in records] == files
    for rec in records:
        text = open(rec["file"]).read()
        if os.path.basename(rec["file"]) == "contradictory.smt2":
            assert rec["status"] == "impossible" and rec["samples"] == []
            s = z3.Solver()
            s.add(z3.parse_smt2_string(text))
            assert s.check() == z3.unsat
            continue
        assert rec["status"] == "sat" and len(rec["samples"]) == 5
        for point in rec["samples"]:
            s = z3.Solver()
            s.add(z3.parse_smt2_string(text))
            s.add([z3.Int(name) == v for name, v in point.items()])
            assert s.check() == z3.sat, (rec["file"], point)


def test_seeds_repeat_and_differ():
    spec = os.path.join(SPECS, "conv2d.smt2")
    a, b, c = (sample_file(spec, 4, seed) for seed in (1, 1, 2))
    assert a.result.points == b.result.points != c.result.points


def test_exhaustive_lists_and_counts(tmp_path, capsys):
    f = tmp_path / "small.smt2"
    f.write_text("(declare-const a Int) (declare-const b Int) (declare-const c Int)\n"
                 "(assert (and (>= a 1) (<= a 6) (>= b 1) (<= b 6)))\n"
                 "(assert (= c (div (+ a b) 2)))\n(assert (> (* a b) 6))\n")
    assert main(["sample", str(f), "--exhaustive", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    wanted = [{"a": a, "b": b, "c": (a + b) // 2} for a in range(1, 7) for b in range(1, 7) if a * b > 6]
    assert rec["status"] == "sat" and rec["count"] == len(wanted) and rec["complete"] is True
    assert sorted(rec["samples"], key=lambda p: (p["a"], p["b"])) == wanted
    assert main(["sample", str(f), "--exhaustive", "--count-only"]) == 0
    assert capsys.readouterr().out.strip() == f"{f}: sat, {len(wanted)} solution(s)"
    assert main(["sample", str(f), "--exhaustive", "--limit", "5", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["complete"] is False and rec["samples"] == [] and rec["count"] >= 5


def test_exhaustive_proves_an_empty_finite_spec_impossible(tmp_path, capsys):
    f = tmp_path / "empty.smt2"  # no solution, but nothing the reasoner alone refutes
    f.write_text("(declare-const a Int) (declare-const b Int)\n(assert (and (>= a 1) (<= a 9) (>= b 1) (<= b 9)))\n"
                 "(assert (= (* a b) 11))\n")
    assert main(["sample", str(f), "--exhaustive", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["status"] == "impossible" and rec["count"] == 0


def test_bad_files_are_reported_and_the_others_sampled(tmp_path, capsys):
    bad = tmp_path / "a_bad.smt2"
    bad.write_text("(declare-const a Int)\n(assert (<= a))\n")
    real = tmp_path / "b_real.smt2"
    real.write_text("(declare-const r Real)\n(assert (> r 0.5))\n")
    good = tmp_path / "c_good.smt2"
    good.write_text("(declare-const a Int)\n(assert (and (> a 0) (< a 3)))\n")
    assert main(["sample", str(tmp_path), "-n", "2", "--seed", "0"]) == 1
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert lines[0].startswith(f"{bad}:2:") and "only Int symbols" in lines[1]
    assert out.splitlines()[0] == f"{good}: sat, 2 sample(s)"


def test_unbounded_specs_sample_in_a_window_but_are_not_enumerated(reasoner_with, tmp_path, capsys):
    f = tmp_path / "open.smt2"
    f.write_text("(declare-const a Int) (declare-const b Int)\n(assert (>= a 1))\n(assert (= b (* 2 a)))\n")
    assert main(["sample", str(f), "-n", "20", "--seed", "0", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["status"] == "sat" and all(p["b"] == 2 * p["a"] >= 2 for p in rec["samples"])
    assert main(["sample", str(f), "--exhaustive"]) == 1
    assert "cannot enumerate: a is unbounded" in capsys.readouterr().err
    with pytest.raises(Unsampleable):
        solutions(reasoner_with(T.ge(VARS[0], k(1))))


# ------------------------------------------------------------------ the API


def test_shape_reasoner_sample():
    a, b, c = sympy.symbols("a b c", integer=True)
    r = ShapeReasoner()
    r.declare(a, lower=1, upper=8)
    r.declare(b, lower=1, upper=8)
    r.assume(sympy.Eq(c, a * b))
    r.assume(c >= 20)
    found = r.sample([c, a, "b"], 20, seed=0)
    assert found.status == "sat" and len(found.points) == 20
    for p in found.points:
        assert list(p) == [c, a, sympy.Symbol("b", integer=True)]
        assert p[c] == p[a] * p[sympy.Symbol("b", integer=True)] >= 20
    assert r.sample([c, a, b], 20, seed=0).points == r.sample([c, a, b], 20, seed=0).points
    assert r.statically_known_true(c >= 20) and not r.statically_known_true(c >= 21)
    r.assume(c > 64)
    assert r.sample([a], 3).status == "impossible"
    with pytest.raises(ValueError):
        r.sample([a], -1)
    with pytest.raises(TypeError):
        r.sample([a], 1, seed="x")


def test_the_benchmark_times_both_sides():
    from benchmarks.sample_specs import absint_times, z3_times

    spec = os.path.join(SPECS, "conv1d.smt2")
    setup, times, distinct = absint_times(spec, 40, 0)
    assert len(times) == 40 and 1 <= distinct <= 33 and setup > 0
    z_setup, z, found, end = z3_times(spec, 40, 0)
    assert (found, end) == (33, "unsat") and len(z) == 34
    _, _, _, end = z3_times(os.path.join(SPECS, "contradictory.smt2"), 5, 0)
    assert end == "unsat"


# ---------------------------------------------------------------- unbounded symbols, --max, the walk

UNBOUNDED_OFFSET = """(declare-const s0 Int)
(set-info :example-s0 96)
(declare-const off Int)
(set-info :example-off 0)
(assert (>= s0 2))
(assert (>= off 0))
(assert (= (mod (+ off s0) 97) 1))
(assert (= (mod off 13) 0))
"""


def test_a_symbol_unbounded_above_is_drawn_without_a_crash(tmp_path):
    """A storage offset only ``>= 0`` in a component whose box draws mostly fail: the
    propagated draw read its infinite upper bound (``math.floor(inf)``: the crash on 10 of
    40 corpus files)."""
    f = tmp_path / "offset.smt2"
    f.write_text(UNBOUNDED_OFFSET)
    report = sample_file(str(f), 5, seed=1)
    assert report.error is None and report.result.status == SAT and len(report.result.points) == 5
    facts = parse(UNBOUNDED_OFFSET).facts
    assert all(truth_at(x.term, p) is True for p in report.result.points for x in facts)
    assert "off" in report.result.free


def test_samples_stay_within_max_unless_the_facts_ask_for_more(tmp_path, capsys):
    f = tmp_path / "big.smt2"
    f.write_text("(declare-const s Int)\n(declare-const t Int)\n(assert (>= s 2))\n"
                 "(assert (<= s 9223372036854775807))\n(assert (>= t 100000))\n(assert (<= t 100010))\n")
    assert main(["sample", str(f), "-n", "20", "--seed", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert all(2 <= p["s"] <= 2**16 for p in out["samples"])
    assert all(100000 <= p["t"] <= 100010 for p in out["samples"])  # beyond --max: the facts win
    assert out["free"] == ["s"]
    assert main(["sample", str(f), "-n", "20", "--seed", "3", "--max", "none", "--json"]) == 0
    wide = json.loads(capsys.readouterr().out)
    assert max(p["s"] for p in wide["samples"]) > 2**16
    assert main(["sample", str(f), "-n", "5", "--seed", "3", "--max", "10", "--json"]) == 0
    assert all(p["s"] <= 10 for p in json.loads(capsys.readouterr().out)["samples"])


def test_a_product_no_draw_meets_is_sampled_by_walking_from_the_example(tmp_path):
    f = tmp_path / "numel.smt2"
    f.write_text("(declare-const a Int)\n(set-info :example-a 12)\n(declare-const b Int)\n"
                 "(set-info :example-b 84)\n(declare-const c Int)\n(set-info :example-c 189)\n"
                 "(assert (>= a 1))\n(assert (>= b 1))\n(assert (>= c 1))\n(assert (= (* a b c) 190512))\n")
    report = sample_file(str(f), 6, seed=2)
    points = report.result.points
    assert report.result.status == SAT and len(points) == 6
    assert all(p["a"] * p["b"] * p["c"] == 190512 and min(p.values()) >= 1 for p in points)
    assert len({tuple(p.values()) for p in points}) > 1  # walked, not the example six times


@pytest.mark.corpus
def test_corpus_files_that_crashed_are_sampled(corpus):
    for name in ("timm_efficientnet___0", "drq___0"):  # benchmarks/answers_corpus.py runs 200
        path = str(corpus / f"{name}.smt2")
        report = sample_file(path, 2, seed=1)
        assert report.error is None and report.result.status == SAT, (name, report)
        program = parse(open(path).read())
        for p in report.result.points:
            assert all(truth_at(x.term, p) is True for x in program.facts), name
