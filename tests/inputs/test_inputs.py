"""``absint inputs``: the description of valid inputs is equivalent to the asserts.

Equivalence is checked two ways: by Z3 (the description implies every assert, and the
asserts' conjunction implies the description) on generated and hand-written programs,
and by brute force with the evaluator over a box on random programs (hypothesis). The
description is read back from its own SMT-LIB text, so printing is checked too.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from absint.inputs.description import describe_program
from absint.lang import terms as T
from absint.lang.evaluator import truth_at
from absint.lang.printer import symbol as smt_symbol, to_smtlib
from absint.readers.smtlib import parse
from benchmarks.generators import PRELUDE_TEXT, build
from z3_check import z3_unsat

GENERATED = [(kind, n, seed) for kind, n in (("conv", 3), ("reshape", 2), ("attention", 1), ("jagged", 5),
                                             ("chain", 8), ("pool_skip", 2)) for seed in range(3)]

#: parity guards: h mod 4 in {0, 3}, and g odd through (g - 1) mod 2 = 0
PARITY = PRELUDE_TEXT + """
(declare-const h Int)
(set-info :example-h 8)
(declare-const g Int)
(set-info :example-g 5)
(assert (>= h 1))
(assert (<= h 100))
(assert (not (= (mod h 4) 1)))
(assert (not (= (mod h 4) 2)))
(assert (= (mod (- g 1) 2) 0))
(assert (>= g 0))
"""

#: a later fact makes earlier ones redundant; a specialised symbol; a derived one
SPECIAL = PRELUDE_TEXT + """
(declare-const a Int)
(set-info :example-a 3)
(declare-const b Int)
(set-info :example-b 7)
(declare-const c Int)
(set-info :example-c 4)
(assert (>= a 0))
(assert (<= a 10))
(assert (= b (+ (* 2 a) 1)))
(assert (= a 3))
(assert (>= c 2))
(assert (not (= c 2)))
(assert (<= (+ c a) 50))
(assert (>= (div (+ c 1) 2) 2))
"""

CONTRADICTORY = PRELUDE_TEXT + """
(declare-const s0 Int)
(set-info :example-s0 3)
(declare-const u0 Int)
(assert (>= u0 5))
(assert (<= u0 s0))
(assert (<= s0 4))
"""

#: a Real-sorted assert next to Int ones: kept as a relation, still exact
WITH_REAL = PRELUDE_TEXT + """
(declare-const s Int)
(set-info :example-s 10)
(assert (>= s 2))
(assert (<= (to_real s) (/ (to_real (* s s)) 3.0)))
(assert (>= (ceil (/ (to_real s) 2.0)) 2))
"""

HAND_WRITTEN = {"parity": PARITY, "special": SPECIAL, "real": WITH_REAL}


def declarations(program) -> str:
    return "".join(f"(declare-const {smt_symbol(s.name)} {s.sort.value})\n" for s in program.symbols)


def read_back(program, smtlib: list[str]):
    """The description's SMT-LIB constraints as facts of a program (printing checked)."""
    text = PRELUDE_TEXT + declarations(program) + "".join(f"(assert {c})\n" for c in smtlib)
    return [f.term for f in parse(text, "description").facts]


def z3_equivalent(program, smtlib: list[str], timeout_ms: int = 20000) -> bool:
    """Z3: the asserts' conjunction and the description's are equivalent, asked one conjunct
    at a time (the asserts imply each constraint of the description, and the description
    each assert): the same question as one equivalence, in queries small enough that Z3's
    time does not depend on how the terms happen to be ordered in this process."""
    head = PRELUDE_TEXT + declarations(program)
    asserts = [to_smtlib(f.term) for f in program.facts]
    both_ways = ((asserts, smtlib), (smtlib, asserts))
    return all(z3_unsat(head + "".join(f"(assert {p})\n" for p in premises) + f"(assert (not {c}))\n", timeout_ms)
               for premises, conclusions in both_ways for c in conclusions)


def described(text: str, name: str = "p"):
    program = parse(text, name)
    return program, describe_program(program)


@pytest.mark.parametrize("kind,n,seed", GENERATED)
def test_generated_descriptions_are_z3_equivalent(kind, n, seed):
    program, d = described(build(kind, n, seed).text)
    assert d.exact and d.contradiction is None
    assert d.size < len(program.facts)
    assert z3_equivalent(program, d.smtlib())
    hints = program.hints()
    for c in read_back(program, d.smtlib()):  # the example point is a valid input
        assert truth_at(c, hints) in (True, None)


