"""``absint explain FILE:LINE --missing``: every suggested fact is true at the file's example
point and, added to the asserts before, decides the assert (checked with Z3); the checker
catches a planted fact that is false at the example and one that is too weak."""

from __future__ import annotations

import json
import random

from support.z3_check import z3_implies

from absint import explain as X
from absint.cli import main
from absint.lang import terms as T
from absint.lang.evaluator import truth_at
from absint.missing import Candidate
from absint.readers.smtlib import parse

NAMES = ("x", "y", "z", "w")


def _fact_texts(rng: random.Random, v: dict) -> list[str]:
    """Facts true at the example ``v`` (``w = x + y`` there)."""
    a, b = rng.sample(NAMES, 2)
    pool = [f"(>= {a} {v[a] - rng.randint(0, 3)})", f"(<= {b} {v[b] + rng.randint(0, 5)})",
            "(= w (+ x y))", f"(>= {b} 0)", f"(>= {a} 0)",
            f"(<= {a} {b})" if v[a] <= v[b] else f"(<= {b} {a})"]
    return rng.sample(pool, rng.randint(2, 4))


def _goal_text(rng: random.Random, v: dict) -> str:
    """A question true at the example."""
    a, b, c = rng.sample(NAMES, 3)
    kind = rng.randrange(6)
    if kind == 0:
        return f"(<= {a} {b})" if v[a] <= v[b] else f"(<= {b} {a})"
    if kind == 1:
        return f"(<= (+ {a} {b}) (+ {c} {v[a] + v[b] - v[c] + rng.randint(0, 2)}))"
    if kind == 2:
        return f"(>= (* {a} {b}) {v[a] * v[b] - rng.randint(0, 3)})"
    if kind == 3:
        m = rng.choice((2, 3, 4))
        return f"(= (mod {a} {m}) {v[a] % m})"
    if kind == 4:
        return f"(distinct {a} 0)" if v[a] != 0 else f"(distinct {a} 1)"
    return f"(>= (- {a} {b}) {v[a] - v[b] - rng.randint(0, 4)})"


def generated_program(seed: int) -> str:
    rng = random.Random(seed)
    v = {"x": rng.randint(0, 9), "y": rng.randint(0, 9), "z": rng.randint(0, 12)}
    v["w"] = v["x"] + v["y"]
    head = "".join(f"(declare-const {n} Int)\n(set-info :example-{n} {v[n]})\n" for n in NAMES)
    body = "".join(f"(assert {f})\n" for f in _fact_texts(rng, v))
    return head + body + f"(assert {_goal_text(rng, v)})\n"


def problems(program, fact, candidates) -> list[str]:
    """What is wrong with ``candidates`` as missing facts of ``fact``: one false at the
    example point, or one that with the asserts before does not imply ``fact`` (Z3)."""
    earlier = [f.term for f in program.facts[:fact.index]]
    out = []
    for c in candidates:
        if truth_at(c.fact, program.hints()) is not True:
            out.append(f"{c} is not true at the example")
        elif not z3_implies(earlier + list(c.facts), fact.term):
            out.append(f"{c} does not decide the assert")
    return out


def _open_goals(seeds):
    for seed in seeds:
        text = generated_program(seed)
        program = parse(text, f"g{seed}.smt2")
        rows = X.assert_rows(program)
        goal = program.facts[-1]
        if rows[-1].verdict == "?":
            yield seed, program, goal


def test_every_missing_fact_holds_at_the_example_and_decides_the_assert_by_z3():
    asked = found = 0
    for seed, program, goal in _open_goals(range(60)):
        candidates = X.missing_facts(program, goal, seconds=3.0)
        asked += 1
        found += bool(candidates)
        assert problems(program, goal, candidates) == [], seed
    assert asked >= 25  # the generator gives open questions
    assert found >= asked * 0.8, (found, asked)


def test_the_checker_catches_a_fact_false_at_the_example_and_a_too_weak_one():
    seed, program, goal = next(_open_goals(range(60)))
    x = program.symbol("x").term
    value = program.hints()["x"]
    false_at_example = Candidate((T.ge(x, T.const(value + 1)),), "bound")
    too_weak = Candidate((T.ge(x, T.const(value - 1000)),), "bound")
    found = problems(program, goal, [false_at_example, too_weak])
    assert len(found) == 2 and "not true at the example" in found[0] and "does not decide" in found[1]


def test_weakest_bounds_and_residues_on_a_written_program(write_program, capsys):
    text = """(declare-const s0 Int)
(set-info :example-s0 10)
(declare-const a Int)
(set-info :example-a 3)
(declare-const b Int)
(set-info :example-b 7)
(assert (>= s0 2))
(assert (= (+ a b) s0))
(assert (<= a s0))
(assert (= (mod a 4) 3))
(assert (>= (* a b) 2))
"""
    path = write_program("m.smt2", text)
    assert main(["explain", f"{path}:9", "--missing", "--json"]) == 0
    e = json.loads(capsys.readouterr().out)
    assert e["verdict"] == "?" and e["missing"] == [{"facts": ["0 <= b"], "kind": "bound"}]
    assert main(["explain", f"{path}:11", "--missing", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["missing"] == [{"facts": ["0 <= a*b - 1"], "kind": "bound"}]
    assert main(["explain", f"{path}:10", "--missing"]) == 0
    assert "  missing:\n    (a % 4) == 3    (residue)" in capsys.readouterr().out
    program = parse(text, path)
    for line in (9, 10, 11):
        fact = X.fact_at_line(program, line)
        assert problems(program, fact, X.missing_facts(program, fact)) == []


def test_a_decided_assert_has_no_missing_facts_and_a_false_one_none_found(write_program, capsys):
    text = """(declare-const a Int)
(set-info :example-a 3)
(assert (>= a 2))
(assert (>= a 1))
(assert (>= a 5))
"""
    path = write_program("d.smt2", text)
    assert main(["explain", f"{path}:4", "--missing", "--json"]) == 0
    assert "missing" not in json.loads(capsys.readouterr().out)  # decided: nothing is missing
    assert main(["explain", f"{path}:5", "--missing"]) == 0  # false at the example: nothing consistent proves it
    assert "missing: none found" in capsys.readouterr().out
