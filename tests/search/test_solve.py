"""``absint solve`` and ``ShapeReasoner.find``: never a wrong answer.

Every ``found`` point satisfies every assert and want (the evaluator); every
``impossible`` is confirmed by Z3 (the named asserts plus the wants are unsat), on
programs the project writes (examples/, benchmarks/generators.py) with wants of the
benchmark's kinds (double an output size, plus one, a prime numel) and random ones.
"""

from __future__ import annotations

import os
import random

import pytest
import sympy

from absint import ShapeReasoner
from absint.lang import terms as T
from absint.lang.evaluator import evaluate, truth_at
from absint.lang.printer import to_smtlib
from absint.search.labelling import Budget, Variable, divisors_of, wanted_product
from absint.search.solve import FOUND, IMPOSSIBLE, UNKNOWN, solve
from absint.search.wants import WantError, WantNotRead, read_with_wants, to_smtlib_text
from benchmarks.generators import PRELUDE_TEXT, build
from repo_paths import EXAMPLES


def solve_text(text: str, wants: list[str], budget: Budget = Budget(2000, 10.0), seed: int = 0,
               z3: bool = True):
    with T.fresh_table():
        read = read_with_wants(text.encode(), wants, "t.smt2")
        program = read.program
        symbols = [Variable(s.name, s.term, s.hint) for s in program.symbols]
        facts = [f.term for f in program.facts]
        wanted = [w.term for w in read.wants]
        sol = solve(symbols, facts, wanted, budget, seed)
        verdict = judge(sol, symbols, facts, wanted) if z3 else None
    return sol, verdict


def judge(sol, symbols, facts, wants) -> str:
    """Check the answer: a found point by the evaluator; an impossible core by Z3."""
    if sol.status == FOUND:
        assert set(sol.point) == {s.name for s in symbols}, "the point gives every declared symbol"
        for t in [*facts, *wants]:
            assert truth_at(t, sol.point) is True, f"found point violates {to_smtlib(t)}"
        return "checked"
    if sol.status == IMPOSSIBLE:
        assert z3_unsat([facts[i] for i in sol.core] + list(wants), symbols), "Z3 finds the core satisfiable"
        return "confirmed"
    assert sol.status == UNKNOWN
    return "unknown"


def z3_unsat(terms, symbols) -> bool:
    z3 = pytest.importorskip("z3")
    decls = "".join(f"(declare-const {s.name} {s.term.sort.value})\n" for s in symbols)
    text = PRELUDE_TEXT + decls + "".join(f"(assert {to_smtlib(t)})\n" for t in terms)
    solver = z3.Solver()
    solver.set("timeout", 20000)
    solver.add(z3.parse_smt2_string(text))
    r = solver.check()
    assert r != z3.unknown, "Z3 gave no answer"
    return r == z3.unsat


# ------------------------------------------------------------------ reading wants


@pytest.mark.parametrize("want, smtlib", [
    ("output0_size0 == 8", "(= output0_size0 8)"),
    ("(= output0_size0 8)", "(= output0_size0 8)"),
    ("a*b != 7", "(distinct (* a b) 7)"),
    ("x // 2 % 3 >= -1", "(>= (mod (div x 2) 3) (- 1))"),
    ("1 < x <= 5", "(and (< 1 x) (<= x 5))"),
    ("not x == 1 or min(x, y) > max(y, 2)", "(or (not (= x 1)) (> (ite (< x y) x y) (ite (> y 2) y 2)))"),
])
def test_infix_and_smtlib_wants(want, smtlib):
    assert to_smtlib_text(want) == smtlib


@pytest.mark.parametrize("want", ["x == 1.5", "x ==", "f(x) == 1", "x @ y", ""])
def test_bad_infix_is_a_want_error(want):
    with pytest.raises(WantError):
        to_smtlib_text(want)


