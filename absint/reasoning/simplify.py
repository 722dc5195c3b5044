"""Presentation: a term as the simplest expression equal to it under the facts.

Why a pass apart from the normal form. The normal form (layer 0) must keep the keys
that facts and guards share: a fact on an intermediate quotient ``(x div 2) div 3 <= 7``
and a later guard on the same quotient meet only while both keep that shape. Folding
nested divisions in the canonical constructors was measured to lose 279 corpus proofs.
So deciding keeps the normal form, and this pass only rewrites what is shown to people
(``absint outputs``, ``bounds --outputs``, ``ShapeReasoner.simplify``).

The pass, on the normal form under the facts, children before parents:

1. a numeric sub-term whose bounds are a point is that constant;
2. ``ite`` with a decided condition is its branch; ``min``/``max`` of operands whose
   order is decided is one of them: the deciding rows of the rule table
   (:data:`absint.reasoning.rules.BY_KIND`), their conditions decided by every layer, isl
   included, on the original operands (which the reasoner knows as keys);
3. divisions and remainders by positive constants are folded by the presentation rows of
   the rule table (:data:`absint.reasoning.rules.RULES`, phase ``PRESENT``; exact for every
   integer): a nested quotient ``(z div a + k) div d = (z + k*a) div (a*d)``, a common
   content ``(g*P) div (g*D) = P div D`` and ``(g*P) mod (g*D) = g*(P mod D)``, an inner
   remainder by a multiple ``(z mod (m*d)) mod d = z mod d``;
4. a division whose remainder the facts fix (``Q mod d = r``, read from the congruence):
   ``(Q + k) div d = Q div d + (r + k) div d``, and ``c*d*(x div d) = c*(x - r)``.

Steps 1 and 4 are not rows: the constant they write (the point, the remainder ``r``) is a
value read from the facts' bounds, not a part of the term a match could name; a row would
have to try every residue as a side condition. They compute a value, then build the term.

Every rewrite is an equality at every point that satisfies the facts, and so is the
result. Nothing here changes what the reasoner knows beyond registering the sub-terms
it bounds (as any ``bounds`` question does).
"""

from __future__ import annotations

import math
from typing import Protocol

import attrs

from absint.lang import terms as T
from absint.lang.dag import subterms
from absint.lang.kinds import CONST, DIV, ITE, LIN, MAX, MIN, MOD
from absint.lang.rewriting import Row, holds, rewrite
from absint.lang.terms import BOOL, INT, Term
from absint.reasoning.rules import BY_KIND, PRESENT_BY_KIND, positive_constant, rewrite_exact
from absint.reasoning.verdict import Truth, Verdict


class Asker(Protocol):
    """What the pass asks of the reasoner (:class:`absint.reasoning.reasoner.Reasoner`)."""

    @property
    def contradiction(self) -> bool: ...

    def normalize(self, term: Term) -> Term: ...

    def bounds(self, term: Term) -> tuple[object, object]: ...

    def decide(self, guard: Term) -> Verdict: ...


@attrs.frozen(slots=True)
class Simplified:
    """A term shown simply: ``term`` equals the original at every point satisfying the
    facts; ``lo``/``hi`` are the original's numeric bounds (``-inf``/``inf`` if none)."""

    term: Term
    lo: object
    hi: object

    @property
    def constant(self) -> object | None:
        """The value the facts fix, or None."""
        return self.term.data if self.term.kind == CONST else None


def is_point(lo: object, hi: object) -> bool:
    return lo == hi and lo not in (math.inf, -math.inf)


def simplify(r: Asker, term: Term) -> Simplified:
    """``term`` as the simplest expression found equal to it under the facts: its constant
    when the bounds are a point, else the smaller of the presented normal form and the
    presented term as written. Under contradictory facts the normal form is returned."""
    if term.sort is BOOL:
        raise TypeError("simplify() takes a numeric term")
    nf = r.normalize(term)
    lo, hi = r.bounds(nf)
    if is_point(lo, hi):
        return Simplified(T.const(lo, term.sort), lo, hi)
    if r.contradiction:
        return Simplified(nf, lo, hi)
    best = present(r, nf)
    if term is not nf:
        other = present(r, term)
        if tree_size(other) < tree_size(best):
            best = other
    return Simplified(best, lo, hi)


def tree_size(t: Term, cap: int = 1 << 20) -> int:
    """Nodes of ``t`` as printed without sharing (capped): what a reader has to read."""
    size: dict[int, int] = {}
    for s in subterms(t):
        size[s.id] = min(cap, 1 + sum(size[a.id] for a in s.args))
    return size[t.id]


