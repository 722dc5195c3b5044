"""Syntactic algebra of monomials: factors, exact quotients, common factors.

A monomial is a ``mul`` atom (its primitive factors sorted by id) or any other single
atom; these helpers compare factors by identity (terms are interned), never by value.
"""

from __future__ import annotations

from absint.lang import terms as T
from absint.lang.kinds import CONST, LIN, MUL
from absint.lang.terms import INT, Term


def factors(t: Term) -> tuple[Term, ...]:
    """The primitive factors of a monomial (a ``mul`` atom or any other single atom)."""
    return t.args if t.kind == MUL else (t,)


def remove_factors(big: tuple[Term, ...], small: tuple[Term, ...]) -> list[Term] | None:
    """``big`` minus the multiset ``small``, or None if ``small`` is not contained in it."""
    rest = list(big)
    for f in small:
        for i, g in enumerate(rest):
            if g is f:
                del rest[i]
                break
        else:
            return None
    return rest


def exact_quotient(a: Term, b: Term) -> Term | None:
    """``q`` with ``a = q*b`` syntactically (every monomial of ``a`` a multiple of ``b``)."""
    if b.sort is not INT or a.sort is not INT:
        return None
    if a is b:
        return T.ONE
    kb, pb = T.content(b)
    if pb.kind == CONST:
        return None
    coefs, c = T.linear_parts(a)
    if c != 0 or not coefs:
        return None
    fb = factors(pb)
    out: dict[Term, int] = {}
    for m, v in coefs.items():
        if v % kb:
            return None
        rest = remove_factors(factors(m), fb)
        if rest is None:
            return None
        q = T.mul(*rest) if rest else T.ONE
        qc, q0 = T.linear_parts(q)
        if q0:
            c += (v // kb) * q0
        for x, w in qc.items():
            out[x] = out.get(x, 0) + (v // kb) * w
    return T.make_linear(INT, out, c)


def common_factors(monomials) -> list[Term]:
    """The multiset of primitive factors shared by every monomial."""
    it = iter(monomials)
    common = list(factors(next(it)))
    for m in it:
        rest = list(factors(m))
        kept = []
        for f in common:
            for i, g in enumerate(rest):
                if g is f:
                    del rest[i]
                    kept.append(f)
                    break
        common = kept
        if not common:
            break
    return common


def divide_monomials(items, common: list[Term], sign: int) -> Term:
    """``sum v*m / prod(common)`` for monomials ``m`` that all contain ``common``."""
    return T.add(T.ZERO, *(T.scale(T.mul(T.ONE, *remove_factors(factors(m), common)), v * sign)
                           for m, v in items))


#: a product of sums is expanded into at most this many monomials
MAX_EXPANDED = 64


def within_expansion(fs) -> bool:
    """Whether multiplying out the product of ``fs`` (:func:`expand`) stays within
    :data:`MAX_EXPANDED` monomials at every step (each sum's summands and its constant)."""
    size = 1
    for f in fs:
        coefs, c = T.linear_parts(f)
        pieces = len(coefs) + (1 if c else 0)
        if size * pieces > MAX_EXPANDED:
            return False
        size *= pieces
    return True


def expand(fs) -> Term:
    """The product of ``fs`` multiplied out; its size is the caller's to check first
    (:func:`within_expansion`, what the MULTIPLY_OUT row's match asks)."""
    terms: list[tuple[object, list[Term]]] = [(1, [])]  # (coefficient, factors) monomials
    for f in fs:
        coefs, c = T.linear_parts(f)
        pieces = [(v, [a]) for a, v in coefs.items()] + ([(c, [])] if c else [])
        terms = [(k * v, m + p) for k, m in terms for v, p in pieces]
    return T.add(T.const(0, fs[0].sort), *(T.scale(T.mul(T.const(1, fs[0].sort), *m), k) for k, m in terms))
