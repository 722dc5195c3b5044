"""absint: sound, fast answers about the integer shape programs of deep-learning compilers.

The compiler API (:class:`ShapeReasoner`, see ``docs/api.md``) is exported lazily,
so ``import absint`` stays cheap for tools that never touch sympy.
"""

__version__ = "0.1.0"

_API = {
    "ShapeReasoner": "absint.api",
    "DataDependentGuardError": "absint.api",
    "INT32_MIN": "absint.api",
    "INT32_MAX": "absint.api",
    "UnsupportedExpression": "absint.api",
    "UndefinedAtHints": "absint.api",
    "ConflictingSymbol": "absint.api",
    "CheckpointError": "absint.api",
    "Verdict": "absint.reasoning.verdict",
    "Truth": "absint.reasoning.verdict",
    "Layer": "absint.reasoning.verdict",
}

__all__ = ["__version__", *_API]


def __getattr__(name: str):
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'absint' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_API))
