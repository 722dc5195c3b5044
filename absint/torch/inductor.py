"""Inductor's own size questions (``torch._inductor.sizevars.SizeVarAllocator``), read by absint.

Most of what Inductor asks reaches absint already as plain ``_maybe_evaluate_static`` calls
(read in torch 2.13's and 2.15's ``sizevars.py``): ``statically_known_true/leq/lt/gt/geq/
equals``, the 32-bit indexing question of ``expr_fits_within_32bit`` (``e <= 2**31 - 1``), and
the comparisons inside ``evaluate_min``. Two questions never reach it, and are wrapped here:

* ``statically_known_multiple_of``: after its structural rules, PyTorch gives up without
  asking when the numerator has more than ``_MAX_SYMBOLS_FOR_EXPENSIVE_SYMPY_OPS`` (20) free
  symbols. Its meaning is ``statically_known_true(Eq(Mod(numerator, denominator), 0))`` (the
  rule PyTorch applies below the limit), a plain question; beyond the limit absint is asked
  it when PyTorch said False (fallback and primary: absint's TRUE is returned; shadow: counted
  only). Below the limit PyTorch's own fallback asks ``_maybe_evaluate_static``: absint is
  not asked twice.
* ``evaluate_min`` (and ``evaluate_max``, which calls it): PyTorch guards on the choice, or,
  for unbacked sizes, falls back to a ``gcd`` rule its own comment calls unsound (``u0`` vs
  ``10*u0`` with ``u0 < 0``). After PyTorch chose, absint is asked whether the choice holds
  for every input the facts allow (a guard PyTorch installed is such a fact): proved choices
  are counted, unproved (or refuted) ones listed (:attr:`~.counters.Stats.inductor_unproved`), so a user sees
  where Inductor relies on that fallback. absint does not change the choice.
"""

from __future__ import annotations

import functools
import sys
from typing import Any, Callable

import sympy

from absint.reasoning.verdict import Truth

#: the SizeVarAllocator methods wrapped here
WRAPPED = ("statically_known_multiple_of", "evaluate_min")


def wrap_if_loaded(inst: Any) -> dict[str, Callable] | None:
    """Wrap Inductor's methods for an installation once Inductor is loaded; the originals (for
    :func:`unwrap`), or None while it is not. Importing Inductor costs ~2 s, which an export
    that never lowers must not pay: the client calls this again on its wrapped calls until
    Inductor is there (a dictionary lookup each)."""
    sizevars = sys.modules.get("torch._inductor.sizevars")
    if sizevars is None or not hasattr(sizevars, "SizeVarAllocator"):
        return None
    cls = sizevars.SizeVarAllocator
    originals = {name: cls.__dict__[name] for name in WRAPPED if name in cls.__dict__}
    limit = getattr(sizevars, "_MAX_SYMBOLS_FOR_EXPENSIVE_SYMPY_OPS", None)
    if "statically_known_multiple_of" in originals and limit is not None:
        cls.statically_known_multiple_of = _multiple_of(inst, originals["statically_known_multiple_of"], limit)
    if "evaluate_min" in originals:
        cls.evaluate_min = _evaluate_min(inst, originals["evaluate_min"], sizevars.sympy_subs)
    return originals


def unwrap(originals: dict[str, Callable] | None) -> None:
    """Put Inductor's own methods back."""
    if not originals:
        return
    from torch._inductor import sizevars

    for name, fn in originals.items():
        setattr(sizevars.SizeVarAllocator, name, fn)


def _multiple_of(inst: Any, original: Callable, limit: int) -> Callable:
    @functools.wraps(original)
    def statically_known_multiple_of(self, numerator, denominator) -> bool:
        result = original(self, numerator, denominator)
        if result or len(getattr(numerator, "free_symbols", ())) <= limit:
            return result
        from torch.utils._sympy.functions import Mod

        counts = inst.stats.inductor
        counts["multiple_of asked"] += 1
        a = inst._ask_once(self.shape_env, sympy.Eq(Mod(numerator, denominator), 0), "none")
        if a is None or a.truth is not Truth.TRUE:
            return result
        counts["multiple_of proved"] += 1
        return inst.mode != "shadow"

    return statically_known_multiple_of


def _evaluate_min(inst: Any, original: Callable, subs: Callable) -> Callable:
    @functools.wraps(original)
    def evaluate_min(self, left, right):
        chosen = original(self, left, right)
        left, right = (subs(x, self.inv_precomputed_replacements) if isinstance(x, sympy.Expr) else x
                       for x in (left, right))
        other = right if chosen == left else left if chosen == right else None
        if other is None or isinstance(chosen, int) and isinstance(other, int):
            return chosen
        a = inst._ask_once(self.shape_env, sympy.Le(chosen, other), "not-asked")
        if a is not None:
            word = {Truth.TRUE: "proved", Truth.FALSE: "refuted"}.get(a.truth, "unproved")
            inst.stats.inductor[f"min {word}"] += 1
            if a.truth is not Truth.TRUE:
                inst.stats.inductor_unproved.append(f"evaluate_min({left}, {right}) -> {chosen}: {word}")
        return chosen

    return evaluate_min
