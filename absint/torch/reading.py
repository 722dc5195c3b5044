"""What absint reads of a ShapeEnv, by attribute name only (no torch import).

A ShapeEnv-like object is anything with the attributes PyTorch 2.13's ``ShapeEnv`` has:
``var_to_range`` (symbol -> ``ValueRanges`` with ``lower``/``upper``), ``backed_var_to_val``
(or the older ``var_to_val``), ``replacements``, ``guards`` (objects with ``.expr``),
``deferred_runtime_asserts`` (key -> list of objects with ``.expr``). Reading by name
keeps the bridge testable against a fake, and makes a missing attribute an
``AttributeError`` at the first sync instead of a silent wrong answer.
"""

from __future__ import annotations

from typing import Any, Iterator

import sympy

_INFINITE_NAMES = ("IntInfinity", "NegativeIntInfinity", "Infinity", "NegativeInfinity")


def hints(se: Any) -> dict:
    """Backed symbol -> example value (sympy), as the ShapeEnv holds them."""
    found = getattr(se, "backed_var_to_val", None)
    return found if found is not None else se.var_to_val


def unbacked_values(se: Any) -> dict:
    """Unbacked symbol -> real value, where PyTorch knows one (``unbacked_var_to_val`` in
    versions that have it; ``real_tensor_prop_unbacked_vals`` under real-tensor propagation)."""
    out = {}
    for name in ("real_tensor_prop_unbacked_vals", "unbacked_var_to_val"):
        found = getattr(se, name, None)
        if found:
            out.update(found)
    return out


def integer_value(v) -> int | None:
    """A Python int for a sympy/Python integer; None for anything else (floats,
    ``SingletonInt`` of nested tensors, infinities)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, sympy.Integer) and type(v).__name__ not in _INFINITE_NAMES:
        return int(v)
    return None


def integer_range(vr) -> tuple[int | None, int | None]:
    """``(lower, upper)`` of a ``ValueRanges`` as ints, None where unbounded or not an
    integer (a float range, or a Boolean one, says nothing absint's Int symbols use)."""
    lo, hi = getattr(vr, "lower", None), getattr(vr, "upper", None)
    return integer_value(lo), integer_value(hi)


def all_runtime_asserts(se: Any) -> Iterator[tuple[object, int, object]]:
    """``(key, index, assert)`` of every deferred runtime assert, key by key in the dict's
    order (it only grows while tracing; a rollback is detected by the caller)."""
    for key, items in se.deferred_runtime_asserts.items():
        for i, ra in enumerate(items):
            yield key, i, ra


def is_boolean(expr) -> bool:
    """Whether a sympy expression is a Boolean (a relation, a connective, true/false)."""
    return isinstance(expr, sympy.logic.boolalg.Boolean) and not isinstance(expr, sympy.Symbol)
