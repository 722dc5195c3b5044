"""Concrete evaluation with exact SMT-LIB semantics: the oracle every soundness test uses.

Each kind's meaning is its row of the operator table (:mod:`absint.lang.ops`):
``div``/``mod`` are Euclidean, ``to_int`` is floor, ``/`` is exact rational division,
``^`` is evaluated where the result is rational. Division by zero and irrational powers
are *not evaluable* (SMT-LIB leaves them unspecified), which is reported with
:class:`NotEvaluable` rather than guessed.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping

from absint.lang.dag import Node, subterms
from absint.lang.kinds import VAR
from absint.lang.numerals import brief
from absint.lang.ops import OPS, NotEvaluable, Undefined, Value
from absint.lang.sorts import INT

__all__ = ["NotEvaluable", "Value", "evaluate", "truth_at"]


def evaluate(term: Node, assignment: Mapping[str, Value], memo: dict[int, Value] | None = None) -> Value:
    """The value of ``term`` where each variable takes ``assignment[name]``.

    ``memo`` may be shared between calls at the same assignment (terms are DAGs).
    """
    if memo is None:
        memo = {}
    for t in subterms(term, skip=memo):
        memo[t.id] = _evaluate_node(t, memo, assignment)
    v = memo[term.id]
    if isinstance(v, Undefined):
        raise NotEvaluable(v.reason)
    return v


def truth_at(term: Node, point: Mapping[str, Value], memo: dict[int, Value] | None = None) -> bool | None:
    """Whether the Bool ``term`` holds at ``point``; None where it has no value there
    (a symbol without a value, such as an unbacked size, or ``x div 0``).

    The one way the project checks a verdict, a fact or a model at a concrete point.
    """
    try:
        return evaluate(term, point, memo) is True
    except NotEvaluable:
        return None


def _evaluate_node(t: Node, memo: dict[int, Value], env: Mapping[str, Value]) -> Value:
    if t.kind == VAR:
        return _variable(t, env)
    op = OPS[t.kind]
    values = [memo[a.id] for a in t.args]
    if op.strict:
        for v in values:
            if isinstance(v, Undefined):
                return v
    try:
        return op.meaning(t, values)
    except NotEvaluable as e:
        return Undefined(str(e))


def _variable(t: Node, env: Mapping[str, Value]) -> Value:
    try:
        v = env[t.data]
    except KeyError:
        return Undefined(f"no value for symbol {t.data}")
    if t.sort is INT:
        if isinstance(v, bool) or int(v) != v:
            return Undefined(f"{t.data} is Int but has value {brief(v)}")
        return int(v)
    return Fraction(v) if not isinstance(v, bool) else v
