"""Comparisons of sizes built without sympy's fold where the fold provably finds nothing.

Read in ``torch/fx/experimental/sym_node.py`` (torch 2.13 and 2.15): ``a <= b`` on two
SymNodes builds ``sympy.Le(a, b)`` (``_sympy_le``, given to ``_make_node_magic``, which
lru-caches it and sets ``SymNode._le``; likewise ``lt``, ``ge``, ``gt``, ``eq``, ``ne``).
sympy then tries to fold the relation to ``true``/``false`` from the *symbols' assumptions*
(``(b - a).is_extended_nonnegative`` through its assumption system): 1-2 ms each, and in an
unbacked-heavy export it folds 16 of ~3,500 relations. PyTorch skips the fold
(``evaluate=False``) when one side is a lone unbacked symbol and the other a number, because
an unbacked symbol is created with ``integer=True`` and nothing else.

The same argument holds wider: if ``a - b`` is linear in integer symbols with integer
coefficients and a symbol with no assumption but ``integer`` has a non-zero coefficient
(``+1`` or ``-1`` for ``==`` and ``!=``), then for every value of the other symbols that
symbol's values make the relation true and false; sympy folds only what holds for every
assignment its assumptions allow, so it returns ``cls(a, b, evaluate=False)``, which is what
is built here, without the assumption queries. Anything else (a number, a product of symbols, a backed size, ``2*u0 + 1
== 0``, which sympy folds to false) is left to sympy. Installed by primary mode only.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import sympy

from absint.torch.bridge import linear_coefficients

#: the SymNode methods whose sympy constructor is replaced, and that constructor
RELATIONS: dict[str, Any] = {"le": sympy.Le, "lt": sympy.Lt, "ge": sympy.Ge, "gt": sympy.Gt,
                             "eq": sympy.Eq, "ne": sympy.Ne}
#: relations whose truth varies only if the free symbol's coefficient is a unit
_NEEDS_UNIT = frozenset({"eq", "ne"})
_FREE_INTEGER = sympy.Symbol("_absint_free", integer=True).assumptions0


@functools.lru_cache(maxsize=4096)
def _free_integer(symbol: sympy.Symbol) -> bool:
    """An integer symbol with no sign or parity assumption: it takes every integer value."""
    return symbol.assumptions0 == _FREE_INTEGER


@functools.lru_cache(maxsize=4096)
def _integer(symbol: sympy.Symbol) -> bool:
    """Every symbol of the difference must be an integer, so that the rest of it is an
    integer a free symbol can cancel (``u0 + x == 0`` with a non-integer ``x`` never holds)."""
    return symbol.is_integer is True


def varies(method: str, a: sympy.Basic, b: sympy.Basic) -> bool:
    """Whether relation ``method`` between ``a`` and ``b`` is true for some and false for
    other values the symbols' assumptions allow, shown by a free integer symbol of ``a - b``
    (both sides linear in integer symbols with integer coefficients; constants do not change
    whether a free symbol can make the relation true and false)."""
    left, right = linear_coefficients(a), linear_coefficients(b)
    if left is None or right is None:
        return False
    coefficients = dict(left)
    for s, c in right.items():
        coefficients[s] = coefficients.get(s, 0) - c
    if not all(map(_integer, coefficients)):  # map: no generator frame per symbol of a long sum
        return False
    unit = method in _NEEDS_UNIT
    return any((abs(c) == 1 if unit else c != 0) and _free_integer(s) for s, c in coefficients.items())


def builder(method: str) -> Callable[[sympy.Basic, sympy.Basic], sympy.Basic]:
    """The constructor for ``SymNode._<method>``: sympy's own, without the fold that
    :func:`varies` shows to find nothing."""
    cls = RELATIONS[method]

    def build(a: sympy.Basic, b: sympy.Basic) -> sympy.Basic:
        if varies(method, a, b):
            return cls(a, b, evaluate=False)
        return cls(a, b)

    build.__name__ = f"_absint_sympy_{method}"
    return build


def install() -> dict[str, Any] | None:
    """Give ``SymNode`` the relations of :func:`builder` through PyTorch's own
    ``_make_node_magic`` (so everything else its methods do stays PyTorch's); the methods it
    had, for :func:`uninstall`, or None when this torch has no such constructor (or it
    refuses ours: PyTorch's methods are then left as they were)."""
    from torch.fx.experimental import sym_node

    make = getattr(sym_node, "_make_node_magic", None)
    if make is None or any(f"_{m}" not in sym_node.SymNode.__dict__ for m in RELATIONS):
        return None
    originals = {m: sym_node.SymNode.__dict__[f"_{m}"] for m in RELATIONS}
    try:
        for method in RELATIONS:
            make(method, builder(method))
    except Exception:  # noqa: BLE001 - another torch's constructor: PyTorch's methods stay
        uninstall(originals)
        return None
    return originals


def uninstall(originals: dict[str, Any] | None) -> None:
    """Put PyTorch's own methods back."""
    if not originals:
        return
    from torch.fx.experimental import sym_node

    for method, fn in originals.items():
        setattr(sym_node.SymNode, f"_{method}", fn)