@pytest.mark.parametrize("name", sorted(HAND_WRITTEN))
def test_hand_written_descriptions_are_z3_equivalent(name):
    program, d = described(HAND_WRITTEN[name])
    assert d.exact
    assert z3_equivalent(program, d.smtlib())


def test_parity_guards_are_residue_sets():
    _, d = described(PARITY)
    ranges = {r.symbol: r for r in d.ranges}
    assert (ranges["h"].lo, ranges["h"].hi, ranges["h"].modulus, ranges["h"].residues) == (1, 100, 4, (0, 3))
    assert (ranges["g"].modulus, ranges["g"].residues) == (2, (1,))
    assert d.relations == []


def test_pooled_skip_connections_are_a_residue_set():
    """Three ceil-mode pools whose skips must match: H mod 8 in {0, 7} (the example)."""
    _, d = described(build("pool_skip", 3, 0).text)
    h = {r.symbol: r for r in d.ranges}["H"]
    assert (h.lo, h.modulus, h.residues) == (2, 8, (0, 7))
    assert d.specialized == {"C": 3}
    # the product's factor order follows term ids, which depend on what the process built before
    assert [(n, repr(e)) for n, e in d.equalities] in ([("x_stride0", "(* 3 (* H W))")],
                                                       [("x_stride0", "(* 3 (* W H))")])


def test_specialised_derived_and_redundant():
    _, d = described(SPECIAL)
    # b = 2a + 1 with a = 3 folds to b = 7; c >= 2, c != 2 and (c + 1) div 2 >= 2 is c >= 3
    assert d.specialized == {"a": 3, "b": 7}
    assert d.equalities == []
    ranges = {r.symbol: r for r in d.ranges}
    assert ranges["c"].lo == 3 and ranges["c"].hi == 47
    assert "a" not in ranges  # 0 <= a <= 10 is implied by a = 3
    assert d.relations == []


def test_contradiction_is_reported_with_its_index():
    _, d = described(CONTRADICTORY)
    assert d.contradiction == 2
    assert d.smtlib() == ["false"] and d.constraints() == [T.FALSE]


def test_no_constraint_is_implied_by_the_others():
    from absint.inputs.description import RELATIONAL
    from absint.reasoning.reasoner import Reasoner

    for kind, n, seed in GENERATED[::3]:
        _, d = described(build(kind, n, seed).text)
        for i, c in enumerate(d.constraints()):
            r = Reasoner(relational=RELATIONAL)  # the layers the description is built with
            for j, other in enumerate(d.constraints()):
                if j != i:
                    r.assume(other)
            assert r.decide(c).truth.name != "TRUE", (kind, to_smtlib(c))


# ------------------------------------------------------------------ random programs, brute force

VARS = ("x", "y")
BOX = (-6, 14)


@st.composite
def constraint(draw) -> str:
    v, w = draw(st.permutations(VARS))[:2]
    c = draw(st.integers(-8, 16))
    m = draw(st.integers(2, 6))
    r = draw(st.integers(0, m - 1))
    return draw(st.sampled_from([
        f"(<= {v} {c})", f"(>= {v} {c})", f"(not (= {v} {c}))", f"(= (mod {v} {m}) {r})",
        f"(not (= (mod {v} {m}) {r}))", f"(<= (+ {v} {w}) {c})", f"(= {v} (+ {w} {c}))",
        f"(<= (* {v} {w}) {c})", f"(>= (div (+ {v} {c}) {m}) {r})", f"(= {v} {c})",
        f"(or (= (mod {v} {m}) {r}) (<= {v} {c}))", f"(<= {v} {w})", f"(= (mod (+ {v} {c}) {m}) {r})",
    ]))


def random_program(cs: list[str]) -> str:
    head = PRELUDE_TEXT + "(declare-const x Int)\n(set-info :example-x 3)\n(declare-const y Int)\n"
    box = "".join(f"(assert (>= {v} {BOX[0]}))\n(assert (<= {v} {BOX[1]}))\n" for v in VARS)
    return head + box + "".join(f"(assert {c})\n" for c in cs)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(constraint(), min_size=1, max_size=6))
def test_random_descriptions_agree_with_the_asserts_everywhere(cs):
    with T.fresh_table():
        program, d = described(random_program(cs))
        asserts = [f.term for f in program.facts]
        desc = read_back(program, d.smtlib())
        for x, y in itertools.product(range(BOX[0] - 3, BOX[1] + 4), repeat=2):
            point = {"x": x, "y": y}
            memo: dict = {}
            a = all(truth_at(t, point, memo) for t in asserts)
            memo = {}
            assert a == all(truth_at(t, point, memo) for t in desc), (point, d.smtlib())
