"""Which calls absint may answer, and the one signature it knows how to wrap.

Only a *plain* call of ``ShapeEnv._maybe_evaluate_static`` asks "what do all the facts
say?". The keyword arguments change the question:

* ``axioms=`` (any value, even ``()``): ``produce_guards`` asks whether a guard follows
  from the *ranges alone*, to drop it from the entry guards; answering with all the facts
  drops guards that must stay (a compiled ``if x.size(0) > y.size(0)`` then returns a wrong
  result);
* ``var_to_range=``: other ranges than the ShapeEnv's;
* ``compute_hint=True``: a value at the hints, not a proof;
* ``unbacked_only=True``: a rewritten expression is expected, not a verdict.

Those pass through to PyTorch unchanged, except, in primary mode, an ``unbacked_only`` call
whose result absint can tell keeps an unbacked symbol
(:meth:`~absint.torch.bridge.ShapeEnvBridge.keeps_unbacked`): the question itself is
returned, which its callers read the same way. ``size_oblivious=True`` stays plain: PyTorch then
assumes more (size-like unbacked symbols >= 2), and an answer true for all values satisfying
the facts is true for those too.
"""

from __future__ import annotations

import inspect
from typing import Callable

#: keyword-only parameters of ShapeEnv._maybe_evaluate_static, with their defaults
EXPECTED_KEYWORDS = {"unbacked_only": False, "compute_hint": False, "size_oblivious": False,
                     "axioms": None, "var_to_range": None}

#: torch versions the client was run and tested with (docs/torch.md)
TESTED_TORCH_VERSIONS = ("2.13.0", "2.14.1", "2.15.0")


class UnsupportedTorch(RuntimeError):
    """The installed torch's ``_maybe_evaluate_static`` is not the one absint wraps."""


def plain_call(args: tuple, kwargs: dict) -> bool:
    """Whether a call (after ``self, expr``) may be answered by absint."""
    if args:
        return False
    for k, v in kwargs.items():
        if k == "size_oblivious":
            continue
        if k not in EXPECTED_KEYWORDS or v != EXPECTED_KEYWORDS[k] or (k in ("axioms", "var_to_range")
                                                                          and v is not None):
            return False
    return True


def unbacked_only_call(args: tuple, kwargs: dict) -> bool:
    """Whether a call is ``_maybe_evaluate_static(expr, unbacked_only=True)`` and nothing else
    (what ``evaluate_expr`` and ``guard_or_defer_runtime_assert`` send after a plain call)."""
    if args or kwargs.get("unbacked_only") is not True:
        return False
    return all(k in EXPECTED_KEYWORDS and (k == "unbacked_only" or v == EXPECTED_KEYWORDS[k])
               for k, v in kwargs.items())


def check_signature(fn: Callable, torch_version: str) -> None:
    """Refuse to wrap a function whose parameters differ from PyTorch 2.13's."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError) as e:
        raise UnsupportedTorch(f"cannot read the signature of ShapeEnv._maybe_evaluate_static in torch "
                               f"{torch_version}: {e}") from None
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    keywords = {p.name: p.default for p in params if p.kind is p.KEYWORD_ONLY}
    if positional != ["self", "expr"] or keywords != EXPECTED_KEYWORDS:
        shown = ", ".join(f"{k}={v!r}" for k, v in keywords.items())
        raise UnsupportedTorch(
            f"absint.torch wraps ShapeEnv._maybe_evaluate_static(self, expr, *, unbacked_only=False, "
            f"compute_hint=False, size_oblivious=False, axioms=None, var_to_range=None) (torch "
            f"{', '.join(TESTED_TORCH_VERSIONS)}); torch {torch_version} has ({', '.join(positional)}, *, "
            f"{shown}): refusing to install")
