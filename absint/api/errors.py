"""The compiler API's exceptions: each names what went wrong in the caller's terms."""

from __future__ import annotations

import math

from absint.readers.sympy_bridge import UnsupportedExpression
from absint.reasoning.trail import CheckpointError

__all__ = ["DataDependentGuardError", "UndefinedAtHints", "UnsupportedExpression", "ConflictingSymbol",
           "CheckpointError"]


class DataDependentGuardError(RuntimeError):
    """A branch on unbacked symbols that the facts do not decide.

    ``symbols``: the unbacked symbols of the guard; ``guard``: the guard;
    ``suggestions``: facts (sympy) each of which, added with ``assume`` (in
    PyTorch: ``torch._check``), would decide it; ``ranges``: the current numeric
    range of each unbacked symbol.
    """

    def __init__(self, symbols: tuple, guard, suggestions: list, ranges: dict):
        self.symbols = symbols
        self.guard = guard
        self.suggestions = suggestions
        self.ranges = ranges
        names = ", ".join(str(s) for s in symbols)
        rng = ", ".join(f"{s} in [{_fmt(lo)}, {_fmt(hi)}]" for s, (lo, hi) in ranges.items())
        facts = "; ".join(str(f) for f in suggestions)
        super().__init__(
            f"could not decide the guard {guard} on data-dependent (unbacked) symbols {names} "
            f"(current ranges: {rng}); any one of these facts would decide it: {facts}")


def _fmt(v) -> str:
    if v == math.inf:
        return "oo"
    if v == -math.inf:
        return "-oo"
    return str(v)


class UndefinedAtHints(ValueError):
    """:meth:`~absint.api.ShapeReasoner.evaluate` needed a guard's value at the example point,
    and it has none there (a division by zero, a power too large to compute): SMT-LIB leaves
    such a value unspecified, so no branch can be chosen from it."""


class ConflictingSymbol(ValueError):
    """Two different sympy symbols share a name (their assumptions differ): absint names its
    variables by name, so it would read them as one variable; rename one of them."""
