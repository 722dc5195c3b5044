"""The reasoner over terms: facts one at a time, guards decided against them.

Layers are tried cheapest first; each verdict records the one that decided it.
A contradiction among the facts makes every guard vacuously TRUE, and is
reported through :attr:`Reasoner.contradiction` (in a traced program it means a
bug upstream or in us).
"""

from __future__ import annotations

import math
from typing import Iterable

from absint.lang import terms as T
from absint.reasoning.network import Engine
from absint.reasoning.polyhedral import RelationalLayer
from absint.lang.terms import BOOL, INT, Term
from absint.reasoning.verdict import UNKNOWN, Layer, Truth, Verdict

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1

#: how costly a layer is, to report the costliest one a combined answer used
_LAYER_COST = {Layer.NORMAL_FORM: 0, Layer.INTERVAL: 1, Layer.POLYHEDRA: 2, Layer.CONTRADICTION: 3,
               Layer.NONE: -1}


class Reasoner:
    def __init__(self, domain=None, budget: int | None = None, relational: bool = True,
                 backed: Iterable[Term] = ()):
        """``backed``: the symbols with example values (inputs); equalities eliminate them first."""
        kwargs = {} if budget is None else {"budget": budget}
        self.engine = Engine(domain, **kwargs)
        self.engine.preferred_eliminations.update(backed)
        self.relational = RelationalLayer(self.engine) if relational else None
        self.facts: list[Term] = []

    def prefer_to_eliminate(self, variables: Iterable[Term]) -> None:
        """Equalities eliminate these variables first (the inputs: backed symbols), so that
        the unbacked sizes they define stay the basis and keep their own bounds."""
        self.engine.preferred_eliminations.update(variables)

    @property
    def contradiction(self) -> bool:
        return self.engine.contradiction

    def assume(self, fact: Term) -> None:
        """Add a Bool fact; it is trusted only in the sense that later verdicts assume it."""
        if fact.sort is not BOOL:
            raise TypeError(f"assume() takes a Bool term, got {fact.sort.value}")
        self.facts.append(fact)
        self.engine.assume(fact)

    def decide(self, guard: Term) -> Verdict:
        """TRUE if the facts imply ``guard``, FALSE if they refute it, else UNKNOWN."""
        if guard.sort is not BOOL:
            raise TypeError(f"decide() takes a Bool term, got {guard.sort.value}")
        engine = self.engine
        if engine.contradiction:
            return Verdict.true(Layer.CONTRADICTION)
        g = engine.normalize(guard)
        if g.kind == "const":
            return Verdict(Truth.TRUE if g.data else Truth.FALSE, Layer.NORMAL_FORM)
        r = engine.quick_truth(g)
        if r is None:
            r = engine.truth(g)
        if engine.contradiction:  # registering the guard's terms can expose one
            return Verdict.true(Layer.CONTRADICTION)
        if r is True:
            return Verdict.true(Layer.INTERVAL)
        if r is False:
            return Verdict.false(Layer.INTERVAL)
        if self.relational is not None:
            r = self.relational.decide(g)
            if r is True:
                return Verdict.true(Layer.POLYHEDRA)
            if r is False:
                return Verdict.false(Layer.POLYHEDRA)
        return UNKNOWN

    def fits_int32(self, *terms: Term) -> Verdict:
        """TRUE if every numeric term provably lies in ``[-2**31, 2**31 - 1]``, FALSE if
        one provably lies outside, else UNKNOWN; ``.by`` is the costliest layer used."""
        by = Layer.NORMAL_FORM
        unknown = False
        for t in terms:
            if t.sort is BOOL:
                raise TypeError("fits_int32 takes numeric terms")
            for guard in (T.le(t, T.const(INT32_MAX)), T.ge(t, T.const(INT32_MIN))):
                v = self.decide(guard)
                if v.truth is Truth.FALSE:
                    return Verdict.false(v.by)
                if v.truth is Truth.TRUE:
                    by = max(by, v.by, key=_LAYER_COST.__getitem__)
                else:
                    unknown = True  # keep looking: another term may be provably out of range
        return UNKNOWN if unknown else Verdict.true(by)

    def bounds(self, term: Term) -> tuple[object, object]:
        """Numeric (lo, hi) of a numeric term; ``-inf``/``inf`` where unbounded."""
        return self.engine.bounds(term)

    def upper_bound(self, term: Term, in_terms_of: Iterable[Term]) -> list[Term] | None:
        """Upper bounds of ``term`` over the variables ``in_terms_of`` (and atoms built
        from them only, such as ``s0*s1``): the minimum of the returned pieces bounds
        ``term``; None if no such bound is known. A constant bound comes back as a
        one-element list with a constant."""
        return self._symbolic(term, in_terms_of, upper=True)

    def lower_bound(self, term: Term, in_terms_of: Iterable[Term]) -> list[Term] | None:
        """Lower bounds; the maximum of the returned pieces bounds ``term`` from below."""
        return self._symbolic(term, in_terms_of, upper=False)

    def _symbolic(self, term: Term, in_terms_of: Iterable[Term], upper: bool) -> list[Term] | None:
        wanted = set(in_terms_of)
        if term.sort is BOOL:
            raise TypeError("bounds take a numeric term")
        if set(T.free_vars(term)) <= wanted:  # already over the wanted variables
            return [term]
        engine = self.engine
        t = engine.normalize(term)
        engine.register(t)
        pieces: list[Term] = []
        if self.relational is not None and not engine.contradiction:
            # the parametric maximum is over the atoms the wanted variables normalise to
            params = {v for p in wanted for v in T.free_vars(engine.normalize(p))}
            found = self.relational.symbolic_bound(t, params, upper) or []
            pieces = [p for p in found if set(T.free_vars(p)) <= wanted]
        # A variable an equality eliminated (u0 + u1 = s0 binds s0) is no atom the
        # parametric bound can mention; term - s0 may still have a numeric bound c:
        # term <= s0 + c.
        for x in sorted(wanted, key=lambda v: v.id):
            if engine.normalize(x) is not x:
                lo, hi = engine.bounds(T.sub(term, x))
                c = hi if upper else lo
                if c not in (math.inf, -math.inf):
                    pieces.append(T.add(x, T.const(c)))
        if pieces:
            return pieces
        lo, hi = engine.bounds(t)
        numeric = hi if upper else lo
        return None if numeric in (math.inf, -math.inf) else [T.const(numeric)]

    def normalize(self, term: Term) -> Term:
        return self.engine.normalize(term)

    def residual(self, guards: Iterable[Term]) -> list[Term]:
        """What of the conjunction of ``guards`` the facts do not already imply:
        Bool terms whose conjunction is equivalent to ``guards``' under the facts
        (``[]``: implied; ``[FALSE]``: refuted). Conjuncts decided by the layers
        are dropped; the linear ones left go through isl's gist on their slice;
        the rest come back in normal form."""
        if self.engine.contradiction:
            return []
        open_: list[Term] = []
        for g in guards:
            for c in (g.args if g.kind == "and" else (g,)):
                v = self.decide(c).truth
                if v is Truth.FALSE:
                    return [T.FALSE]
                if v is Truth.UNKNOWN:
                    open_.append(self.engine.normalize(c))
        linear = [c for c in open_ if c.kind in ("le", "eq") and c.args[0].sort is INT]
        if len(linear) > 0 and self.relational is not None:
            kept = self.relational.residual(linear)
            if kept is not None:
                rest = [c for c in open_ if c not in linear]
                if any(k is T.FALSE for k in kept):
                    return [T.FALSE]
                return rest + [k for k in kept if k is not T.TRUE]
        return open_


__all__ = ["Reasoner", "Verdict", "Truth", "Layer", "T"]