def present(r: Asker, t: Term) -> Term:
    """The rewrites of the module docstring, bottom-up over the DAG of ``t``."""
    out: dict[int, Term] = {}
    for s in subterms(t):
        out[s.id] = _present_node(r, s, out)
    return out[t.id]


def _present_node(r: Asker, s: Term, out: dict[int, Term]) -> Term:
    """One node, its operands already presented in ``out``; decisions and bounds are read
    on the original operands, which the reasoner knows as keys."""
    if s.sort is BOOL or s.kind == CONST:
        return s
    lo, hi = r.bounds(s)
    if is_point(lo, hi):
        return T.const(lo, s.sort)
    if not s.args:
        return s
    k = s.kind
    if k in (ITE, MIN, MAX):  # the operand the deciding rows choose, as presented
        chosen = rewrite(BY_KIND[k], (s, s), r.normalize, lambda row, m: _decided(r, row, m))
        if chosen is not None:
            return out[chosen.id]
    args = tuple(out[a.id] for a in s.args)
    if k == LIN and s.sort is INT:
        return _exact_multiples(r, s, args, out)
    if k in (DIV, MOD) and positive_constant(s.args[1]):
        return _divided(r, s, args[0], s.args[1].data)
    return T.rebuild(s, args)


def _decided(r: Asker, row: Row, m) -> bool:
    """The prover of the deciding rows here: each condition group has a term ``r`` decides TRUE."""
    return holds(row, m, r.normalize, lambda c: r.decide(c).truth is Truth.TRUE)


# ---------------------------------------------------------------- remainders the facts fix


def fixed_remainder(r: Asker, x: Term, d: int) -> int | None:
    """``x mod d`` when the facts fix it (its bounds are a point), else None."""
    lo, hi = r.bounds(T.mod(x, T.const(d)))
    return lo if is_point(lo, hi) else None


def _exact_multiples(r: Asker, s: Term, args: tuple[Term, ...], out: dict[int, Term]) -> Term:
    """``c*d*(x div d) = c*(x - rem)`` when ``x mod d = rem`` under the facts: then
    ``x = d*(x div d) + rem`` exactly. Tried on the atom as written, then as presented
    (``4*((4*x) div 16)`` is presented ``4*(x div 4)``, exact where ``x mod 4`` is fixed).
    Other atoms stay as presented."""
    coefs, k = s.data
    parts: list[Term] = [T.const(k)]
    for a, p, v in zip(s.args, args, coefs):
        exact = _exact_multiple(r, a, v, out[a.args[0].id]) if a.kind == DIV else None
        if exact is None and p.kind == DIV:
            exact = _exact_multiple(r, p, v, p.args[0])
        parts.append(T.scale(p, v) if exact is None else exact)
    return T.add(*parts)


def _exact_multiple(r: Asker, q: Term, v: int, x_shown: Term) -> Term | None:
    """``v*q`` for ``q = x div d`` as ``(v/d)*(x_shown - rem)`` (``x_shown``: ``x`` as
    presented) when ``d`` divides ``v`` and the facts fix ``x mod d = rem``; else None."""
    if not positive_constant(q.args[1]) or v % q.args[1].data:
        return None
    d = q.args[1].data
    rem = fixed_remainder(r, q.args[0], d)
    return None if rem is None else T.scale(T.sub(x_shown, T.const(rem)), v // d)


def _divided(r: Asker, s: Term, x: Term, d: int) -> Term:
    """``s`` = ``x_orig div d`` or ``x_orig mod d`` (``x`` presented): a fixed remainder moves the
    constant out of a quotient, then the constant folds apply."""
    if s.kind == DIV:
        q, k = _without_constant(x)
        if k != 0 and q.kind != CONST:
            rem = fixed_remainder(r, T.sub(s.args[0], T.const(k)), d)
            if rem is not None:  # x = Q + k, Q = d*(Q div d) + rem
                return T.add(fold_div(q, d), T.const(T.euclid_div(rem + k, d)))
        return fold_div(x, d)
    return fold_mod(x, d)


def _without_constant(x: Term) -> tuple[Term, int]:
    coefs, k = T.linear_parts(x)
    return T.make_linear(INT, coefs, 0), k


# ---------------------------------------------------------------- folds exact for every integer


def fold_div(x: Term, d: int) -> Term:
    """``x div d`` for ``d > 0`` with nested quotients and common contents folded: the
    presentation rows of :data:`absint.reasoning.rules.RULES` (exact for every integer)."""
    return rewrite_exact(T.div(x, T.const(d)), PRESENT_BY_KIND)


def fold_mod(x: Term, d: int) -> Term:
    """``x mod d`` for ``d > 0`` with inner remainders by multiples and common contents
    folded, by the same rows."""
    return rewrite_exact(T.mod(x, T.const(d)), PRESENT_BY_KIND)
