"""The compiler API: sympy expressions in, verdicts and bounds out, in microseconds.

A compiler (PyTorch's Dynamo/Inductor first) keeps one :class:`ShapeReasoner` per
compilation: it declares its symbols (backed ones with their example value, unbacked ones
without), adds facts as it learns them, and asks thousands of cheap questions in between.
Expressions use sympy or PyTorch's sympy vocabulary (read by class name, see
:mod:`absint.readers.sympy_bridge`); torch is not needed. See ``docs/api.md``.
"""

from absint.api.errors import (CheckpointError, ConflictingSymbol, DataDependentGuardError, UndefinedAtHints,
                               UnsupportedExpression)
from absint.api.shape_reasoner import ShapeReasoner
from absint.reasoning.reasoner import INT32_MAX, INT32_MIN
from absint.reasoning.verdict import Layer, Truth, Verdict

__all__ = ["ShapeReasoner", "DataDependentGuardError", "UndefinedAtHints", "ConflictingSymbol", "CheckpointError",
           "UnsupportedExpression", "Verdict", "Truth", "Layer", "INT32_MIN", "INT32_MAX"]
