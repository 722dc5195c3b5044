"""The operator table: every kind of term declared once.

A row says what a term of its kind *is*: how many operands it takes and of which sorts,
whether it is an atom of the linear normal form, how SMT-LIB and the readable infix
printer spell it, how the reader combines an application's operands, which canonical
constructor of :mod:`absint.lang.terms` builds it, and its concrete meaning (SMT-LIB's:
Euclidean ``div``/``mod``, ``to_int`` is floor, exact rational ``/``).

The reader (:mod:`absint.readers.smtlib`), the printer (:mod:`absint.lang.printer`), the
evaluator (:mod:`absint.lang.evaluator`) and the constructors' ``rebuild`` are driven by
it. What implements a kind elsewhere (the domains' transfer functions, the sympy bridge,
the polyhedral links) is checked against it by ``tests/project/test_operator_table.py``, which
fails when a kind lacks a transfer function, a soundness case or a translation.

This module imports no term code: the printer reads it, and terms print themselves.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable, Mapping, Sequence

import attrs

from absint.lang.kinds import Kind
from absint.lang.numerals import brief
from domains.bounds import euclid_div, euclid_mod, pow_exact, power_too_large

Value = int | Fraction | bool


class NotEvaluable(ValueError):
    """The term has no defined value at this point (``x div 0``, ``sqrt 2``, missing symbol)."""


class Undefined:
    """A value that does not exist (SMT-LIB leaves ``x div 0`` unspecified); a non-strict
    operator (``ite``, ``and``, ``or``) may still not depend on it."""

    __slots__ = ("reason",)

    def __init__(self, reason: str):
        self.reason = reason


# how tightly an infix rendering binds: an operand looser than its place needs parentheses
OR, AND, NOT, COMPARE, SUM, DIVMOD, PRODUCT, POWER, ATOM = range(9)


@attrs.frozen(slots=True)
class Infix:
    """How :func:`absint.lang.printer.to_infix` writes a kind: ``style`` picks the renderer,
    ``symbol`` is the operator or function name, ``binds`` its precedence."""

    style: str  # number, name, sum, product, divmod, binary, call, compare, not, junction
    symbol: str = ""
    binds: int = ATOM


Meaning = Callable[[object, Sequence[Value]], Value]


@attrs.frozen(slots=True)
class Op:
    """One kind of term (see the module docstring)."""

    kind: Kind
    signature: str
    arity: tuple[int, int | None]
    atom: bool
    smtlib: str | None
    infix: Infix
    constructor: str | None
    reading: str | None
    meaning: Meaning | None
    strict: bool = True


# ---------------------------------------------------------------- concrete meanings


def _divisor(y: Value) -> Value:
    if y == 0:
        raise NotEvaluable("division by zero")
    return y


def _lin(t, v):
    coefs, c = t.data
    return c + sum(k * x for k, x in zip(coefs, v))


def _product(t, v):
    out = 1
    for x in v:
        out *= x
    return out


def _power(t, v):
    b, e = v
    if power_too_large(b, e):
        raise NotEvaluable(f"{brief(b)} ^ {brief(e)} is too large to compute")
    r = pow_exact(b, e)
    if r is None:
        raise NotEvaluable(f"{brief(b)} ^ {brief(e)} is not rational")
    if not t.sort.real:
        if r.denominator != 1:
            raise NotEvaluable(f"{brief(b)} ^ {brief(e)} is not an integer")
        return int(r)
    return Fraction(r)


def _ite(t, v):
    c, a, b = v
    if isinstance(c, Undefined):
        return c
    return a if c else b


def _junction(absorbing: bool) -> Meaning:
    """``and`` (absorbing False) / ``or`` (absorbing True): decided by one absorbing operand
    even where another has no value."""

    def meaning(t, v):
        undefined = None
        for x in v:
            if x is absorbing:
                return absorbing
            if isinstance(x, Undefined):
                undefined = x
        return undefined if undefined is not None else not absorbing

    return meaning


def uninterpreted(t, v):
    """An opaque function (PyTorch's ``OpaqueUnaryFn_log2``: float math) is any function
    to absint: only ``f(a) = f(a)`` is known, so no value is assumed at any point."""
    raise NotEvaluable(f"{t.data} is an opaque function: it has no value absint may assume")


# ---------------------------------------------------------------- the table

_NUM = "Int|Real"

OPS: Mapping[Kind, Op] = {op.kind: op for op in (
    Op(Kind.CONST, "-> any", (0, 0), False, None, Infix("number"), "const", None, lambda t, v: t.data),
    Op(Kind.VAR, "-> any", (0, 0), True, None, Infix("name"), "var", None, None),
    Op(Kind.LIN, f"{_NUM}+ -> {_NUM}", (1, None), False, "+", Infix("sum", "+", SUM), "add", "nary", _lin),
    Op(Kind.MUL, f"{_NUM}{_NUM}+ -> {_NUM}", (2, None), True, "*", Infix("product", "*", PRODUCT), "mul", "nary",
       _product),
    Op(Kind.DIV, "Int Int -> Int", (2, 2), True, "div", Infix("divmod", "//", DIVMOD), "div", "fold",
       lambda t, v: euclid_div(v[0], _divisor(v[1]))),
    Op(Kind.MOD, "Int Int -> Int", (2, 2), True, "mod", Infix("divmod", "%", DIVMOD), "mod", "fixed",
       lambda t, v: euclid_mod(v[0], _divisor(v[1]))),
    Op(Kind.RDIV, "Real Real -> Real", (2, 2), True, "/", Infix("binary", "/", DIVMOD), "rdiv", "fold",
       lambda t, v: Fraction(v[0]) / _divisor(v[1])),
    Op(Kind.POW, f"{_NUM} {_NUM} -> {_NUM}", (2, 2), True, "^", Infix("binary", "**", POWER), "power", "fixed",
       _power),
    Op(Kind.TO_INT, "Real -> Int", (1, 1), True, "to_int", Infix("call", "floor"), "to_int", "fixed",
       lambda t, v: math.floor(v[0])),
    Op(Kind.CEIL, "Real -> Int", (1, 1), True, "ceil", Infix("call", "ceil"), "ceil", None,
       lambda t, v: math.ceil(v[0])),
    Op(Kind.TO_REAL, "Int -> Real", (1, 1), True, "to_real", Infix("call", "to_real"), "to_real", "fixed",
       lambda t, v: Fraction(v[0])),
    Op(Kind.MIN, f"{_NUM} {_NUM} -> {_NUM}", (2, 2), True, "min2", Infix("call", "min"), "minimum", None,
       lambda t, v: min(v)),
    Op(Kind.MAX, f"{_NUM} {_NUM} -> {_NUM}", (2, 2), True, "max2", Infix("call", "max"), "maximum", None,
       lambda t, v: max(v)),
    Op(Kind.FN, "Real+ -> Real", (1, None), True, None, Infix("call"), "apply", None, uninterpreted),
    Op(Kind.DEF, f"{_NUM}+ -> {_NUM}", (1, 2), True, None, Infix("definition"), "define", None,
       lambda t, v: v[0]),
    Op(Kind.ITE, f"Bool {_NUM} {_NUM} -> {_NUM}", (3, 3), True, "ite", Infix("call", "ite"), "ite", "fixed",
       _ite, strict=False),
    Op(Kind.LE, f"{_NUM} -> Bool", (1, 1), False, "<=", Infix("compare", "<=", COMPARE), "le", "chain",
       lambda t, v: v[0] <= 0),
    Op(Kind.LT, f"{_NUM} -> Bool", (1, 1), False, "<", Infix("compare", "<", COMPARE), "lt", "chain",
       lambda t, v: v[0] < 0),
    Op(Kind.EQ, f"{_NUM} -> Bool", (1, 1), False, "=", Infix("compare", "==", COMPARE), "eq", "chain",
       lambda t, v: v[0] == 0),
    Op(Kind.NE, f"{_NUM} -> Bool", (1, 1), False, "distinct", Infix("compare", "!=", COMPARE), "ne", None,
       lambda t, v: v[0] != 0),
    Op(Kind.DISTINCT, "any any+ -> Bool", (2, None), False, "distinct", Infix("call", "distinct"), "distinct",
       "nary", lambda t, v: len(set(v)) == len(v)),
    Op(Kind.NOT, "Bool -> Bool", (1, 1), False, "not", Infix("not", "not", NOT), "not_", "fixed",
       lambda t, v: not v[0]),
    Op(Kind.AND, "Bool Bool+ -> Bool", (2, None), False, "and", Infix("junction", "and", AND), "and_", "nary",
       _junction(False), strict=False),
    Op(Kind.OR, "Bool Bool+ -> Bool", (2, None), False, "or", Infix("junction", "or", OR), "or_", "nary",
       _junction(True), strict=False),
)}

#: kinds that are atoms of the linear normal form (variables and nonlinear applications)
ATOM_KINDS = frozenset(k for k, op in OPS.items() if op.atom)
#: comparisons against zero: ``t <= 0``, ``t < 0``, ``t = 0``, ``t != 0``
COMPARISON_KINDS = frozenset(k for k, op in OPS.items() if op.infix.style == "compare")
