"""Presentation: a term as the simplest expression equal to it under the facts.

Why a pass apart from the normal form. The normal form (layer 0) must keep the keys
that facts and guards share: a fact on an intermediate quotient ``(x div 2) div 3 <= 7``
and a later guard on the same quotient meet only while both keep that shape. Folding
nested divisions in the canonical constructors was measured to lose 279 corpus proofs.
So deciding keeps the normal form, and this pass only rewrites what is shown to people
(``absint outputs``, ``bounds --outputs``, ``ShapeReasoner.simplify``).

The pass, on the normal form under the facts, children before parents, every rewrite a
row of :data:`absint.reasoning.rules.RULES` run by the one engine:

1. a numeric sub-term whose bounds are a point is that constant;
2. ``ite`` with a decided condition is its branch; ``min``/``max`` of operands whose
   order is decided is one of them: the deciding rows of the rule table
   (:data:`absint.reasoning.rules.BY_KIND`), their conditions decided by every layer, isl
   included, on the original operands (which the reasoner knows as keys);
3. divisions and remainders by positive constants are folded by the presentation rows of
   the rule table (phase ``PRESENT``; exact for every integer): a nested quotient
   ``(z div a + k) div d = (z + k*a) div (a*d)``, a common content
   ``(g*P) div (g*D) = P div D`` and ``(g*P) mod (g*D) = g*(P mod D)``, an inner remainder
   by a multiple ``(z mod (m*d)) mod d = z mod d``;
4. a division whose remainder the facts fix (``Q mod d = r``, read from the congruence):
   ``(Q + k) div d = Q div d + (r + k) div d``, and ``c*d*(x div d) = c*(x - r)``.

Steps 1 and 4 are the rows of phase ``PRESENT_FIXED``
(:data:`absint.reasoning.rules.FIXED_ROWS`): the constant they write (the point, the
remainder ``r``) is no part of the term, so their match reads it from the reasoner's bounds,
and their conditions (``t = c``, ``Q mod d = r``) state it; the driver here has layers 0-1
prove them (:func:`fixed_proved`: the bounds were theirs, read on the key just bounded), so
a value misread is refuted, not shown.

Every rewrite is an equality at every point that satisfies the facts, and so is the
result. Nothing here changes what the reasoner knows beyond registering the sub-terms
it bounds (as any ``bounds`` question does; a condition proved reads the same keys).
"""

from __future__ import annotations

from typing import Protocol

import attrs

from absint.lang import terms as T
from absint.lang.dag import subterms
from absint.lang.kinds import CONST, DIV, ITE, MAX, MIN, MOD
from absint.lang.rewriting import Row, holds, rewrite
from absint.lang.terms import BOOL, Term
from absint.reasoning.rules import BY_KIND, FIXED_BY_KIND, POINT_ROW, PRESENT_BY_KIND, Bounds, Shown, is_point, \
    positive_constant, rewrite_exact
from absint.reasoning.verdict import Truth, Verdict


class Asker(Protocol):
    """What the pass asks of the reasoner (:class:`absint.reasoning.reasoner.Reasoner`)."""

    @property
    def contradiction(self) -> bool: ...

    def normalize(self, term: Term) -> Term: ...

    def truth(self, b: Term) -> bool | None: ...

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


def simplify(r: Asker, term: Term) -> Simplified:
    """``term`` as the simplest expression found equal to it under the facts: its constant
    when the bounds are a point, else the smaller of the presented normal form and the
    presented term as written. Under contradictory facts the normal form is returned."""
    if term.sort is BOOL:
        raise TypeError("simplify() takes a numeric term")
    nf = r.normalize(term)
    lo, hi = r.bounds(nf)
    if is_point(lo, hi):  # the point row alone: the whole term before its parts
        point = _fixed(r, (POINT_ROW,), nf, _unshown, lambda t: (lo, hi) if t is nf else r.bounds(t))
        if point is not None:
            return Simplified(point, lo, hi)
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
    """One node, its sub-terms already presented in ``out``: the rows of the module
    docstring; decisions and bounds are read on the original operands, which the reasoner
    knows as keys."""
    if s.sort is BOOL or s.kind == CONST:
        return s
    k = s.kind
    fixed = _fixed(r, FIXED_BY_KIND[k], s, lambda a: out[a.id], r.bounds)
    if fixed is not None:
        return fixed
    if not s.args:
        return s
    if k in (ITE, MIN, MAX):  # the operand the deciding rows choose, as presented
        chosen = rewrite(BY_KIND[k], (s, s), r.normalize, lambda row, m: _decided(r, row, m))
        if chosen is not None:
            return out[chosen.id]
    rebuilt = T.rebuild(s, tuple(out[a.id] for a in s.args))
    if k in (DIV, MOD) and positive_constant(s.args[1]):
        return present_exact(rebuilt)
    return rebuilt


def _decided(r: Asker, row: Row, m) -> bool:
    """The prover of the deciding rows here: each condition group has a term ``r`` decides TRUE."""
    return holds(row, m, r.normalize, lambda c: r.decide(c).truth is Truth.TRUE)


def _fixed(r: Asker, rows: tuple[Row, ...], s: Term, shown: Shown, bounds: Bounds) -> Term | None:
    """The first of the present-fixed ``rows`` that matches ``s`` (its sub-terms as ``shown``, values
    read with ``bounds``: the reasoner's, or the ones just read of ``s``) and that layers 0-1 prove."""
    return rewrite(rows, (s, shown, bounds), present_exact, lambda row, m: fixed_proved(r, row, m))


def fixed_proved(r: Asker, row: Row, m) -> bool:
    """The prover of the present-fixed rows: each condition group has a term layers 0-1 prove.
    The value stated was read from their bounds, so a right one is proved on the key just
    read (no isl, no case split: nothing the bounds did not see) and a misread one refuted."""
    return holds(row, m, present_exact, lambda c: r.truth(r.normalize(c)) is True)


def _unshown(t: Term) -> Term:
    """No sub-term presented yet: each is itself (the point row reads none)."""
    return t


def present_exact(t: Term) -> Term:
    """``t`` with the presentation rows of :data:`absint.reasoning.rules.RULES` (phase
    ``PRESENT``, exact for every integer) applied until none does."""
    return rewrite_exact(t, PRESENT_BY_KIND)


# ---------------------------------------------------------------- folds exact for every integer


def fold_div(x: Term, d: int) -> Term:
    """``x div d`` for ``d > 0`` with nested quotients and common contents folded: the
    presentation rows of :data:`absint.reasoning.rules.RULES` (exact for every integer)."""
    return present_exact(T.div(x, T.const(d)))


def fold_mod(x: Term, d: int) -> Term:
    """``x mod d`` for ``d > 0`` with inner remainders by multiples and common contents
    folded, by the same rows."""
    return present_exact(T.mod(x, T.const(d)))
