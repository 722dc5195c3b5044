"""Translation validation (absint.validation, ``absint validate``): pairs and bisection.

Every ``differ`` and every failing step carries a point that the evaluator and Z3 confirm;
every ``equal`` is an implication Z3 cannot refute; on mutated generated programs the first
failing step is Z3's whenever Z3 finds one."""

from __future__ import annotations

import json
import random

import attrs
import pytest
import sympy
from hypothesis import HealthCheck, given, settings, strategies as st

from absint import ShapeReasoner
from absint.cli import main
from absint.lang import terms as T
from absint.lang.printer import to_smtlib
from absint.lang.program import Fact
from absint.readers.smtlib import parse, parse_with_definitions
from absint.reasoning.verdict import Truth
from absint.search import engine
from absint.validation.check import DIFFER, EQUAL, bisect, validate_pairs
from benchmarks.generators import PRELUDE_TEXT, build
from term_strategies import int_terms
from z3_check import z3_implies

z3 = pytest.importorskip("z3")

PAIRS = PRELUDE_TEXT + """
(declare-const a Int)
(declare-const b Int)
(declare-const x Int)
(declare-const y Int)
(assert (<= a b))
(assert (>= y 2))
(define-fun source0 () Int (ite (> a b) a b))
(define-fun target0 () Int b)
(define-fun source1 () Int (- x (* (div x y) y)))
(define-fun target1 () Int (mod x y))
(define-fun source2 () Int (mod (mod x 6) 3))
(define-fun target2 () Int (mod x 3))
(define-fun source3 () Int (max2 x y))
(define-fun target3 () Int (- (min2 (- x) (- y))))
(define-fun source4 () Int (mod (mod x 6) 4))
(define-fun target4 () Int (mod x 4))
(define-fun source5 () Bool (< x 10))
(define-fun target5 () Bool (< x 8))
(define-fun source6 () Bool (< x 8))
(define-fun target6 () Bool (< x 10))
(define-fun source7 () Int (div x y))
(define-fun target7 () Int (div (+ x 1) y))
"""


def z3_sat_at(facts, goal, point) -> bool:
    """Z3 confirms a point: the facts, the goal and ``symbol = value`` for each are satisfiable."""
    names = sorted({v.data for t in [*facts, goal] for v in T.free_vars(t)} | set(point))
    text = PRELUDE_TEXT + "".join(f"(declare-const {n} Int)\n" for n in names)
    text += "".join(f"(assert {to_smtlib(f)})\n" for f in [*facts, goal])
    text += "".join(f"(assert (= {n} {to_smtlib(T.const(int(v)))}))\n" for n, v in point.items())
    s = z3.Solver()
    s.set("timeout", 5000)
    s.add(z3.parse_smt2_string(text))
    return s.check() == z3.sat


