"""The reasoner over terms: facts one at a time, guards decided against them.

Layers are tried cheapest first; each verdict records the one that decided it.
A contradiction among the facts makes every guard vacuously TRUE, and is
reported through :attr:`Reasoner.contradiction` (in a traced program it means a
bug upstream or in us).
"""

from __future__ import annotations

from absint import terms as T
from absint.engine import Engine
from absint.terms import BOOL, Term
from absint.verdict import UNKNOWN, Layer, Truth, Verdict


class Reasoner:
    def __init__(self, domain=None, budget: int | None = None):
        kwargs = {} if budget is None else {"budget": budget}
        self.engine = Engine(domain, **kwargs)
        self.facts: list[Term] = []

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
        r = engine.truth(g)
        if engine.contradiction:  # registering the guard's terms can expose one
            return Verdict.true(Layer.CONTRADICTION)
        if r is True:
            return Verdict.true(Layer.INTERVAL)
        if r is False:
            return Verdict.false(Layer.INTERVAL)
        return UNKNOWN

    def bounds(self, term: Term) -> tuple[object, object]:
        """Numeric (lo, hi) of a numeric term; ``-inf``/``inf`` where unbounded."""
        return self.engine.bounds(term)

    def normalize(self, term: Term) -> Term:
        return self.engine.normalize(term)


__all__ = ["Reasoner", "Verdict", "Truth", "Layer", "T"]
