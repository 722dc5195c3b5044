"""Miné's intervalisation: a sum re-read so that shared atoms stay correlated.

Plain intervals evaluate ``s - s*s + 1`` or ``div(a + 1, 2) - a`` atom by atom and
lose the correlation between an atom and the terms inside it. Here a sum is re-read
with interval coefficients: a monomial ``m = g * rest`` whose part ``g`` is another
monomial of the sum moves into ``g``'s coefficient as ``coef * value(rest)``;
``div(x, d)`` (``d > 0``) whose argument shares atoms with the rest, or with another such
quotient's argument, becomes ``x/d - [0, (d-1)/d]``, or ``x/d - r/d`` when ``x``'s
congruence fixes the remainder ``r`` (:func:`remainder_range`). The arithmetic is done over
the rationals; sound for every integer point.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from absint.lang import terms as T
from absint.lang.kinds import CONST, DIV, MUL
from absint.lang.terms import INT, REAL, Term
from absint.reasoning.facade import Network
from absint.reasoning.monomials import factors, remove_factors

_P_INT, _Q_INT = T.var("#p", INT), T.var("#q", INT)
_P_REAL, _Q_REAL = T.var("#p", REAL), T.var("#q", REAL)
_MUL = T.mul(_P_REAL, _Q_REAL)
_ADD = T.add(_P_REAL, _Q_REAL)
_TO_REAL = T.to_real(_P_INT)


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


def linearized_value(network: Network, t: Term):
    """A rational value for the Int sum ``t``, or None when no monomial could be re-read."""
    if not any(a.kind == DIV or a.kind == MUL for a in t.args):
        return None  # nothing to re-read: only quotients (and the monomials they unfold to) and products move
    coefs, c = t.data
    q = _Rationals(network.domain)
    groups = {a: q.const(v) for a, v in zip(t.args, coefs)}
    const = q.const(c)
    changed = False
    for _ in range(6):  # nested divisions unfold one level per round
        divs = _correlated_quotients(network, groups)
        if not divs:
            break
        for m in divs:
            coef = groups.pop(m)
            d = m.args[1].data
            xc, x0 = T.linear_parts(m.args[0])
            for a, e in xc.items():
                part = q.mul(coef, q.const(Fraction(e, d)))
                groups[a] = q.add(groups[a], part) if a in groups else part
            r_lo, r_hi = remainder_range(network, m.args[0], d)
            remainder = network.domain.join(q.const(Fraction(x0 - r_lo, d)), q.const(Fraction(x0 - r_hi, d)))
            const = q.add(const, q.mul(coef, remainder))
            changed = True
    if any(m.kind == MUL for m in groups):
        for m in sorted(groups, key=lambda a: -len(factors(a))):
            if m.kind != MUL or m not in groups:
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
            network.register(rest_term)
            moved = q.mul(groups.pop(m), q.of_int(network.value(rest_term)))
            groups[g] = q.add(groups[g], moved)
            changed = True
    if not changed:
        return None
    total = const
    for g, coef in groups.items():
        network.register(g)
        total = q.add(total, q.mul(coef, q.of_int(network.value(g))))
    return total


def _correlated_quotients(network: Network, groups: dict) -> list[Term]:
    """The quotients by a positive constant whose dividend shares an atom with another
    monomial, or, when the dividend's congruence makes the quotient exact, with another such
    quotient's dividend (``s30 div 8 - (s30*s0) div 8`` after ``s30 mod 8 = 0``: unfolded
    together, ``s30`` correlates them; inexact, each would only add its remainder's width)."""
    quotients = {m: {s for s in T.subterms(m.args[0]) if s.is_atom} for m in groups
                 if m.kind == DIV and m.args[1].kind == CONST and m.args[1].data > 0}
    in_dividends = Counter(a for inner in quotients.values() for a in inner)
    out = []
    for m, inner in quotients.items():
        if any(a in inner for a in groups if a is not m) or (
                any(in_dividends[a] > 1 for a in inner) and _exact(network, m)):
            out.append(m)
    return out


def _exact(network: Network, m: Term) -> bool:
    r_lo, r_hi = remainder_range(network, m.args[0], m.args[1].data)
    return r_lo == r_hi


def remainder_range(network: Network, arg: Term, d: int) -> tuple[int, int]:
    """The range of ``arg mod d`` (``d > 0``) that ``arg``'s congruence allows (one value
    when its modulus is a multiple of ``d``: ``s30 mod 8 = 0`` makes ``(s30*s0) div 8``
    exactly ``s30*s0/8``)."""
    value = network.registered_value(arg)
    if value is None:
        return 0, d - 1
    m, r = network.domain.congruence(value)
    if m > 0 and m % d == 0:
        r = r % d
        return r, r
    return 0, d - 1