def test_pairs_file(tmp_path, capsys):
    path = tmp_path / "pairs.smt2"
    path.write_text(PAIRS)
    assert main(["validate", str(path), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["file"] == str(path)
    verdicts = {p["name"]: p["verdict"] for p in out["pairs"]}
    assert verdicts == {"0": "equal", "1": "equal", "2": "equal", "3": "equal", "4": "differ",
                        "5": "equal", "6": "differ", "7": "differ"}
    program, definitions = parse_with_definitions(PAIRS, "pairs.smt2")
    facts = [f.term for f in program.facts]
    for p in out["pairs"]:
        s, t = definitions[f"source{p['name']}"], definitions[f"target{p['name']}"]
        goal = T.and_(t, T.not_(s)) if s.sort is T.BOOL else T.ne(s, t)
        if p["verdict"] == DIFFER:
            assert engine.holds(facts, goal, p["counterexample"])
            assert z3_sat_at(facts, goal, p["counterexample"])
        else:
            assert p["counterexample"] is None
            assert z3_implies(facts, T.not_(goal))


def test_equiv_checks_both_ways(tmp_path, capsys):
    path = tmp_path / "pairs.smt2"
    path.write_text(PAIRS)
    main(["validate", str(path), "--json", "--equiv"])
    verdicts = {p["name"]: p["verdict"] for p in json.loads(capsys.readouterr().out)["pairs"]}
    assert verdicts["5"] == "differ" and verdicts["6"] == "differ"


def test_text_output_and_errors(tmp_path, capsys):
    path = tmp_path / "pairs.smt2"
    path.write_text(PAIRS)
    main(["validate", str(path)])
    out = capsys.readouterr().out
    assert "pair 4: differ  at {" in out and "8 pair(s): 5 equal, 3 differ, 0 unknown" in out
    lonely = tmp_path / "lonely.smt2"
    lonely.write_text("(declare-const x Int)\n(define-fun source1 () Int x)\n")
    assert main(["validate", str(lonely)]) == 2
    assert "lonely.smt2: source1 has no target1" in capsys.readouterr().err
    bad = tmp_path / "bad.smt2"
    bad.write_text("(declare-const x Int)\n(assert (<= x))\n")
    assert main(["validate", str(bad)]) == 2
    assert "bad.smt2:2:" in capsys.readouterr().err


# ---------------------------------------------------------------- generated pairs

NAMES = ("x", "y", "z")
VARS = [T.var(n, T.INT) for n in NAMES]
TERMS = int_terms(VARS, max_leaves=4, with_ite=True)
FACTS = st.lists(st.tuples(st.sampled_from(VARS), st.integers(-6, 3), st.integers(0, 8)), max_size=3).map(
    lambda bs: [T.and_(T.ge(v, T.const(lo)), T.le(v, T.const(lo + w))) for v, lo, w in bs])
#: a target that is the source rewritten (equal) or the source disturbed (usually differs)
TWEAKS = st.sampled_from([
    lambda t: T.add(t, T.ZERO), lambda t: T.neg(T.neg(t)), lambda t: T.maximum(t, t),
    lambda t: T.add(t, T.ONE), lambda t: T.minimum(t, VARS[0]), lambda t: T.mod(t, T.const(4)),
    lambda t: T.div(T.mul(t, T.const(2)), T.const(2)), lambda t: T.maximum(t, T.sub(t, T.ONE))])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(FACTS, TERMS, TWEAKS)
def test_generated_pairs_are_never_wrong(facts, source, tweak):
    target = tweak(source)
    decls = "".join(f"(declare-const {n} Int)\n" for n in NAMES)
    text = PRELUDE_TEXT + decls + "".join(f"(assert {to_smtlib(f)})\n" for f in facts)
    text += f"(define-fun source0 () Int {to_smtlib(source)})\n(define-fun target0 () Int {to_smtlib(target)})\n"
    program, definitions = parse_with_definitions(text)
    [result] = validate_pairs(program, definitions)
    s, t = definitions["source0"], definitions["target0"]
    facts = [f.term for f in program.facts]
    if result.verdict == DIFFER:
        assert engine.holds(facts, T.ne(s, t), result.counterexample)
        assert z3_sat_at(facts, T.ne(s, t), result.counterexample)
    elif result.verdict == EQUAL:
        assert _z3_says_implied(facts, T.eq(s, t))


CMP = st.sampled_from([T.le, T.lt, T.eq, T.ne])
BOOL_TWEAKS = st.sampled_from([
    lambda g: g, lambda g: T.and_(g, T.le(VARS[1], T.const(2))), lambda g: T.or_(g, T.le(VARS[1], T.const(2))),
    lambda g: T.not_(T.not_(g)), lambda g: T.not_(g), lambda g: T.TRUE])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(FACTS, CMP, TERMS, TERMS, BOOL_TWEAKS, st.booleans())
def test_generated_guard_pairs_are_never_wrong(facts, cmp, left, right, tweak, equiv):
    source = cmp(left, right)
    target = tweak(source)
    decls = "".join(f"(declare-const {n} Int)\n" for n in NAMES)
    text = PRELUDE_TEXT + decls + "".join(f"(assert {to_smtlib(f)})\n" for f in facts)
    text += f"(define-fun source0 () Bool {to_smtlib(source)})\n(define-fun target0 () Bool {to_smtlib(target)})\n"
    program, definitions = parse_with_definitions(text)
    [result] = validate_pairs(program, definitions, equiv=equiv)
    s, t = definitions["source0"], definitions["target0"]
    facts = [f.term for f in program.facts]
    ways = [(t, s)] + ([(s, t)] if equiv else [])
    if result.verdict == DIFFER:
        assert any(engine.holds(facts, T.and_(p, T.not_(q)), result.counterexample)
                   and z3_sat_at(facts, T.and_(p, T.not_(q)), result.counterexample) for p, q in ways)
    elif result.verdict == EQUAL:
        assert all(_z3_says_implied(facts + [p], q) for p, q in ways)


def _z3_says_implied(facts, g) -> bool:
    try:
        return z3_implies(facts, g, timeout_ms=3000)
    except AssertionError:  # no answer from Z3: nothing to compare
        return True


# ---------------------------------------------------------------- bisection

def _mutate(g, rng: random.Random):
    """A wrong "simplification" of a guard: a bound moved by one, a conjunct lost, or True."""
    if g.kind in ("le", "lt", "eq", "ne") and rng.random() < 0.7:
        return T.rebuild(g, (T.sub(g.args[0], T.ONE if rng.random() < 0.5 else T.const(-1)),))
    if g.kind == "and":
        return T.and_(*g.args[1:])
    return T.TRUE


def _z3_first_failing(sources, targets, limit: int) -> int | None | str:
    """Z3's first step whose source the targets so far do not imply; 'gave up' on a timeout."""
    for i in range(min(limit, len(sources))):
        try:
            if not z3_implies(targets[:i + 1], sources[i], timeout_ms=5000):
                return i
        except AssertionError:
            return "gave up"
    return None


CASES = [(kind, n, seed) for kind, n in (("chain", 8), ("jagged", 4), ("conv", 2), ("reshape", 2), ("attention", 1))
         for seed in range(5)]


@pytest.mark.parametrize("kind,n,seed", CASES)
def test_first_failing_step_matches_z3(kind, n, seed):
    generated = build(kind, n, seed)
    program = parse(generated.text, f"{kind}.smt2")
    rng = random.Random(seed * 31 + n)
    # mostly a real guard (not implied by the ones before it): a wrong form of it can matter
    real = [k for k, claim in enumerate(generated.claims) if claim == "?"]
    i = rng.choice(real) if real and rng.random() < 0.8 else rng.randrange(len(program.facts))
    mutated = _mutate(program.facts[i].term, rng)
    target = attrs.evolve(program, facts=tuple(Fact(mutated if f.index == i else f.term, f.index)
                                                 for f in program.facts))
    result = bisect(program, target)
    sources = [f.term for f in program.facts]
    targets = [f.term for f in target.facts]
    expected = _z3_first_failing(sources, targets, i + 1)
    if expected == "gave up":
        pytest.skip("Z3 gave no answer")
    assert result.first_failing == expected, (i, to_smtlib(program.facts[i].term), to_smtlib(mutated))
    if expected is not None:
        assert engine.holds(targets[:expected + 1], T.not_(sources[expected]), result.counterexample)
        assert z3_sat_at(targets[:expected + 1], T.not_(sources[expected]), result.counterexample)
    else:
        assert result.counterexample is None
    # the end state (PyTorch's check): only source i can fail there, the other targets are sources
    if result.final != "unknown":
        implied_at_end = _z3_says_implied(targets, sources[i])
        assert (result.final == "valid") is implied_at_end
        assert result.final_failing == (None if implied_at_end else i)


def test_bisect_cli_finds_what_later_guards_hide(tmp_path, capsys):
    head = PRELUDE_TEXT + "(declare-const s0 Int)\n(set-info :example-s0 8)\n"
    src = head + "(assert (>= s0 4))\n(assert (>= s0 6))\n"
    tgt = head + "(assert (>= s0 2))\n(assert (>= s0 6))\n"  # step 0 "simplified" wrongly
    (tmp_path / "src.smt2").write_text(src)
    (tmp_path / "tgt.smt2").write_text(tgt)
    assert main(["validate", str(tmp_path / "src.smt2"), "--against", str(tmp_path / "tgt.smt2"), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["first_failing"] == 0 and out["final"] == "valid"
    assert out["counterexample"]["s0"] in (2, 3)
    (tmp_path / "short.smt2").write_text(head + "(assert (>= s0 4))\n")
    assert main(["validate", str(tmp_path / "src.smt2"), "--against", str(tmp_path / "short.smt2")]) == 2
    assert "src.smt2 has 2 asserts, short.smt2 has 1" in capsys.readouterr().err
    (tmp_path / "real.smt2").write_text("(declare-const s0 Real)\n(assert (>= s0 2.0))\n(assert (>= s0 6.0))\n")
    assert main(["validate", str(tmp_path / "src.smt2"), "--against", str(tmp_path / "real.smt2")]) == 2
    assert "real.smt2: s0 is Real here but Int in src.smt2" in capsys.readouterr().err


# ---------------------------------------------------------------- API

def test_api_equivalent_and_counterexample():
    sr = ShapeReasoner()
    a, b, x = sr.declare("a", hint=3), sr.declare("b", hint=5), sr.declare("x", hint=7)
    sr.assume(sympy.Le(a, b))
    assert sr.equivalent(sympy.Max(a, b), b).truth is Truth.TRUE
    v = sr.equivalent(sympy.Max(a, x), x)
    assert v.truth is Truth.FALSE and v.counterexample["a"] > v.counterexample["x"]
    assert v.counterexample["a"] <= v.counterexample["b"]
    point = sr.counterexample(sympy.Lt(x, 100))
    assert point is not None and point["x"] >= 100 and point["a"] <= point["b"]
    assert sr.counterexample(sympy.Le(a, b + 1)) is None
    with pytest.raises(TypeError):
        sr.equivalent(sympy.Lt(a, b), a)


# ---------------------------------------------------------------- planted errors

def _pairs_checked(capsys, tmp_path) -> bool:
    """The checks of ``test_pairs_file`` on the pairs file; False when one of them fails."""
    try:
        test_pairs_file(tmp_path, capsys)
    except AssertionError:
        return False
    return True


def test_planted_error_an_unchecked_point_is_caught(tmp_path, capsys, monkeypatch):
    """A search that reports its first candidate without the evaluator's check."""
    monkeypatch.setattr(engine, "holds", lambda facts, goal, point: True)
    assert not _pairs_checked(capsys, tmp_path)


def test_planted_error_an_unproved_equal_is_caught(tmp_path, capsys, monkeypatch):
    """``equal`` without a proof: a pair that differs must then fail Z3's check."""
    from absint.reasoning.verdict import Layer, Verdict
    from absint.validation import check

    monkeypatch.setattr(check, "implied", lambda reasoner, premise, conclusion: Verdict.true(Layer.NONE))
    assert not _pairs_checked(capsys, tmp_path)