def test_wants_see_define_funs_and_a_missing_name_is_the_wants_error():
    text = PRELUDE_TEXT + "(declare-const s0 Int)\n(define-fun half () Int (div s0 2))\n(assert (> s0 1))\n"
    read = read_with_wants(text.encode(), ["half == 3"], "t.smt2")
    assert len(read.program.facts) == 1 and len(read.wants) == 1
    assert evaluate(read.wants[0].term, {"s0": 7}) is True
    with pytest.raises(WantNotRead, match=r"--want 2 'nope == 1': undefined name 'nope'"):
        read_with_wants(text.encode(), ["half == 3", "nope == 1"], "t.smt2")


# ------------------------------------------------------------------ answers on small programs

SIZES = PRELUDE_TEXT + """
(declare-const s0 Int)
(set-info :example-s0 8)
(declare-const s1 Int)
(set-info :example-s1 6)
(assert (>= s0 2))
(assert (>= s1 2))
(assert (= (mod s0 4) 0))
(define-fun output0_size0 () Int (* s0 s1))
(define-fun output0_size1 () Int (+ (div (- s1 1) 2) 1))
"""


def test_found_point_keeps_the_hints_where_it_can():
    sol, verdict = solve_text(SIZES, ["output0_size0 == 96"])
    assert sol.status == FOUND and verdict == "checked"
    # one symbol moved from the example point (s0 = 8, s1 = 6), the other kept: the engine's
    # neighbours move the wants' symbols one at a time, s0 first (doubled)
    assert sol.point == {"s0": 16, "s1": 6} and "neighbours" in sol.how


def test_impossible_names_the_assert_that_contradicts():
    sol, verdict = solve_text(SIZES, ["s0 == 13"])
    assert sol.status == IMPOSSIBLE and sol.core == (2,) and verdict == "confirmed"


def test_a_prime_numel_is_proved_impossible_by_its_divisors():
    # propagation alone bounds s0 and s1 to 2..50; the divisors of 101 are 1 and 101
    text = SIZES.replace("(assert (= (mod s0 4) 0))\n", "")
    sol, verdict = solve_text(text, ["output0_size0 == 101"])
    assert sol.status == IMPOSSIBLE and verdict == "confirmed"


def test_an_exhaustive_proof_names_few_asserts():
    with open(os.path.join(EXAMPLES, "conv_stack.smt2")) as f:
        text = f.read()
    sol, verdict = solve_text(text, ["output0_size2 * output0_size3 == 101"])
    assert sol.status == IMPOSSIBLE and "exhaustive" in sol.how and verdict == "confirmed"
    assert len(sol.core) <= 3


def test_a_small_domain_is_labelled_exhaustively():
    text = PRELUDE_TEXT + "(declare-const x Int)\n(set-info :example-x 3)\n(assert (<= 0 x 40))\n"
    sol, verdict = solve_text(text, ["x * x == 50"])
    assert sol.status == IMPOSSIBLE and "exhaustive" in sol.how and verdict == "confirmed"
    sol, verdict = solve_text(text, ["x * x == 49"])
    assert sol.status == FOUND and sol.point == {"x": 7}


def test_a_want_whose_rewrite_needs_a_later_fact_is_read_again():
    # (s0*s1) div s0 = s1 needs s0 != 0, which comes after the want is first read
    text = PRELUDE_TEXT + """
(declare-const s0 Int)
(set-info :example-s0 4)
(declare-const s1 Int)
(set-info :example-s1 16)
(assert (>= s1 0))
(assert (not (= s0 0)))
(assert (= (mod s1 8) 0))
(define-fun q () Int (div (* s0 s1) s0))
"""
    sol, verdict = solve_text(text, ["q == 9"])
    assert sol.status == IMPOSSIBLE and sol.core == (1, 2) and verdict == "confirmed"
    sol, verdict = solve_text(text, ["q == 24"])
    assert sol.status == FOUND and verdict == "checked"


def test_the_wants_alone_can_contradict():
    sol, verdict = solve_text(SIZES, ["s0 == 4", "s0 == 5"])
    assert sol.status == IMPOSSIBLE and sol.core == () and verdict == "confirmed"


