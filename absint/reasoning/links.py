"""Linear constraints that tie a nonlinear atom to its operands, for the polyhedral layer.

isl reasons over linear integer constraints only, so an atom such as ``x*y`` or
``x div 3`` enters as a variable of its own, tied to its operands by what the current
intervals make linear: McCormick's inequalities for a product, ``d*q <= x <= d*q + d - 1``
for division by a constant, ``0 <= r < y`` for a remainder, ``min <= each side``.
:data:`LINKS` has one row per atom kind of the operator table; a kind whose atoms stay
unlinked says so with ``None`` (each such atom is then only its own bounds).
"""

from __future__ import annotations

from typing import Callable

from absint.lang import terms as T
from absint.lang.kinds import CEIL, CONST, DEF, DIV, FN, ITE, MAX, MIN, MOD, MUL, POW, RDIV, TO_INT, TO_REAL, VAR, Kind
from absint.lang.terms import INT, Term
from absint.reasoning.facade import Network
from domains.bounds import is_infinite
from domains.polyhedra import LinearConstraint

Index = dict[Term, int]
Linear = tuple[list[tuple[int, int]], int]


class _Link:
    """What one atom's link builder reads: its index, the indexed operands, their bounds."""

    __slots__ = ("me", "index", "network")

    def __init__(self, a: Term, index: Index, network: Network):
        self.me, self.index, self.network = index[a], index, network

    def lin(self, t: Term) -> Linear | None:
        """``t`` as indexed coefficients and a constant, if all its atoms are indexed."""
        coefs, c = T.linear_parts(t)
        if not all(x in self.index for x in coefs):
            return None
        return [(self.index[x], int(v)) for x, v in coefs.items()], int(c)

    def bounds(self, t: Term):
        self.network.register(t)
        return self.network.domain.bounds(self.network.value(t))


def links(a: Term, index: Index, network: Network) -> list[LinearConstraint]:
    """The constraints tying ``a`` (indexed, as are the operands it is linked to) to its operands."""
    build = LINKS[a.kind]
    if build is None or a.sort is not INT:
        return []
    return build(a, _Link(a, index, network))


def _product(a: Term, k: _Link) -> list[LinearConstraint]:
    """``m = f * rest`` with ``f >= 0``: ``rlo*f <= m <= rhi*f``; McCormick for two factors."""
    out: list[LinearConstraint] = []
    fs = a.args
    for i, f in enumerate(fs):
        lf = k.lin(f)
        if lf is None:
            continue
        rest = T.mul(T.ONE, *(fs[:i] + fs[i + 1:]))
        flo, _ = k.bounds(f)
        rlo, rhi = k.bounds(rest)
        if flo >= 0:
            fc, f0 = lf
            if not is_infinite(rlo):
                out.append(LinearConstraint(((k.me, 1),) + tuple((j, -int(rlo) * v) for j, v in fc), -int(rlo) * f0))
            if not is_infinite(rhi):
                out.append(LinearConstraint(((k.me, -1),) + tuple((j, int(rhi) * v) for j, v in fc), int(rhi) * f0))
    if len(fs) == 2:
        out.extend(_mccormick(fs, k))
    return out


def _mccormick(fs, k: _Link) -> list[LinearConstraint]:
    """The four McCormick inequalities of ``m = x*y`` (those with finite bounds)."""
    x, y = fs
    lx, ly = k.lin(x), k.lin(y)
    if lx is None or ly is None:
        return []
    (xl, xu), (yl, yu) = k.bounds(x), k.bounds(y)
    (xc, x0), (yc, y0) = lx, ly

    def make(sign: int, a, b) -> LinearConstraint | None:
        # sign*(m - a*y - b*x + a*b) >= 0
        if is_infinite(a) or is_infinite(b):
            return None
        a, b = int(a), int(b)
        coefs: dict[int, int] = {k.me: sign}
        for j, v in yc:
            coefs[j] = coefs.get(j, 0) - sign * a * v
        for j, v in xc:
            coefs[j] = coefs.get(j, 0) - sign * b * v
        return LinearConstraint(tuple(coefs.items()), sign * (a * b - a * y0 - b * x0))

    cands = [make(1, xl, yl), make(1, xu, yu), make(-1, xu, yl), make(-1, xl, yu)]
    return [c for c in cands if c is not None]


