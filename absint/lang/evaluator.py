"""Concrete evaluation with exact SMT-LIB semantics: the oracle every soundness test uses.

``div``/``mod`` are Euclidean, ``to_int`` is floor, ``/`` is exact rational
division; ``^`` is evaluated where the result is rational. Division by zero and
irrational powers are *not evaluable* (SMT-LIB leaves them unspecified), which
is reported with :class:`NotEvaluable` rather than guessed.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable, Mapping

from absint.lang.terms import INT, Number, Term, euclid_div, euclid_mod, pow_exact

Value = int | Fraction | bool


class NotEvaluable(ValueError):
    """The term has no defined value at this point (``x div 0``, ``sqrt 2``, missing symbol)."""


def evaluate(term: Term, assignment: Mapping[str, Value], memo: dict[int, Value] | None = None) -> Value:
    """The value of ``term`` where each variable takes ``assignment[name]``.

    ``memo`` may be shared between calls at the same assignment (terms are DAGs).
    """
    if memo is None:
        memo = {}
    for t in _postorder(term, memo):
        memo[t.id] = _evaluate_node(t, memo, assignment)
    v = memo[term.id]
    if isinstance(v, _Undefined):
        raise NotEvaluable(v.reason)
    return v


class _Undefined:
    """Marks a sub-term without a value; ``ite``/``and``/``or`` may still not depend on it."""

    __slots__ = ("reason",)

    def __init__(self, reason: str):
        self.reason = reason


def _evaluate_node(t: Term, memo: dict[int, Value], env: Mapping[str, Value]) -> Value:
    undefined = [memo[a.id] for a in t.args if isinstance(memo[a.id], _Undefined)]
    if undefined:
        k = t.kind
        if k == "ite":
            c, a, b = (memo[x.id] for x in t.args)
            if isinstance(c, _Undefined):
                return c
            return a if c else b
        if k in ("and", "or"):
            absorbing = k == "or"
            if any(memo[a.id] is absorbing for a in t.args):
                return absorbing
        return undefined[0]
    try:
        return _EVAL[t.kind](t, memo, env)
    except NotEvaluable as e:
        return _Undefined(str(e))


def _postorder(root: Term, memo: dict[int, Value]) -> list[Term]:
    """Unevaluated sub-terms, children first (iterative: term DAGs can be deep)."""
    out: list[Term] = []
    seen: set[int] = set()
    stack = [(root, False)]
    while stack:
        t, expanded = stack.pop()
        if expanded:
            out.append(t)
            continue
        if t.id in memo or t.id in seen:
            continue
        seen.add(t.id)
        stack.append((t, True))
        stack.extend((a, False) for a in t.args)
    return out


def _var(t: Term, memo, env) -> Value:
    try:
        v = env[t.data]
    except KeyError:
        raise NotEvaluable(f"no value for symbol {t.data}") from None
    if t.sort is INT:
        if isinstance(v, bool) or int(v) != v:
            raise NotEvaluable(f"{t.data} is Int but has value {v}")
        return int(v)
    return Fraction(v) if not isinstance(v, bool) else v


def _lin(t: Term, memo, env) -> Number:
    coefs, c = t.data
    return c + sum(v * memo[a.id] for a, v in zip(t.args, coefs))


def _mul(t: Term, memo, env) -> Number:
    out: Number = 1
    for a in t.args:
        out *= memo[a.id]
    return out


def _divisor(t: Term, memo) -> int:
    y = memo[t.args[1].id]
    if y == 0:
        raise NotEvaluable(f"division by zero in {t!r}")
    return y


def _div(t, memo, env):
    return euclid_div(memo[t.args[0].id], _divisor(t, memo))


def _mod(t, memo, env):
    return euclid_mod(memo[t.args[0].id], _divisor(t, memo))


def _rdiv(t, memo, env):
    return Fraction(memo[t.args[0].id]) / _divisor(t, memo)


def _pow(t, memo, env):
    b, e = memo[t.args[0].id], memo[t.args[1].id]
    v = pow_exact(b, e)
    if v is None:
        raise NotEvaluable(f"{b} ^ {e} is not rational")
    if t.sort is INT:
        if v.denominator != 1:
            raise NotEvaluable(f"{b} ^ {e} is not an integer")
        return int(v)
    return Fraction(v)


def _min(t, memo, env):
    return min(memo[a.id] for a in t.args)


def _max(t, memo, env):
    return max(memo[a.id] for a in t.args)


def _ite(t, memo, env):
    c, a, b = t.args
    return memo[a.id] if memo[c.id] else memo[b.id]


_EVAL: dict[str, Callable[[Term, dict, Mapping], Value]] = {
    "const": lambda t, m, e: t.data,
    "var": _var,
    "lin": _lin,
    "mul": _mul,
    "div": _div,
    "mod": _mod,
    "rdiv": _rdiv,
    "pow": _pow,
    "to_int": lambda t, m, e: math.floor(m[t.args[0].id]),
    "ceil": lambda t, m, e: math.ceil(m[t.args[0].id]),
    "to_real": lambda t, m, e: Fraction(m[t.args[0].id]),
    "min": _min,
    "max": _max,
    "ite": _ite,
    "le": lambda t, m, e: m[t.args[0].id] <= 0,
    "lt": lambda t, m, e: m[t.args[0].id] < 0,
    "eq": lambda t, m, e: m[t.args[0].id] == 0,
    "ne": lambda t, m, e: m[t.args[0].id] != 0,
    "not": lambda t, m, e: not m[t.args[0].id],
    "and": lambda t, m, e: all(m[a.id] for a in t.args),
    "or": lambda t, m, e: any(m[a.id] for a in t.args),
}


def truth_at(term: Term, point: Mapping[str, Value], memo: dict[int, Value] | None = None) -> bool | None:
    """Whether the Bool ``term`` holds at ``point``; None where it has no value there
    (a symbol without a value, such as an unbacked size, or ``x div 0``).

    The one way the project checks a verdict, a fact or a model at a concrete point.
    """
    try:
        return evaluate(term, point, memo) is True
    except NotEvaluable:
        return None