def test_unknown_when_the_budget_is_spent():
    # x*y == 2**61 - 1 (a prime too large to factor here) over unbounded x, y: no proof, no point
    text = PRELUDE_TEXT + "(declare-const x Int)\n(declare-const y Int)\n(assert (> x 1))\n(assert (> y 1))\n"
    sol, verdict = solve_text(text, [f"x * y == {2**61 - 1}"], Budget(nodes=20, seconds=5.0))
    assert sol.status == UNKNOWN and sol.nodes >= 20 and verdict == "unknown"


def test_unbacked_symbols_get_values():
    with open(os.path.join(EXAMPLES, "jagged_split.smt2")) as f:
        text = f.read()
    sol, verdict = solve_text(text, ["output0_size0 == 5", "output7_size0 == 3"])
    assert sol.status == FOUND and verdict == "checked"


def test_divisors_and_wanted_products():
    assert divisors_of(12) == [1, 2, 3, 4, 6, 12, -1, -2, -3, -4, -6, -12]
    assert divisors_of(10**11) is None
    x, y = T.var("x", T.INT), T.var("y", T.INT)
    product, n = wanted_product(T.eq(T.mul(T.const(3), x, y), T.const(21)))
    assert n == 7 and set(product.args) == {x, y}
    assert wanted_product(T.eq(x, T.const(4))) is None


# ------------------------------------------------------------------ against the evaluator and Z3


def generated_queries(seed: int):
    """Programs from the generators, each with wants of the benchmark's kinds (on an output,
    or a symbol when the program has no outputs) and a random value."""
    rng = random.Random(seed)
    for kind, n in (("reshape", 2), ("conv", 2), ("attention", 1), ("jagged", 4), ("chain", 5)):
        g = build(kind, n, seed)
        with T.fresh_table():
            read = read_with_wants(g.text.encode(), [], "g.smt2")
            point = {**g.hints, **g.witness}
            named = list(read.program.outputs) or [(sym.name, sym.term) for sym in read.program.symbols]
            outs = [(name, evaluate(t, point)) for name, t in named if t.sort is T.INT]
        name, value = rng.choice(outs)
        sizes = [(o, v) for o, v in outs if o.startswith("output0_size")] or outs[:2]
        numel = " * ".join(o for o, _ in sizes)
        prime = sympy.nextprime(_product(v for _, v in sizes))
        for want in (f"{name} == {2 * value}", f"{name} == {value + 1}", f"{numel} == {prime}",
                     f"{name} == {rng.randint(-3, 2 * abs(value) + 3)}"):
            yield kind, g.text, want


def _product(values) -> int:
    out = 1
    for v in values:
        out *= v
    return out


@pytest.mark.parametrize("seed", range(4))
def test_every_answer_is_checked_on_generated_programs(seed):
    tally = {}
    for kind, text, want in generated_queries(seed):
        sol, verdict = solve_text(text, [want], Budget(500, 5.0), seed)
        tally[verdict] = tally.get(verdict, 0) + 1
    assert tally.get("checked", 0) + tally.get("confirmed", 0) >= 0.9 * sum(tally.values()), tally


# ------------------------------------------------------------------ the compiler API


def test_find_on_the_api_leaves_the_reasoner_as_it_was():
    s0, s1, u0 = sympy.symbols("s0 s1 u0", integer=True)
    r = ShapeReasoner()
    r.declare(s0, hint=8)
    r.declare(s1, hint=6)
    r.declare(u0, size_like=True)
    r.assume(sympy.Eq(s0 % 4, 0))
    r.assume(u0 <= s0)
    before = (r.facts(), r.bounds(s0), r.bounds(u0), r.decide(sympy.Eq(s0, 8)).truth)
    found = r.find(sympy.Eq(s0 * s1, 96), sympy.Eq(u0, 3))
    assert found.found and found.point == {s0: 8, s1: 12, u0: 3}
    impossible = r.find(sympy.Eq(s0, 13))
    assert impossible.impossible and impossible.facts == (sympy.Eq(s0 % 4, 0),)
    assert r.find(sympy.Eq(u0, 9), sympy.Eq(s0, 8)).facts == (u0 <= s0,)
    assert (r.facts(), r.bounds(s0), r.bounds(u0), r.decide(sympy.Eq(s0, 8)).truth) == before


