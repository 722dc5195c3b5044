"""The rewrites of absint/metamorphic: each does what it says to the text (a rewrite that
returned its input would pass every verdict check), keeps the meaning (each assert has the same
value at many points, by the evaluator), and the S-expression reading under them round-trips."""

from __future__ import annotations

import random
import re

import pytest

from absint.lang.evaluator import NotEvaluable, evaluate
from absint.lang.terms import fresh_table
from absint.metamorphic import sexpr
from absint.metamorphic.check import IDENTICAL, SKIPPED, check, letters_of, rewritten
from absint.metamorphic.rewrites import REWRITES
from absint.readers.smtlib import parse
from benchmarks import generators as G

GENERATED = [("jagged", 8, 0), ("chain", 12, 1), ("conv", 4, 0), ("reshape", 3, 0), ("attention", 1, 0),
             ("pool_skip", 3, 0), ("pool", 2, 0)]


def text_of(kind: str, n: int, seed: int) -> str:
    return G.build(kind, n, seed).text


def asserts_of(text: str) -> list:
    return [c[1] for c in sexpr.parse(text) if isinstance(c, tuple) and c[:1] == ("assert",)]


def applications(e) -> list[tuple]:
    return [x for x in sexpr.postorder(e)]


# ------------------------------------------------------------------ S-expressions


def test_the_text_reads_and_prints_back_as_the_same_commands():
    text = text_of("conv", 4, 0)
    commands = sexpr.parse(text)
    assert sexpr.parse(sexpr.render_program(commands)) == commands
    assert sexpr.parse("(a ; a comment (\n (b |c d|))") == [("a", ("b", "|c d|"))]


@pytest.mark.parametrize("text", ["(a (b)", "a)", "(a))"])
def test_unbalanced_text_is_refused(text):
    with pytest.raises(sexpr.SExprError):
        sexpr.parse(text)


def test_deep_nesting_reads_and_prints_without_recursion():
    depth = 20_000
    text = "(assert " + "(+ 1 " * depth + "x" + ")" * depth + ")"
    [command] = sexpr.parse(text)
    assert sexpr.render(command) == text


# ------------------------------------------------------------------ each rewrite does its job


def test_inline_leaves_no_named_constant():
    out = rewritten(text_of("jagged", 8, 0), REWRITES["inline"].apply)
    assert not re.search(r"\(define-fun \S+ \(\)", out)
    assert "(assert (<= (+ (+ 0 u0) u1) values_size0))" in out  # split1_end, inlined


def test_name_shared_names_each_application_used_twice_once():
    out = rewritten(text_of("jagged", 8, 0), REWRITES["name-shared"].apply)
    commands = sexpr.parse(out)
    bodies = [c[4] for c in commands if c[0] == "define-fun" and c[2] == () and c[1].startswith("shared!")]
    assert len(bodies) > 8
    written = [x for e in bodies + asserts_of(out) for x in ([e] if isinstance(e, tuple) else [])]
    seen = [sexpr.render(x) for e in written for x in applications(e)]
    # every application is written once: each use of a shared one is its name
    assert len(seen) == len(set(seen)), [s for s in set(seen) if seen.count(s) > 1][:5]


def test_chain_leaves_no_sum_or_product_of_more_than_two_operands():
    text = text_of("jagged", 8, 0)
    assert "(+ u0 u1 u2 u3 u4 u5 u6 u7)" in text
    out = rewritten(text, REWRITES["chain"].apply)
    wide = [x for c in sexpr.parse(out) for x in applications(c) if x and x[0] in ("+", "*") and len(x) > 3]
    assert wide == []
    assert "(define-fun link!1 () Int (+ u0 u1))" in out and "(define-fun link!2 () Int (+ link!1 u2))" in out


def test_reorder_reverses_the_operands_of_sums_and_products():
    out = rewritten(text_of("jagged", 8, 0), REWRITES["reorder"].apply)
    assert "(+ u7 u6 u5 u4 u3 u2 u1 u0)" in out and "(+ u0 u1" not in out


def test_rename_leaves_none_of_the_old_names():
    text = text_of("conv", 4, 0)
    out = rewritten(text, REWRITES["rename"].apply)
    old = {c[1] for c in sexpr.parse(text) if c[0] in ("declare-const", "define-fun") and c[2] in ((), "Int")}
    assert {"N", "C", "H", "W", "ge", "not_"} <= old
    tokens = set(sexpr.tokens(out))
    assert old & tokens == set()
    assert {"ceil", "min2", "max2", "sqrt"} <= tokens  # functions keep their names
    assert "(set-info :example-" in out


