"""What the compiler API accepts, checked at the door: expressions, symbols, hints, budgets.

Every check raises a ``TypeError`` or ``ValueError`` that names the argument, before any
fact or question reaches the reasoner. Strings are refused, never parsed: ``sympify``
evaluates Python code, and a compiler's expressions are sympy objects already.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Iterable

import sympy

from absint.lang import terms as T
from absint.lang.terms import INT, Sort, Term


def expression(expr, what: str) -> sympy.Basic:
    """``expr`` as a sympy expression: sympy objects, Python ints, Fractions and bools."""
    if isinstance(expr, sympy.Basic):
        return expr
    if isinstance(expr, bool):
        return sympy.true if expr else sympy.false
    if isinstance(expr, int):
        return sympy.Integer(expr)
    if isinstance(expr, Fraction):
        return sympy.Rational(expr.numerator, expr.denominator)
    if isinstance(expr, str):
        raise TypeError(f"{what} takes a sympy expression, not the string {expr[:60]!r}: strings are not "
                        "parsed (sympify would run them as Python code)")
    raise TypeError(f"{what} takes a sympy expression, got {type(expr).__name__}")


def symbol_names(items: Iterable, what: str) -> set[str]:
    """The names of sympy symbols (or names) given as ``in_terms_of``."""
    names = set()
    for s in items:
        if isinstance(s, sympy.Symbol):
            names.add(s.name)
        elif isinstance(s, str):
            names.add(s)
        else:
            raise TypeError(f"{what}: expected sympy symbols or names, got {type(s).__name__} {s!r}")
    return names


def hint_value(hint, sort: Sort, name: str) -> int | Fraction:
    """An example value as the symbol's sort holds it; a non-integral one for an Int symbol
    is an error (it would silently become another value)."""
    if isinstance(hint, bool) or not isinstance(hint, (int, float, Fraction, sympy.Rational)):
        raise TypeError(f"the hint of {name} must be a number, got {type(hint).__name__}")
    if isinstance(hint, float) and not math.isfinite(hint):
        raise ValueError(f"the hint of {name} must be finite, got {hint}")
    value = Fraction(int(hint.p), int(hint.q)) if isinstance(hint, sympy.Rational) else Fraction(hint)
    if sort is INT:
        if value.denominator != 1:
            raise ValueError(f"{name} is an integer symbol; its hint {hint} is not an integer")
        return value.numerator
    return value


def budget_value(budget) -> int | None:
    """A propagation budget: None (the default) or a positive number of steps."""
    if budget is None:
        return None
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise TypeError(f"budget must be a positive int (propagation steps per fact), got {type(budget).__name__}")
    if budget < 1:
        raise ValueError(f"budget must be at least 1 propagation step per fact, got {budget}")
    return budget


def assumption_facts(symbol: sympy.Symbol, x: Term) -> list[tuple[object, Term]]:
    """The sympy assumptions of a symbol as (sympy, term) facts; sympy builds the caller's
    expressions under them (``Ge(s, 1)`` is ``True`` for a positive ``s``)."""
    zero = T.const(0, x.sort)
    out = []

    def fact(rel, term):
        out.append((rel(symbol, 0, evaluate=False), term))

    if symbol.is_positive:
        fact(sympy.Gt, T.gt(x, zero))
    elif symbol.is_nonnegative:
        fact(sympy.Ge, T.ge(x, zero))
    if symbol.is_negative:
        fact(sympy.Lt, T.lt(x, zero))
    elif symbol.is_nonpositive:
        fact(sympy.Le, T.le(x, zero))
    if symbol.is_zero is False and not (symbol.is_positive or symbol.is_negative):
        fact(sympy.Ne, T.ne(x, zero))
    if x.sort is INT and (symbol.is_even or symbol.is_odd):
        parity = 0 if symbol.is_even else 1
        out.append((sympy.Eq(sympy.Mod(symbol, 2), parity, evaluate=False),
                    T.eq(T.mod(x, T.const(2)), T.const(parity))))
    return out


def finite(v):
    """A bound as given, or None for no bound (None, +-oo, torch's int_oo)."""
    if v is None:
        return None
    if isinstance(v, (int,)) and not isinstance(v, bool):
        return v
    if isinstance(v, float) and math.isinf(v):
        return None
    v = sympy.sympify(v)
    if v.is_infinite or type(v).__name__ in ("IntInfinity", "NegativeIntInfinity"):
        return None
    return v
