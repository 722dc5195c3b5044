"""Difference bounds (zones): ``x - y <= c`` by shortest paths, at any length of chain.

Compilers write long chains: ``u0 <= u1 <= ... <= u127`` from ``_check``s over sorted
offsets. Each link is a key ``x - y`` of the value network with its bounds, and
``u0 <= u127`` follows by transitivity; the polyhedral layer sees only a slice of
:data:`~absint.reasoning.polyhedral.MAX_SLICE` atoms, so a long chain escapes it.

Here the network's keys are read as a graph: a bounded difference key ``a - b`` in
``[lo, hi]`` is an edge ``b -> a`` of weight ``hi`` and ``a -> b`` of weight ``-lo``; an
atom's own bounds connect it to zero. ``x - y <= d(y, x)``, the shortest path, with the
path through zero taken as ``min_a (d(y, a) - lo(a)) + min_b (hi(b) + d(b, x))``. Shortest
paths come from Bellman-Ford over the component, at most :data:`MAX_RELAXATIONS` edge
relaxations per search (a question runs up to four; then UNKNOWN). Nothing is stored: the graph is the network's
current keys, so it is as incremental as the network. Sound: every edge is a fact (or a
consequence of the facts), and a path sums valid inequalities. Over the integers,
difference constraints are exact, so the verdicts are those of an exact solver on them.
"""

from __future__ import annotations

from typing import Iterable

from absint.lang.terms import Term
from absint.reasoning.facade import Facade
from domains.bounds import is_infinite

#: edge relaxations one shortest-path search may spend (a question runs up to four)
MAX_RELAXATIONS = 50_000


class DifferenceBounds:
    def __init__(self, facade: Facade):
        self.network = facade.network

    def decide(self, g: Term) -> bool | None:
        """The truth of a normal comparison ``k*(x - y) + c <kind> 0``, or None."""
        if g.kind not in ("le", "lt", "eq", "ne"):
            return None
        t = g.args[0]
        k, p, c = self.network.split(t)
        if p is None or p.kind != "lin" or len(p.args) != 2 or tuple(p.data[0]) != (1, -1):
            return None
        x, y = p.args
        upper = self._difference_bound(y, x)  # x - y <= upper
        lower = self._difference_bound(x, y)  # y - x <= lower, so x - y >= -lower
        if upper is None and lower is None:
            return None
        lo = None if lower is None else -lower
        return _verdict(g.kind, k, c, lo, upper)

    def _difference_bound(self, source: Term, target: Term):
        """The least ``d`` with ``target - source <= d`` the graph shows, or None."""
        out = self._paths(source, reverse=False)
        if out is None:
            return None
        back = self._paths(target, reverse=True)
        best = out.get(target)
        if back is not None:
            via_zero = _min(d - lo for a, d in out.items() if (lo := self._bound(a, upper=False)) is not None)
            to_target = _min(hi + d for b, d in back.items() if (hi := self._bound(b, upper=True)) is not None)
            if via_zero is not None and to_target is not None:
                best = via_zero + to_target if best is None else min(best, via_zero + to_target)
        return best

    def _bound(self, a: Term, upper: bool):
        v = self.network.key_value(a)
        if v is None:
            return None
        lo, hi = self.network.domain.bounds(v)
        b = hi if upper else lo
        return None if is_infinite(b) else b

    def _paths(self, source: Term, reverse: bool) -> dict[Term, object] | None:
        """Shortest path lengths from ``source`` (to it, with ``reverse``); None when the
        budget runs out or a negative cycle shows the facts contradictory."""
        dist: dict[Term, object] = {source: 0}
        queue = [source]
        spent = 0
        while queue:
            nxt = []
            for u in queue:
                for w, weight in self._edges(u, reverse):
                    spent += 1
                    if spent > MAX_RELAXATIONS:
                        return None
                    d = dist[u] + weight
                    if w not in dist or d < dist[w]:
                        if w is source and d < 0:
                            return None
                        dist[w] = d
                        nxt.append(w)
            queue = list(dict.fromkeys(nxt))
        return dist

    def _edges(self, u: Term, reverse: bool) -> Iterable[tuple[Term, object]]:
        """Edges out of ``u`` (into ``u`` with ``reverse``) from bounded difference keys."""
        for q in self.network.parents(u):
            if q.kind != "lin" or len(q.args) != 2 or tuple(q.data[0]) != (1, -1):
                continue
            a, b = q.args  # q = a - b in [lo, hi]: b -> a (hi), a -> b (-lo)
            lo, hi = self.network.domain.bounds(self.network.key_value(q))
            if (u is b) != reverse:
                if not is_infinite(hi):
                    yield (a if u is b else b), hi
            elif not is_infinite(lo):
                yield (b if u is a else a), -lo


def _min(values):
    out = None
    for v in values:
        if out is None or v < out:
            out = v
    return out


def _verdict(kind: str, k, c, lo, hi) -> bool | None:
    """The truth of ``k*P + c <kind> 0`` for ``P`` in ``[lo, hi]`` (None: unbounded side)."""
    hi_t = None if hi is None else k * hi + c
    lo_t = None if lo is None else k * lo + c
    top, bottom = (hi_t, lo_t) if k > 0 else (lo_t, hi_t)  # the range of k*P + c
    if kind == "le":
        if top is not None and top <= 0:
            return True
        return False if bottom is not None and bottom > 0 else None
    if kind == "lt":
        if top is not None and top < 0:
            return True
        return False if bottom is not None and bottom >= 0 else None
    if (bottom is not None and bottom > 0) or (top is not None and top < 0):
        return kind == "ne"
    if top is not None and bottom is not None and top == bottom == 0:
        return kind == "eq"
    return None