def test_rename_keeps_a_constant_apart_from_an_operator_of_its_name_and_renames_parameters_alike():
    text = ("(define-fun max2 ((x Int) (y Int)) Int (ite (> x y) x y))\n(declare-const x Int)\n"
            "(set-info :example-x 3)\n(define-fun mod () Int (mod x 2))\n(assert (<= (max2 mod x) x))\n")
    out = rewritten(text, REWRITES["rename"].apply)
    commands = sexpr.parse(out)
    x, mod = commands[1][1], commands[3][1]
    assert commands[3][4] == ("mod", x, "2") and commands[4][1] == ("<=", ("max2", mod, x), x)
    assert commands[2] == ("set-info", f":example-{x}", "3")
    [(px, _), (py, _)] = commands[0][2]  # one map for every name: the parameter x shadows as x did
    assert px == x and py != "y" and commands[0][4] == ("ite", (">", px, py), px, py)


def test_the_sympy_round_trip_writes_each_assert_anew():
    text = text_of("reshape", 3, 0)
    out = rewritten(text, REWRITES["sympy"].apply)
    assert not re.search(r"\(define-fun \S+ \(\)", out)
    assert len(asserts_of(out)) == len(asserts_of(text))
    assert asserts_of(out) != asserts_of(text)


# ------------------------------------------------------------------ the meaning is kept


def values_at(text: str, points: list[dict]) -> list[list]:
    """Each assert's value at each point (None where it is not defined: x div 0)."""
    out = []
    with fresh_table():
        program = parse(text, "p.smt2")
        for point in points:
            row = []
            for fact in program.facts:
                try:
                    row.append(evaluate(fact.term, point))
                except NotEvaluable:
                    row.append(None)
            out.append(row)
    return out


@pytest.mark.parametrize("rewrite", list(REWRITES))
@pytest.mark.parametrize("kind,n,seed", GENERATED)
def test_every_assert_keeps_its_value_at_random_points(kind, n, seed, rewrite):
    text = text_of(kind, n, seed)
    with fresh_table():
        program = parse(text, "p.smt2")
        names = [s.name for s in program.symbols]
        hints = program.hints()
    rng = random.Random(seed)
    points = [hints | {v: rng.randint(0, 40) for v in names if v not in hints}] + \
             [{v: rng.randint(1, 64) for v in names} for _ in range(30)]
    new = rewritten(text, REWRITES[rewrite].apply)
    renamed = dict(zip(names, _declared(new))) if rewrite == "rename" else {v: v for v in names}
    assert values_at(new, [{renamed[k]: v for k, v in p.items()} for p in points]) == values_at(text, points)


def _declared(text: str) -> list[str]:
    return [c[1] for c in sexpr.parse(text) if c[0] == "declare-const"]


# ------------------------------------------------------------------ limits


def test_an_inlined_program_over_the_limit_is_skipped_not_checked():
    outcome = check("j.smt2", text_of("jagged", 30, 0), "inline", max_tokens=500)
    assert outcome.status == SKIPPED and "over 500 tokens" in outcome.message


def test_the_sympy_round_trip_keeps_deeply_nested_divisions_by_a_symbol_as_divisions():
    # written as floor quotients of both signs, 40 nested divisions were 2^40 sympy pieces (the
    # trip skipped more than 8); as EuclidDiv each is one node, and it comes back as itself
    nested = "x"
    for _ in range(40):
        nested = f"(div {nested} y)"
    text = ("(declare-const x Int)\n(declare-const y Int)\n(assert (>= y 1))\n(assert (>= x 0))\n"
            f"(assert (>= {nested} 0))\n(assert (<= {nested} x))\n")
    asserts = "".join(line for line in rewritten(text, REWRITES["sympy"].apply).splitlines() if "assert" in line)
    assert asserts.count("(div ") == 80 and "to_int" not in asserts and "ite" not in asserts
    outcome = check("d.smt2", text, "sympy")
    assert outcome.status == IDENTICAL and letters_of("d.smt2", text).verdicts == "??T?"
