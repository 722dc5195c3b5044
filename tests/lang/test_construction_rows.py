"""Every row of the constructors' rule table (:data:`absint.lang.terms.CONSTRUCTION`), checked
against the operator table's meaning by brute force and against Z3.

A row rewrites ``kind(*operands)`` before the application is ever a term, so the original
side is computed from the operands' values with :data:`absint.lang.ops.OPS` (the meaning
the evaluator uses), and for Z3 it is written in SMT-LIB from the operands' text. Operands
are drawn from a pool with divisors that can be zero (``x div y``): where the original has a
value, the rewritten term must have the same one; where it has none (SMT-LIB's ``x div 0`` is
an unspecified value), Z3, which reads it as an uninterpreted function, is the check. Each
row must apply to some operands of the pool (a row never reached checks nothing), and a
planted wrong row is caught.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import attrs
import pytest

from absint.lang import terms as T
from absint.lang.evaluator import NotEvaluable, evaluate
from absint.lang.kinds import DIV, ITE, MOD, NOT, POW, RDIV, MAX, MIN
from absint.lang.ops import COMPARISON_KINDS, OPS, Undefined
from absint.lang.printer import to_smtlib
from benchmarks.generators import PRELUDE_TEXT
from z3_check import z3_unsat

x, y = T.var("x", T.INT), T.var("y", T.INT)
r = T.var("r", T.REAL)
b = T.var("b", T.BOOL)

INTS = (x, y, T.const(0), T.const(1), T.const(-1), T.const(3), T.const(-4), T.const(7), T.add(T.scale(x, 6), T.const(5)),
        T.sub(x, y), T.add(x, T.const(2)), T.scale(y, 3), T.div(x, y), T.mul(x, y),
        T.add(T.scale(x, -2), T.scale(y, 4), T.const(6)), T.scale(x, -1))
REALS = (r, T.const(Fraction(1, 2), T.REAL), T.const(Fraction(-5, 2), T.REAL), T.rdiv(T.add(x, T.const(1)), T.const(4)),
         T.add(r, T.const(1)), T.to_real(y), T.add(T.scale(r, -3), T.const(1)))
NUMBERS = INTS + REALS
CONDITIONS = (T.TRUE, T.FALSE, b, T.le(x, y), T.lt(y, x), T.le(y, x), T.eq(x, T.const(1)), T.ne(x, y), T.not_(b),
              T.le(r, T.const(1)), T.lt(r, T.ZERO), T.distinct(*(T.var(f"d{i}", T.INT) for i in range(13))))
POINTS = [{"x": vx, "y": vy, "r": vr, "b": vb}
          for vx, vy in itertools.product(range(-3, 4), range(-2, 3))
          for vr, vb in ((Fraction(vx, 2), vx % 2 == 0), (Fraction(vy, 3), vy % 2 == 1))]
ARITY = {ITE: 3}


def operand_tuples(kind):
    """Operands for ``kind``: pairs and singles of numbers, ite's condition and branches, and
    the prelude's ceiling idiom (``ite(to_real(to_int r) = r, to_int r, to_int r + 1)``)."""
    if kind == ITE:
        floor = T.to_int(r)
        idiom = (T.eq(T.to_real(floor), r), floor, T.add(floor, T.const(1)))
        branches = NUMBERS[:8] + (T.le(x, T.const(0)), b)
        return [idiom, *itertools.product(CONDITIONS, branches, branches)]
    if kind == NOT:
        return [(c,) for c in CONDITIONS]
    pool = INTS if kind in (DIV, MOD) else NUMBERS  # div and mod refuse Real operands first
    return list(itertools.product(pool, repeat=OPS[kind].arity[0]))


def original_value(kind, operands, point):
    """The value of ``kind(*operands)`` at ``point`` by the operator table, or Undefined."""
    op = OPS[kind]
    values = [_value(a, point) for a in operands]
    if op.strict and any(isinstance(v, Undefined) for v in values):
        return Undefined("operand")
    real = any(a.sort is T.REAL for a in operands)
    shell = attrs.make_class("Shell", ["sort"])(T.REAL if real else T.INT)
    try:
        return op.meaning(shell, values)
    except NotEvaluable as e:
        return Undefined(str(e))
    except (ZeroDivisionError, OverflowError) as e:
        return Undefined(str(e))


def _value(t, point):
    try:
        return evaluate(t, point)
    except NotEvaluable as e:
        return Undefined(str(e))


def applications(row):
    """Each (operands, result) the row rewrites among the pool's operand tuples."""
    out = []
    for operands in operand_tuples(row.kind):
        try:
            result = row.apply(*_promoted(row.kind, operands))
        except TypeError:  # a sort the constructor refuses before any row
            continue
        if result is not None:
            out.append((operands, result))
    return out


