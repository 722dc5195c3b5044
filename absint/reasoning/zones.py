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

A single variable ``x`` is bounded the same way: ``x <= hi(b) + d(b, x)`` and
``x >= lo(a) - d(x, a)``. When every search a question ran finished and left it open,
:meth:`DifferenceBounds.settled` says so: the polyhedral layer then skips a slice that holds
nothing but differences and bounds (isl could only find the same bounds), which is what a
long chain of open questions used to spend most of its time on.
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
        #: the last guard :meth:`decide` left open although every search it ran finished:
        #: over difference constraints that answer is exact (see :meth:`settled`)
        self._settled_open: Term | None = None

    def decide(self, g: Term) -> bool | None:
        """The truth of a normal comparison ``k*(x - y) + c <kind> 0`` or ``k*x + c <kind> 0``, or None."""
        self._settled_open = None
        if g.kind not in ("le", "lt", "eq", "ne"):
            return None
        k, p, c = self.network.split(g.args[0])
        if p is None:
            return None
        if p.kind == "lin" and len(p.args) == 2 and tuple(p.data[0]) == (1, -1):
            x, y = p.args
            upper, up_done = self._difference_bound(y, x)  # x - y <= upper
            lower, low_done = self._difference_bound(x, y)  # y - x <= lower, so x - y >= -lower
            lo = None if lower is None else -lower
        elif p.kind == "var":
            (lo, low_done), (upper, up_done) = self._atom_bound(p, upper=False), self._atom_bound(p, upper=True)
        else:
            return None
        verdict = None if upper is None and lo is None else _verdict(g.kind, k, c, lo, upper)
        if verdict is None and up_done and low_done:
            self._settled_open = g
        return verdict

    def settled(self, g: Term) -> bool:
        """Whether :meth:`decide` just left ``g`` open after complete searches: then the
        bounds it found on ``g``'s difference are the tightest the network's difference keys
        and atom bounds imply, so a slice holding nothing else (no other relation, no
        congruence, no nonlinear atom) cannot decide ``g`` either (over the integers a
        system of difference constraints is exact: any value between those bounds is
        reached)."""
        return self._settled_open is g

    def _difference_bound(self, source: Term, target: Term) -> tuple[object | None, bool]:
        """The least ``d`` with ``target - source <= d`` the graph shows (or None), and
        whether both searches finished."""
        out = self._paths(source, reverse=False)
        if out is None:
            return None, False
        back = self._paths(target, reverse=True)
        best = out.get(target)
        if back is not None:
            via_zero = _min(d - lo for a, d in out.items() if (lo := self._bound(a, upper=False)) is not None)
            to_target = _min(hi + d for b, d in back.items() if (hi := self._bound(b, upper=True)) is not None)
            if via_zero is not None and to_target is not None:
                best = via_zero + to_target if best is None else min(best, via_zero + to_target)
        return best, back is not None

    def _atom_bound(self, x: Term, upper: bool) -> tuple[object | None, bool]:
        """The tightest bound on ``x`` through the graph: ``x <= hi(b) + d(b, x)`` (upper)
        or ``x >= lo(a) - d(x, a)``, and whether the search finished."""
        paths = self._paths(x, reverse=upper)
        if paths is None:
            return None, False
        if upper:
            return _min(hi + d for b, d in paths.items() if (hi := self._bound(b, upper=True)) is not None), True
        best = _min(d - lo for a, d in paths.items() if (lo := self._bound(a, upper=False)) is not None)
        return (None if best is None else -best), True

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

