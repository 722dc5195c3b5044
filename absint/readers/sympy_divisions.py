"""SMT-LIB's divisions as sympy functions: how absint writes a division whose divisor may be
zero or negative, so that it reads back as the same division.

sympy's own spellings do not keep one. ``floor(a/y)``, ``Mod(a, y)`` and ``a/y`` cancel
common factors (``y/y`` is 1, ``x*y/y`` is ``x``), which holds only where ``y != 0``, while
SMT-LIB leaves ``div``, ``mod`` and ``/`` by zero free (any value): a program that meant one
thing would mean another. And SMT-LIB's ``div`` is Euclidean, so a divisor of unknown sign
needed two floor quotients (``y > 0`` and not), read back as an ``ite`` of real quotients
that the reasoning does not see as the division it is.

:class:`EuclidDiv`, :class:`EuclidMod` and :class:`RealDiv` are SMT-LIB's ``div``, ``mod``
and ``/`` themselves: their ``eval`` folds only where the answer holds at every value of the
operands (two numbers with a non-zero divisor; a divisor of 1 or -1), and the bridge reads
them back by class name. :func:`as_plain_sympy` rewrites them with sympy's own functions,
equal wherever every divisor is non-zero.
"""

from __future__ import annotations

import sympy

from domains.bounds import euclid_div, euclid_mod


def _unit(b) -> int | None:
    """1 or -1 when ``b`` is that number, else None."""
    return int(b) if b.is_Integer and abs(int(b)) == 1 else None


class EuclidDiv(sympy.Function):
    """SMT-LIB's ``(div a b)``: Euclidean, ``a = b*q + r`` with ``0 <= r < |b|``; ``b = 0``
    leaves it free (not folded)."""

    is_integer = True
    nargs = 2

    @classmethod
    def eval(cls, a, b):
        if a.is_Integer and b.is_Integer and b != 0:
            return sympy.Integer(euclid_div(int(a), int(b)))
        u = _unit(b)
        return None if u is None else u * a


class EuclidMod(sympy.Function):
    """SMT-LIB's ``(mod a b)``: Euclidean, in ``[0, |b|)``; ``b = 0`` leaves it free."""

    is_integer = True
    nargs = 2

    @classmethod
    def eval(cls, a, b):
        if a.is_Integer and b.is_Integer and b != 0:
            return sympy.Integer(euclid_mod(int(a), int(b)))
        return sympy.Integer(0) if _unit(b) is not None else None


class RealDiv(sympy.Function):
    """SMT-LIB's ``(/ a b)``: exact; ``b = 0`` leaves it free (``RealDiv(y, y)`` stays)."""

    is_real = True
    nargs = 2

    @classmethod
    def eval(cls, a, b):
        if b.is_Rational and b != 0:
            return a / b  # by a non-zero number: the same value for every a
        return None


def as_plain_sympy(expr):
    """``expr`` with :class:`EuclidDiv`, :class:`EuclidMod` and :class:`RealDiv` written with
    sympy's own functions (``sign(b)*floor(a/|b|)``, ``Mod(a, |b|)``, ``a/b``): equal wherever
    every divisor is non-zero, for code that only knows sympy (``lambdify``, printers)."""
    return expr.replace(
        lambda e: isinstance(e, (EuclidDiv, EuclidMod, RealDiv)),
        lambda e: _plain(type(e), *e.args))


def _plain(cls, a, b):
    if cls is EuclidDiv:
        return sympy.sign(b) * sympy.floor(a / sympy.Abs(b))
    if cls is EuclidMod:
        return sympy.Mod(a, sympy.Abs(b))
    return a / b


__all__ = ["EuclidDiv", "EuclidMod", "RealDiv", "as_plain_sympy"]
