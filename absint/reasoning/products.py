"""Bounds of a product through a dominating, bounded product: one search, two relations.

Shape programs bound a tensor's element count, then the counts of the tensors
computed from it: a pooled size ``(x + 1) div 2``, a convolution's ``x - 2``, or
a chain of them. With ``x*y <= N`` known, ``((x - 1) div 2)*((y - 1) div 2) <= N/4``
holds, but interval arithmetic, which reads each factor on its own, cannot see it.

:meth:`ProductBounds.bound` looks for a product ``q`` the network bounds whose factors
dominate ``p``'s, factor by factor, and takes the tightest bound it finds through
either of two relations between a factor ``f`` of ``p`` and a factor ``g`` of ``q``:

* *proved dominance* (:meth:`ProductBounds._dominating`): ``0 <= f <= g`` asked of the
  facade, for the ``g`` that ``f`` is computed from (``a`` for ``div(a + 1, 2)``, both
  sides of a ``min``), so ``prod f <= prod g``; a candidate product that is no key is
  bounded the same way once more;
* *affine chains* (:func:`scaled_product_bound`): ``f <= a*g`` for a constant ``a > 0``
  read off the chains of divisions and shifts both factors are computed by.

Each factor ``f`` is *unwrapped* into its chain: the terms ``g`` it is computed from
by division by a positive constant and adding a constant, each with bounds
``s*g + lo <= f <= s*g + hi`` (``s > 0``; see :func:`chain`). Two factors whose
chains meet in a common ``g`` are then related by ``f <= a*h`` (or ``f >= a*h``) for
a constant ``a > 0``. A product ``p`` whose every factor is so dominated by a distinct
factor of a bounded product ``q`` (the network's keys: every product a fact or guard
mentioned), the other factors of ``q`` being positive, is bounded by ``a``-scaled
bounds of ``q``. Everything is sound for every integer point (see each function).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

from absint.lang import terms as T
from absint.lang.kinds import CONST, DIV, MAX, MIN, MUL
from absint.lang.terms import INT, Term
from absint.reasoning.facade import Facade, Network
from absint.reasoning.linearize import remainder_range
from domains.bounds import is_infinite

#: how far a factor is unwrapped, and how many bounded products one question looks at
MAX_CHAIN = 8
MAX_PRODUCTS = 48
#: candidate dominating products tried per product by proved dominance
MAX_COMBINATIONS = 32


class ProductBounds:
    """The facade's product bounds: the tighter of the two relations' bounds."""

    def __init__(self, facade: Facade):
        self.facade = facade
        self.network = facade.network

    def bound(self, p: Term, upper: bool):
        """An upper (or lower) bound of the product ``p``, or None."""
        a = self._dominating(p, upper)
        b = scaled_product_bound(self.network, p, upper)
        if a is None or b is None:
            return b if a is None else a
        return min(a, b) if upper else max(a, b)

    def _dominating(self, p: Term, upper: bool, depth: int = 2):
        """A bound of ``p`` from a product of candidates ``g_i`` with ``0 <= f_i <= g_i``
        (upper) or ``f_i >= g_i >= 0`` (lower), proved by the facade."""
        options = [[f] + _candidates(f, upper) for f in p.args]
        if all(len(o) == 1 for o in options):
            return None
        best = None
        for n, combo in enumerate(itertools.product(*options)):
            if n >= MAX_COMBINATIONS:
                break
            if all(g is f for g, f in zip(combo, p.args)):
                continue
            bound = self._bound_of(T.mul(*combo), upper, depth)
            if bound is None or is_infinite(bound):
                continue
            if best is not None and (bound >= best if upper else bound <= best):
                continue
            if self._dominates(p.args, combo, upper):
                best = bound
        return best

    def _bound_of(self, other: Term, upper: bool, depth: int):
        if other.kind != MUL:
            return None
        v = self.network.key_value(other)
        if v is not None:
            lo, hi = self.network.domain.bounds(v)
            return hi if upper else lo
        return self._dominating(other, upper, depth - 1) if depth > 1 else None

    def _dominates(self, fs, gs, upper: bool) -> bool:
        truth = self.facade.truth
        for f, g in zip(fs, gs):
            if f is g:
                if truth(T.ge(f, T.ZERO)) is not True:
                    return False
                continue
            if upper:
                if truth(T.ge(f, T.ZERO)) is not True or truth(T.le(f, g)) is not True:
                    return False
            elif truth(T.ge(g, T.ZERO)) is not True or truth(T.ge(f, g)) is not True:
                return False
        return True


def _candidates(f: Term, upper: bool) -> list[Term]:
    """Terms ``g`` that may bound ``f`` from above (``upper``) or below: what ``f`` is computed from."""
    k = f.kind
    out = []
    if k == DIV and f.args[1].kind == CONST and f.args[1].data > 0:
        coefs, _ = T.linear_parts(f.args[0])
        if len(coefs) == 1:
            out.append(next(iter(coefs)))
    elif (k == MIN and upper) or (k == MAX and not upper):
        out.extend(a for a in f.args if a.is_atom)
    return out

Number = int | Fraction
Chain = dict[Term, tuple[Number, Number, Number]]  # g -> (s, lo, hi): s*g + lo <= f <= s*g + hi


def chain(network: Network, f: Term) -> Chain:
    """``f`` and the terms it is computed from, with ``s*g + lo <= f <= s*g + hi``
    (in order, ``f`` itself first).

    Sound for every integer point: a sum ``u*a + k`` (``u > 0``) is exactly
    ``u*a + k``; Euclidean division by a constant ``d > 0`` gives
    ``(e*a + c) div d = (e*a + c - r)/d`` with ``r = (e*a + c) mod d`` in
    ``[0, d-1]``, narrowed to one value when the congruence of ``e*a + c`` (modulus a
    multiple of ``d``) fixes it. Links compose because every ``s`` is positive.
    """
    out: Chain = {f: (1, 0, 0)}
    s: Number = 1
    lo: Number = 0
    hi: Number = 0
    g = f
    for _ in range(MAX_CHAIN):
        if g.sort is not INT:
            break
        coefs, k = T.linear_parts(g)
        if len(coefs) != 1:
            break
        (a, u), = coefs.items()
        if u <= 0:
            break
        if g.kind == DIV:
            arg, d = g.args
            if d.kind != CONST or d.data <= 0:
                break
            coefs, c = T.linear_parts(arg)
            if len(coefs) != 1:
                break
            (a, e), = coefs.items()
            if e <= 0:
                break
            d = d.data
            r_lo, r_hi = remainder_range(network, arg, d)
            s2, lo2, hi2 = Fraction(e, d), Fraction(c - r_hi, d), Fraction(c - r_lo, d)
        elif a is not g:  # u*a + k
            s2, lo2, hi2 = u, k, k
        else:
            break
        s, lo, hi = s * s2, lo + s * lo2, hi + s * hi2
        g = a
        out[g] = (s, lo, hi)
    return out


def relate(fc: Chain, hc: Chain, h_lo, upper: bool) -> Number | None:
    """The least ``a > 0`` (greatest ``a >= 0``, for a lower bound) with ``f <= a*h``
    (``f >= a*h``), where ``fc``, ``hc`` are the chains of ``f`` and ``h`` and ``h_lo``
    is a lower bound of ``h``; None if none is known.

    Sound: on a common ``g``, ``f <= sf*g + tf`` and ``h >= sh*g + th`` give
    ``f <= a*h + b`` with ``a = sf/sh``, ``b = tf - a*th``. When ``b <= 0`` that is
    ``f <= a*h``; when ``b > 0`` and ``h >= L > 0``, ``b <= (b/L)*h`` gives
    ``f <= (a + b/L)*h``. For the lower bound, symmetrically, ``f >= a*h + b`` and
    ``h >= 0``: with ``b >= 0`` that is ``f >= a*h``; with ``b < 0`` and ``h >= L > 0``,
    ``b >= (b/L)*h`` gives ``f >= (a + b/L)*h``, kept when that coefficient is
    non-negative.
    """
    if not upper and not h_lo >= 0:
        return None
    best = None
    for g, (sf, flo, fhi) in fc.items():
        link = hc.get(g)
        if link is None:
            continue
        sh, hlo, hhi = link
        a = Fraction(sf, sh) if type(sf) is int and type(sh) is int else sf / sh
        b = fhi - a * hlo if upper else flo - a * hhi
        if (b > 0) if upper else (b < 0):
            if not h_lo > 0:
                continue
            a += Fraction(b) / h_lo
            if a < 0:
                continue
        if best is None or (a < best if upper else a > best):
            best = a
    return best


def scaled_product_bound(network: Network, p: Term, upper: bool):
    """An upper (or lower) bound of the product ``p`` from a bounded product that dominates it.

    For a key ``q = h_1*...*h_m`` and an injective matching of ``p``'s factors ``f_i``
    to factors ``h_j(i)`` with ``0 <= f_i <= a_i*h_j(i)``, the unmatched factors of
    ``q`` being ``>= L_j > 0``: ``p <= (prod a_i) * prod_matched h <= (prod a_i) * hi(q) / prod L_j``
    (the matched product is non-negative). The lower bound, from ``f_i >= a_i*h_j(i) >= 0``
    and unmatched factors in ``(0, H_j]``: ``p >= (prod a_i) * lo(q) / prod H_j``
    when ``lo(q) >= 0``.
    """
    match = _Matcher(network, upper)
    fs = p.args
    for f in fs:
        if not match.bounds(f)[0] >= 0:
            return None
    best = None
    for n, q in enumerate(_bounded_products(network, p, match.chain(fs[0]))):
        if n >= MAX_PRODUCTS:
            break
        bound = match.bound_from(fs, q)
        if bound is not None and (best is None or (bound < best if upper else bound > best)):
            best = bound
    return best


def _bounded_products(network: Network, p: Term, first: Chain):
    """The product keys (other than ``p``) with a factor whose key is in ``p``'s first
    factor's chain (a product is a parent of its factors' keys)."""
    seen = {p}
    for g in first:
        key = network.split(g)[1]
        for q in network.parents(key):
            if q.kind == MUL and q not in seen and len(q.args) >= len(p.args):
                seen.add(q)
                yield q


class _Matcher:
    """One question's matching of factors, with the chains and bounds it reads cached."""

    def __init__(self, network: Network, upper: bool):
        self.network = network
        self.upper = upper
        self._chains: dict[Term, Chain] = {}
        self._bounds: dict[Term, tuple] = {}
        self._related: dict[tuple[Term, Term], Number | None] = {}

    def chain(self, t: Term) -> Chain:
        c = self._chains.get(t)
        if c is None:
            c = self._chains[t] = chain(self.network, t)
        return c

    def bounds(self, t: Term) -> tuple:
        b = self._bounds.get(t)
        if b is None:
            network = self.network
            b = self._bounds[t] = network.domain.bounds(network.value(t))
        return b

    def relate(self, f: Term, h: Term) -> Number | None:
        key = (f, h)
        if key not in self._related:
            self._related[key] = relate(self.chain(f), self.chain(h), self.bounds(h)[0], self.upper)
        return self._related[key]

    def bound_from(self, fs, q: Term):
        """The bound of ``prod fs`` through the key ``q`` (see :func:`scaled_product_bound`)."""
        upper = self.upper
        qv = self.network.key_value(q)
        if qv is None:
            return None
        q_lo, q_hi = self.network.domain.bounds(qv)
        if (q_hi == math.inf) if upper else (q_lo == -math.inf or q_lo < 0):
            return None
        free = list(q.args)
        scale: Number = 1
        for f in fs:
            pick = None
            for h in free:
                a = self.relate(f, h)
                if a is not None and (pick is None or (a < pick[1] if upper else a > pick[1])):
                    pick = (h, a)
            if pick is None:
                return None
            free.remove(pick[0])
            scale *= pick[1]
        rest: Number = 1
        for h in free:
            lo, hi = self.bounds(h)
            if not lo > 0 or (not upper and hi == math.inf):
                return None
            rest *= lo if upper else hi
        if upper:
            return math.floor(Fraction(scale) * q_hi / rest)
        return math.ceil(Fraction(scale) * q_lo / rest)
