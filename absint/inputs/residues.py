"""What a symbol's own constraints say modulo a small constant: ``h mod 4 in {0, 3}``.

A constraint over one Int symbol ``x`` that divides or takes a remainder by constants
(``(= (mod h 4) 0)``, ``(not (= (mod (- h 1) 2) 0))``) often depends only on ``x mod m``.
For each residue ``r`` of ``m`` (at most :data:`MAX_MODULUS`), a fresh reasoner assumes
``x``'s range and ``x mod m = r`` and decides every such constraint: all TRUE, the
whole class passes; one FALSE, none of it does. If any constraint is UNKNOWN for some
class, the constraints do not reduce to a residue set (or absint cannot show it) and stay
relations. So a residue set is stated only when it is exactly what the constraints allow
within the range.
"""

from __future__ import annotations

import math

from absint.lang import terms as T
from absint.lang.dag import subterms
from absint.lang.kinds import CONST, DIV, MOD
from absint.lang.terms import INT, Term
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Truth

#: the largest modulus whose residues are enumerated
MAX_MODULUS = 64


def periodic_candidates(c: Term) -> Term | None:
    """The one Int variable of ``c`` when ``c`` divides or reduces by a positive constant."""
    xs = T.free_vars(c)
    if len(xs) != 1 or xs[0].sort is not INT:
        return None
    return xs[0] if divisors(c) else None


def divisors(c: Term) -> list[int]:
    """The positive constant divisors of the ``div``/``mod`` nodes of ``c`` (one per node)."""
    return [s.args[1].data for s in subterms(c)
            if s.kind in (DIV, MOD) and s.args[1].kind == CONST and s.args[1].data > 0]


def modulus_for(constraints: list[Term]) -> int | None:
    """A candidate period of the constraints in their variable: the product of the
    divisors of all their ``div``/``mod`` nodes (``((x + 1) div 2 + 1) div 2`` has period
    4) when at most :data:`MAX_MODULUS`, else their lcm. Only a candidate: the residue
    check proves it or gives up."""
    nodes = {s for c in constraints for s in subterms(c)
             if s.kind in (DIV, MOD) and s.args[1].kind == CONST and s.args[1].data > 0}
    ds = [s.args[1].data for s in nodes]
    product = math.prod(ds)
    m = product if product <= MAX_MODULUS else math.lcm(*ds)
    return m if 1 < m <= MAX_MODULUS else None


def residue_set(x: Term, lo, hi, constraints: list[Term]) -> tuple[int, tuple[int, ...]] | None:
    """``(m, residues)`` with ``constraints`` equivalent, for ``lo <= x <= hi``, to
    ``x mod m in residues``; ``(1, (0,))`` when they always hold there; None when that
    is not shown for every residue (or none would pass)."""
    m = modulus_for(constraints)
    if m is None:
        return None
    allowed = []
    for r in range(m):
        v = _class_truth(x, lo, hi, m, r, constraints)
        if v is None:
            return None
        if v:
            allowed.append(r)
    if not allowed:
        return None
    return reduced(m, tuple(allowed))


def _class_truth(x: Term, lo, hi, m: int, r: int, constraints: list[Term]) -> bool | None:
    """Whether every constraint holds on the class ``x = r (mod m)`` within the range
    (False: one fails on all of it, or the class is empty there; None: not shown)."""
    q = Reasoner()
    if lo != -math.inf:
        q.assume(T.ge(x, T.const(lo)))
    if hi != math.inf:
        q.assume(T.le(x, T.const(hi)))
    q.assume(T.eq(T.mod(x, T.const(m)), T.const(r)))
    if q.contradiction:
        return False
    verdicts = [q.decide(c).truth for c in constraints]
    if q.contradiction or Truth.FALSE in verdicts:
        return False
    return True if all(v is Truth.TRUE for v in verdicts) else None


def reduced(m: int, residues: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    """The smallest period of the residue set: ``mod 4 in {1, 3}`` is ``mod 2 in {1}``."""
    chosen = set(residues)
    for p in range(1, m + 1):
        if m % p == 0 and all((r in chosen) == (r % p in chosen) for r in range(m)):
            return p, tuple(r for r in residues if r < p)
    return m, residues


def residue_term(x: Term, m: int, residues: tuple[int, ...]) -> Term:
    """``x mod m`` in ``residues`` as a term: one equality, or their disjunction."""
    xm = T.mod(x, T.const(m))
    return T.or_(*(T.eq(xm, T.const(r)) for r in residues))