def _division(a: Term, k: _Link) -> list[LinearConstraint]:
    """``x div y`` and ``x mod y``: exact for a positive constant ``y``; for a positive
    symbolic one, ``0 <= x mod y <= y - 1`` and, when ``x >= 0``, ``0 <= x div y, x mod y <= x``."""
    x, y = a.args
    lx = k.lin(x)
    if lx is None:
        return []
    if y.kind == CONST and y.data > 0:
        return _by_constant(a, k, lx, y.data)
    out: list[LinearConstraint] = []
    ylo, _ = k.bounds(y)
    xlo, _ = k.bounds(x)
    ly = k.lin(y)
    xc, x0 = lx
    if ylo >= 1:
        if a.kind == MOD:  # 0 <= r <= y - 1
            out.append(LinearConstraint(((k.me, 1),), 0))
            if ly is not None:
                yc, y0 = ly
                out.append(LinearConstraint(tuple(yc) + ((k.me, -1),), y0 - 1))
        if xlo >= 0:  # 0 <= x div y <= x  and  x mod y <= x
            out.append(LinearConstraint(((k.me, 1),), 0))
            out.append(LinearConstraint(tuple(xc) + ((k.me, -1),), x0))
    return out


def _by_constant(a: Term, k: _Link, lx: Linear, dv: int) -> list[LinearConstraint]:
    xc, x0 = lx
    if a.kind == DIV:  # dv*q <= x <= dv*q + dv - 1
        return [LinearConstraint(tuple(xc) + ((k.me, -dv),), x0),
                LinearConstraint(tuple((j, -v) for j, v in xc) + ((k.me, dv),), -x0 + dv - 1)]
    out = [LinearConstraint(((k.me, 1),), 0), LinearConstraint(((k.me, -1),), dv - 1)]
    q = T.div(*a.args)
    if q in k.index:  # r = x - dv*q
        out.append(LinearConstraint(tuple(xc) + ((k.index[q], -dv), (k.me, -1)), x0, True))
    return out


def _definition(a: Term, k: _Link) -> list[LinearConstraint]:
    """A named sum equals each of its definitions: ``d - body = 0``."""
    out = []
    for arg in a.args:
        la = k.lin(arg)
        if la is not None:
            ac, a0 = la
            out.append(LinearConstraint(tuple((j, -v) for j, v in ac) + ((k.me, 1),), -a0, True))
    return out


def _min_max(a: Term, k: _Link) -> list[LinearConstraint]:
    """``min <= each side``, ``max >= each side``."""
    sign = 1 if a.kind == MIN else -1
    out = []
    for arg in a.args:
        la = k.lin(arg)
        if la is not None:
            ac, a0 = la
            out.append(LinearConstraint(tuple((j, sign * v) for j, v in ac) + ((k.me, -sign),), sign * a0))
    return out


#: atom kind -> its link builder; None: such atoms enter with their own bounds only
LINKS: dict[Kind, Callable[[Term, _Link], list[LinearConstraint]] | None] = {
    VAR: None,
    MUL: _product,
    DIV: _division,
    MOD: _division,
    MIN: _min_max,
    MAX: _min_max,
    TO_REAL: None,  # Real-sorted: isl reasons over the integers
    RDIV: None,     # Real-sorted
    POW: None,      # a bounded power is its interval; no linear relaxation is kept
    TO_INT: None,   # of a Real operand, which isl does not see
    CEIL: None,     # likewise
    ITE: None,      # its value is the join of its branches, already in its bounds
    FN: None,       # an opaque function: Real-sorted, no relation to its operands
    DEF: _definition,
}
