"""A reasoner's verdicts checked against every point of a box and against Z3: what the
tests of a decision step (max/min expansion, quotient bounds) share."""

from __future__ import annotations

from absint.lang import terms as T
from absint.lang.evaluator import NotEvaluable, evaluate
from absint.lang.printer import to_smtlib
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Truth
from z3_check import z3_implies


def value_at(t, point):
    """``t`` at ``point``, or None where it has no value (a division by zero)."""
    try:
        return evaluate(t, point)
    except NotEvaluable:
        return None


def z3_agrees(facts, claim) -> bool:
    """Z3 proves ``claim`` from ``facts``; True when Z3 gives no answer (no evidence)."""
    try:
        return z3_implies(facts, claim, timeout_ms=3000)
    except AssertionError:
        return True


def check_verdicts(facts, guard, points) -> Truth:
    """The reasoner's verdict on ``guard`` (no case split: the layers and their expansions
    alone) holds at every point of ``points`` that satisfies the facts, and Z3 agrees."""
    r = Reasoner(cases=None, witnesses=False)  # the step itself asked of open guards too: its errors show there
    for f in facts:
        r.assume(f)
    v = r.decide(guard).truth
    if v is Truth.UNKNOWN or r.contradiction:
        return v
    assert_holds(facts, guard, v, points)
    return v


def assert_holds(facts, guard, truth: Truth, points) -> None:
    """A TRUE or FALSE verdict on ``guard`` holds at every point of ``points`` that
    satisfies the facts (where ``guard`` has a value), and Z3 agrees over all integers."""
    expected = truth is Truth.TRUE
    for p in points:
        if all(value_at(f, p) is True for f in facts):
            got = value_at(guard, p)
            assert got is None or got is expected, f"{truth} for {to_smtlib(guard)}, but at {p} it is {got}"
    assert z3_agrees(facts, guard if expected else T.not_(guard)), f"{truth} for {to_smtlib(guard)} refuted by Z3"
