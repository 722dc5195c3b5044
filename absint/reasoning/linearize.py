"""Cheap relational reasoning about nonlinear atoms, on top of the value network.

Plain intervals evaluate ``s - s*s + 1`` or ``div(a + 1, 2) - a`` atom by atom
and lose the correlation between an atom and the terms inside it. Two
remedies, both sound for every integer point:

* :func:`linearized_value` (Miné's intervalisation): a sum is re-read with
  interval coefficients. A monomial ``m = g * rest`` whose part ``g`` is another
  monomial of the sum moves into ``g``'s coefficient as ``coef * value(rest)``;
  ``div(x, d)`` (``d > 0``) whose argument shares atoms with the rest becomes
  ``x/d - [0, (d-1)/d]``. The arithmetic is done over the rationals.
* :func:`dominating_bound`: a product is bounded by another, already bounded
  product whose factors dominate its own: ``0 <= f_i <= g_i`` for all ``i``
  gives ``prod f_i <= prod g_i``. The candidates for ``g_i`` are what ``f_i``
  is computed from (``a`` for ``div(a + 1, 2)``, both sides of a ``min``).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import TYPE_CHECKING

from absint.lang import terms as T
from absint.reasoning.normal_form import factors, remove_factors
from absint.lang.terms import INT, REAL, Term

if TYPE_CHECKING:  # pragma: no cover
    from absint.reasoning.network import Engine

_P_INT, _Q_INT = T.var("#p", INT), T.var("#q", INT)
_P_REAL, _Q_REAL = T.var("#p", REAL), T.var("#q", REAL)
_MUL = T.mul(_P_REAL, _Q_REAL)
_ADD = T.add(_P_REAL, _Q_REAL)
_TO_REAL = T.to_real(_P_INT)
MAX_COMBINATIONS = 32


class _Rationals:
    """Interval arithmetic over the rationals, through the value domain's own operators."""

    def __init__(self, domain):
        self.d = domain

    def const(self, v) -> object:
        return self.d.constant(Fraction(v), REAL)

    def add(self, a, b):
        return self.d.forward(_ADD, (a, b))

    def mul(self, a, b):
        return self.d.forward(_MUL, (a, b))

    def of_int(self, v):
        return self.d.forward(_TO_REAL, (v,))


def linearized_value(engine: "Engine", t: Term):
    """A rational value for the Int sum ``t``, or None when no monomial could be re-read."""
    coefs, c = t.data
    q = _Rationals(engine.d)
    groups = {a: q.const(v) for a, v in zip(t.args, coefs)}
    const = q.const(c)
    changed = False
    for _ in range(6):  # nested divisions unfold one level per round
        divs = [m for m in groups if m.kind == "div" and m.args[1].kind == "const" and m.args[1].data > 0
                and _shares_atoms(m.args[0], groups, m)]
        if not divs:
            break
        for m in divs:
            coef = groups.pop(m)
            d = m.args[1].data
            xc, x0 = T.linear_parts(m.args[0])
            for a, e in xc.items():
                part = q.mul(coef, q.const(Fraction(e, d)))
                groups[a] = q.add(groups[a], part) if a in groups else part
            remainder = engine.d.join(q.const(Fraction(x0, d)), q.const(Fraction(x0 - d + 1, d)))
            const = q.add(const, q.mul(coef, remainder))
            changed = True
    if any(m.kind == "mul" for m in groups):
        for m in sorted(groups, key=lambda a: -len(factors(a))):
            if m.kind != "mul" or m not in groups:
                continue
            best = None
            for g in groups:
                fg = factors(g)
                if g is m or len(fg) >= len(m.args) or (best is not None and len(fg) <= len(best[1])):
                    continue
                rest = remove_factors(m.args, fg)
                if rest is not None:
                    best = (g, fg, rest)
            if best is None:
                continue
            g, _, rest = best
            rest_term = T.mul(*rest)
            engine.register(rest_term)
            moved = q.mul(groups.pop(m), q.of_int(engine.value(rest_term)))
            groups[g] = q.add(groups[g], moved)
            changed = True
    if not changed:
        return None
    total = const
    for g, coef in groups.items():
        engine.register(g)
        total = q.add(total, q.mul(coef, q.of_int(engine.value(g))))
    return total


def _shares_atoms(x: Term, groups: dict, skip: Term) -> bool:
    inner = {s for s in T.subterms(x) if s.is_atom}
    return any(a in inner for a in groups if a is not skip)


def _candidates(f: Term, upper: bool) -> list[Term]:
    """Terms ``g`` that may bound ``f`` from above (``upper``) or below."""
    k = f.kind
    out = []
    if k == "div" and f.args[1].kind == "const" and f.args[1].data > 0:
        coefs, _ = T.linear_parts(f.args[0])
        if len(coefs) == 1:
            out.append(next(iter(coefs)))
    elif (k == "min" and upper) or (k == "max" and not upper):
        out.extend(a for a in f.args if a.is_atom)
    return out


def dominating_bound(engine: "Engine", p: Term, upper: bool, depth: int = 2):
    """An upper (or lower) bound of the product ``p`` from a dominating, bounded product."""
    options = [[f] + _candidates(f, upper) for f in p.args]
    if all(len(o) == 1 for o in options):
        return None
    best = None
    for n, combo in enumerate(itertools.product(*options)):
        if n >= MAX_COMBINATIONS:
            break
        if all(g is f for g, f in zip(combo, p.args)):
            continue
        other = T.mul(*combo)
        if other.kind != "mul":
            continue
        if other in engine.val:
            lo, hi = engine.d.bounds(engine.val[other])
            bound = hi if upper else lo
        elif depth > 1:
            bound = dominating_bound(engine, other, upper, depth - 1)
        else:
            bound = None
        if bound is None or math.isinf(bound):
            continue
        if best is not None and (bound >= best if upper else bound <= best):
            continue
        if _dominates(engine, p.args, combo, upper):
            best = bound
    return best


def _dominates(engine: "Engine", fs, gs, upper: bool) -> bool:
    """``0 <= f_i <= g_i`` (upper) or ``f_i >= g_i >= 0`` (lower) for every pair."""
    for f, g in zip(fs, gs):
        if f is g:
            if engine.truth(T.ge(f, T.ZERO)) is not True:
                return False
            continue
        if upper:
            if engine.truth(T.ge(f, T.ZERO)) is not True or engine.truth(T.le(f, g)) is not True:
                return False
        elif engine.truth(T.ge(g, T.ZERO)) is not True or engine.truth(T.ge(f, g)) is not True:
            return False
    return True