def test_find_checks_its_arguments():
    r = ShapeReasoner()
    x = r.declare(sympy.Symbol("x", integer=True), hint=1)
    with pytest.raises(TypeError):
        r.find("x == 1")
    with pytest.raises(ValueError):
        r.find(sympy.Eq(x, 1), nodes=0)


# ------------------------------------------------------------------ against brute force on small boxes

_OPERANDS = ("x", "y", "z", "(* x y)", "(div x 3)", "(mod y 4)", "(+ x z)", "(- y z)", "(* 2 z)", "(div (+ x y) 2)")
_COMPARES = ("=", "<=", ">=", "distinct", "<", ">")


def random_program(rng: random.Random) -> tuple[str, list[str], list[range]]:
    """x, y, z in small boxes (so a brute force is exact), a few random facts, one or two wants."""
    lines, boxes = [PRELUDE_TEXT], []
    for name in ("x", "y", "z"):
        lo = rng.randint(-3, 3)
        boxes.append(range(lo, lo + rng.randint(0, 9) + 1))
        lines += [f"(declare-const {name} Int)", f"(assert (<= {lo} {name} {boxes[-1][-1]}))"]

    def atom() -> str:
        return f"({rng.choice(_COMPARES)} {rng.choice(_OPERANDS)} {rng.choice(_OPERANDS + ('0', '1', '5'))})"

    lines += [f"(assert {atom()})" for _ in range(rng.randint(0, 3))]
    operand = rng.choice(_OPERANDS)
    with T.fresh_table():  # aim near a value the operand takes in the boxes: a few hits, many near misses
        term = read_with_wants(("\n".join(lines) + "\n").encode(), [f"(= {operand} 0)"], "w.smt2").wants[0].term
        at = {n: rng.choice(b) for n, b in zip(("x", "y", "z"), boxes)}
        target = evaluate(term.args[0], at) + rng.choice((0, 0, 1, -1, 7))
    wants = [f"(= {operand} {target})"] + ([atom()] if rng.random() < 0.4 else [])
    return "\n".join(lines) + "\n", wants, boxes


def brute_force(text: str, wants: list[str], boxes: list[range]) -> bool:
    """Whether some point of the boxes satisfies every fact and want."""
    with T.fresh_table():
        read = read_with_wants(text.encode(), wants, "b.smt2")
        terms = [f.term for f in read.program.facts] + [w.term for w in read.wants]
        return any(all(truth_at(t, {"x": a, "y": b, "z": c}) for t in terms)
                   for a in boxes[0] for b in boxes[1] for c in boxes[2])


@pytest.mark.parametrize("seed", range(3))
def test_small_boxes_are_decided_and_agree_with_brute_force(seed):
    rng = random.Random(seed)
    statuses = set()
    for _ in range(40):
        text, wants, boxes = random_program(rng)
        sol, _ = solve_text(text, wants, Budget(3000, 10.0), seed, z3=False)
        exists = brute_force(text, wants, boxes)
        if sol.status == FOUND:  # the point was checked by the evaluator; check it here too
            with T.fresh_table():
                read = read_with_wants(text.encode(), wants, "b.smt2")
                assert all(truth_at(f.term, sol.point) for f in [*read.program.facts, *read.wants])
        assert sol.status == (FOUND if exists else IMPOSSIBLE), (text, wants, sol)
        statuses.add((sol.status, sol.how.split(" (")[0]))
    assert len(statuses) >= 3, statuses  # found, and impossible by propagation and by exhaustion