def _promoted(kind, operands):
    if kind in (MIN, MAX, RDIV) or (kind == ITE and all(a.sort is not T.BOOL for a in operands[1:])):
        head = operands[:1] if kind == ITE else ()
        rest = operands[1:] if kind == ITE else operands
        if any(a.sort is T.REAL for a in rest) or kind == RDIV:
            rest = tuple(T.to_real(a) for a in rest)
        return head + tuple(rest)
    return operands


def brute_force_failures(row):
    failures = []
    for operands, result in applications(row):
        for point in POINTS:
            want = original_value(row.kind, operands, point)
            got = _value(result, point)
            if isinstance(want, Undefined):
                continue  # an unspecified x div 0 may be any value: Z3's check covers those
            if isinstance(got, Undefined) or want != got:
                failures.append((operands, result, point))
                break
    return failures


def smtlib_original(kind, operands) -> str:
    """The application in SMT-LIB; a comparison's one operand is its difference with 0."""
    if kind in COMPARISON_KINDS:
        zero = "0.0" if operands[0].sort is T.REAL else "0"
        return f"({OPS[kind].smtlib} {to_smtlib(operands[0])} {zero})"
    return f"({OPS[kind].smtlib} {' '.join(to_smtlib(a) for a in operands)})"


def z3_disagreements(row, limit: int = 6):
    """The first ``limit`` applications whose two sides Z3 can tell apart."""
    out = []
    declarations = "(declare-const x Int)(declare-const y Int)(declare-const r Real)(declare-const b Bool)\n"
    declarations += "".join(f"(declare-const d{i} Int)" for i in range(13))
    for operands, result in applications(row)[:limit]:
        text = PRELUDE_TEXT + declarations + f"(assert (not (= {smtlib_original(row.kind, operands)} {to_smtlib(result)})))"
        if not z3_unsat(text):
            out.append((operands, result))
    return out


@pytest.mark.parametrize("row", T.CONSTRUCTION, ids=lambda row: row.name)
def test_row_applies_and_agrees_with_the_meaning(row):
    assert applications(row), f"no operand of the pool reaches {row.name!r}"
    assert brute_force_failures(row) == []


@pytest.mark.parametrize("row", [r for r in T.CONSTRUCTION if r.kind != POW], ids=lambda row: row.name)
def test_row_agrees_with_z3(row):
    assert z3_disagreements(row) == []


def test_powers_agree_with_z3_where_it_answers():
    """Z3 reads ``^`` as a non-linear function it may not decide; the natural powers it does."""
    text = PRELUDE_TEXT + "(declare-const x Int)(declare-const y Int)\n"
    text += f"(assert (not (= (^ (+ x y) 3) {to_smtlib(T.power(T.add(x, y), T.const(3)))})))"
    assert z3_unsat(text)


def test_every_kind_with_rows_is_built_through_them():
    """Each kind's rows are the ones its constructor runs: the engine's index matches the table."""
    for kind in {row.kind for row in T.CONSTRUCTION}:
        assert T._ROWS_BY_KIND[kind] == tuple(row for row in T.CONSTRUCTION if row.kind == kind)


PLANTED = (
    T.Rewrite("planted: Euclidean quotient read as truncation", DIV,
              lambda a, d: T.const(int(a.data / d.data)) if a.kind == d.kind == T.CONST and d.data else None),
    T.Rewrite("planted: the remainder keeps the divisor's sign", MOD,
              lambda a, d: T.const(a.data % d.data) if a.kind == d.kind == T.CONST and d.data else None),
    T.Rewrite("planted: min of a constant apart picks the first", MIN,
              lambda a, c: a if T.sub(a, c).kind == T.CONST else None),
    T.Rewrite("planted: an integer inequality divided by its gcd, rounding down", T.LE,
              lambda d: T._divided(T.LE, d, g, d.data[1] // g)
              if d.kind == T.LIN and d.sort is T.INT and (g := math.gcd(*d.data[0])) > 1 else None),
    T.Rewrite("planted: the negation of an integer inequality keeps its boundary", NOT,
              lambda t: T.le(T.ZERO, t.args[0]) if t.kind == T.LE and t.args[0].sort is T.INT else None),
)


@pytest.mark.parametrize("row", PLANTED, ids=lambda row: row.name)
def test_a_planted_wrong_row_is_caught(row):
    assert brute_force_failures(row)
    assert z3_disagreements(row, limit=200)


def test_the_power_rows_fold_only_exact_integers():
    assert T.power(T.const(2), T.const(-1)).kind == POW
    assert T.power(T.const(4, T.REAL), T.const(Fraction(1, 2), T.REAL)) is T.const(2, T.REAL)
    assert T.mod(T.add(T.scale(x, 6), T.const(5)), T.const(-4)) is T.mod(T.add(T.scale(x, 2), T.const(1)), T.const(4))
    assert T.div(x, T.const(0)).kind == DIV and T.mod(x, T.const(0)).kind == MOD
