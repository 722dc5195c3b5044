"""Layer 1's verdict: does the value network entail a normal Bool term, or refute it?

A comparison ``t <op> 0`` is read off the value of ``t``'s key (interval, then
congruence), then off the values a disequality excluded, the non-zero factors of a
product, Miné's intervalisation of a sum with shared atoms, and the bound of a product
through a dominating one; each of these asks the facade. ``and``/``or`` combine their
operands' truths; a Bool variable is decided by the literals asserted.
"""

from __future__ import annotations

from fractions import Fraction

from absint.lang import terms as T
from absint.lang.terms import INT, Term
from absint.reasoning.facade import Facade


class Entailment:
    def __init__(self, facade: Facade):
        self.facade = facade
        self.network = facade.network

    def truth(self, b: Term) -> bool | None:
        """Whether a normal Bool term holds in every state the facts allow (None: unknown).

        Registers the keys of a comparison it reads, so that later facts narrow them too.
        """
        kind = b.kind
        if kind == "const":
            return b.data
        if kind in T.COMPARISON_KINDS:
            return self._comparison(kind, b.args[0])
        if kind in ("and", "or"):
            absorbing = kind == "or"  # a TRUE disjunct decides an `or`, a FALSE conjunct an `and`
            out = not absorbing
            for a in b.args:
                r = self.truth(a)
                if r is absorbing:
                    return absorbing
                if r is None:
                    out = None
            return out
        if kind in ("not", "var"):
            return self.facade.literal_truth(b)
        return None

    def quick_truth(self, b: Term) -> bool | None:
        """Decide a normal comparison from the bounds its atoms hold *now*, registering
        nothing; None when that does not decide it (then ask :meth:`truth`).

        This is the first-time question's fast path: registering a new key costs more
        than the answer, and a key nobody asserted holds exactly the value its atoms
        give it, so nothing is lost by not keeping it. Bounds are sound, hence so is
        every answer; only the interval part of the value is read.
        """
        kind = b.kind
        if kind not in T.COMPARISON_KINDS:
            return None
        bounds = self.network.linear_bounds(b.args[0])
        if bounds is None:
            return None
        lo, hi = bounds
        if kind == "le":
            return True if hi <= 0 else (False if lo > 0 else None)
        if kind == "lt":
            return True if hi < 0 else (False if lo >= 0 else None)
        if lo > 0 or hi < 0:
            return kind == "ne"
        if lo == hi == 0:
            return kind == "eq"
        return None

    def _comparison(self, kind: str, t: Term) -> bool | None:
        network = self.network
        network.register(t)
        r = network.domain.truth(kind, network.value(t))
        if r is not None:
            return r
        k, p, c = network.split(t)
        if kind in ("eq", "ne"):
            target = Fraction(-c) / k
            if target in network.excluded_values(p):
                return kind == "ne"
            if target == 0 and p.kind == "mul" and self._factors_nonzero(p):
                return kind == "ne"
        if t.kind == "lin" and t.sort is INT:
            v = self.facade.linearized_value(t)
            if v is not None:
                r = network.domain.truth(kind, v)
                if r is not None:
                    return r
        if p.kind == "mul" and t.sort is INT:
            return self._by_dominance(kind, k, p, c)
        return None

    def _by_dominance(self, kind: str, k, p: Term, c) -> bool | None:
        """Decide ``k*p + c <kind> 0`` for a product ``p`` bounded through a dominating product."""
        bound = self.facade.product_bound
        if kind == "le":  # k*p + c <= 0
            upper = bound(p, upper=k > 0)
            if upper is not None and k * upper + c <= 0:
                return True
            lower = bound(p, upper=k < 0)
            if lower is not None and k * lower + c > 0:
                return False
            return None
        target = Fraction(-c) / k
        hi = bound(p, upper=True)
        if hi is not None and target > hi:
            return kind == "ne"
        lo = bound(p, upper=False)
        if lo is not None and target < lo:
            return kind == "ne"
        return None

    def _factors_nonzero(self, p: Term) -> bool:
        """A product is non-zero when each factor is."""
        return all(self.facade.truth(T.ne(f, T.ZERO)) is True for f in p.args)
