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

A named sum (a ``def`` atom, :func:`absint.lang.terms.define`) adds differences of its
own: ``d = x + rest`` with ``rest`` bounded is ``d - x`` in the bounds of ``rest``, and an
alias ``d = e`` is ``d - e = 0``. A prefix sum ``start_{k+1} = start_k + u_k`` is then a
chain of differences, and ``start_k <= total`` a path to the total. Searches are cached
(:data:`MAX_CACHED` of them, dropped on rollback): a distance found earlier is still implied
by the facts, which only grow, so a question first tries the cached search from its
source; only when that leaves it open is the search run again. A program asking
``start_k <= total`` for every ``k`` searches from ``total`` once, not once per ``k``.
A program that writes the total out, ``start_k <= u0 + ... + u{n-1}``, is read the same way:
the written-out sum folded into the named sum of that expansion
(:func:`absint.lang.terms.fold_named`, exact) makes the comparison a difference again.

A single variable ``x`` is bounded the same way: ``x <= hi(b) + d(b, x)`` and
``x >= lo(a) - d(x, a)``. Once the network's propagation has run to its end
(:attr:`ValueNetwork.at_fixpoint`) no search is needed for that: HC4 on ``a - b = q`` relaxes
exactly the two edges of ``q``, so each atom's value already holds its shortest paths from
zero, and a difference's path through zero is ``hi(x) - lo(y)``; only the direct path is
searched (a question then costs a cached lookup, not a walk over the chain). When every search a question ran finished and left it open,
:meth:`DifferenceBounds.settled` says so: the polyhedral layer then skips a slice that holds
nothing but differences and bounds (isl could only find the same bounds), which is what a
long chain of open questions used to spend most of its time on.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Iterable, Iterator

from absint.lang.kinds import CONST, DEF, EQ, LE, LIN, LT, NE, VAR, Kind
from absint.lang.terms import Term, fold_named, is_difference, linear_parts
from absint.reasoning.facade import Facade
from domains.bounds import INF, NEG_INF, is_infinite, linear_range

#: edge relaxations one shortest-path search may spend (a question runs up to four)
MAX_RELAXATIONS = 50_000
#: searches kept for reuse (least recently used out): a question runs up to four
MAX_CACHED = 8
#: a search that reaches more atoms than this has the graph's components ordered for the
#: rest of its epoch (:meth:`DifferenceBounds._distance_between`): a long chain asked about
#: each of its links then costs one walk of the graph, not one per question
ORDER_AFTER = 32
#: a definition's body with more atoms than this gives no differences (reading its rest's
#: bounds costs its length; a prefix sum's body has two atoms)
SHORT_BODY = 8
#: named sums a comparison is read through, at most (:meth:`DifferenceBounds.through_definitions`)
MAX_ANCHORS = 4
#: candidate named sums looked at per step of that reading
MAX_CANDIDATES = 8


class DifferenceBounds:
    def __init__(self, facade: Facade):
        self.network = facade.network
        #: the last guard :meth:`decide` left open although every search it ran finished:
        #: over difference constraints that answer is exact (see :meth:`settled`)
        self._settled_open: Term | None = None
        #: edge relaxations of every search run: the work questions cost (counted, never
        #: rolled back; the scaling tests read it instead of timing)
        self.relaxations = 0
        #: (source, reverse) -> (epoch, distances): searches kept for reuse
        self._cache: OrderedDict[tuple[Term, bool], tuple[int, dict[Term, object]]] = OrderedDict()
        #: atom -> where its differences come from (:meth:`_sources`), while the network's
        #: keys are the same (its ``shape``; also dropped on rollback): the keys over an atom are
        #: walked once, not at every step of every search (a sorted-offsets export asks
        #: ~1,000 questions over ~130 atoms whose parents are all the keys its questions made)
        self._sources_of: dict[Term, tuple[tuple, ...]] = {}
        self._sources_shape = -1
        #: the network's removals and registration log length when ``_sources_of`` was last
        #: brought up to date: keys only registered since then touch only their own atoms
        self._sources_removals = -1
        self._sources_logged = 0
        #: (epoch, atom -> its strongly connected component's place in the reverse
        #: topological order): built once a search of this epoch was large
        self._order: tuple[int, dict[Term, int]] | None = None
        self._order_wanted = -1

    def forget(self) -> None:
        """Drop every kept search: a rollback may have taken back facts they used."""
        self._cache.clear()
        self._sources_of.clear()
        self._order, self._order_wanted = None, -1

    def decide(self, g: Term) -> bool | None:
        """The truth of a normal comparison ``k*(x - y) + c <kind> 0`` or ``k*x + c <kind> 0``, or None."""
        self._settled_open = None
        if g.kind not in (LE, LT, EQ, NE):
            return None
        k, p, c, folded = self._split(g.args[0])
        if p is None:
            return _verdict(g.kind, 1, c, 0, 0) if folded else None  # folded to a constant
        if is_difference(p):
            x, y = p.args
            quick = self._cached_verdict(g.kind, k, c, x, y)
            if quick is not None:
                return quick
            upper, up_done = self._difference_bound(y, x)  # x - y <= upper
            lower, low_done = self._difference_bound(x, y)  # y - x <= lower, so x - y >= -lower
            lo = None if lower is None else -lower
        elif p.kind == VAR:
            (lo, low_done), (upper, up_done) = self._atom_bound(p, upper=False), self._atom_bound(p, upper=True)
        else:
            return None
        verdict = None if upper is None and lo is None else _verdict(g.kind, k, c, lo, upper)
        if verdict is None and up_done and low_done and not folded:
            self._settled_open = g  # (a folded guard's slice holds its long sum, not only differences)
        return verdict

    def _split(self, t: Term) -> tuple[object, Term | None, object, bool]:
        """``t = k*P + c`` as the network splits it, and whether ``P`` is the difference of
        ``t`` with its written-out named sum folded (:func:`absint.lang.terms.fold_named`):
        ``end_k - (u0 + ... + u{n-1})`` is ``end_k - total`` where ``total`` names that sum,
        a path along the chain of named prefixes. Exact, so as sound as the path."""
        k, p, c = self.network.split(t)
        if p is None or p.kind != LIN or is_difference(p):
            return k, p, c, False
        folded = fold_named(t)
        if folded is None:
            return k, p, c, False
        fk, fp, fc = self.network.split(folded)
        if fp is not None and not is_difference(fp):
            return k, p, c, False
        return fk, fp, fc, True

    def quick_decide(self, g: Term) -> bool | None:
        """TRUE for a new difference comparison (its key not registered: layer 1 would
        only read it off its atoms) one definition apart or through a kept search; no new
        search: cheap enough to ask before layer 1's costlier readings."""
        if g.kind not in (LE, LT):
            return None
        k, p, c, folded = self._split(g.args[0])
        if p is None:
            return _verdict(g.kind, 1, c, 0, 0) if folded else None
        if not is_difference(p):
            return None
        if self.network.key_value(p) is not None:
            return None
        return self._cached_verdict(g.kind, k, c, *p.args, search=False)

    def through_definitions(self, g: Term) -> bool | None:
        """A comparison of a sum with a named sum ``d`` whose other atoms lie in the body of
        another named sum ``e``: ``k*d + R`` is ``k*(d - e) + (k*body(e) + R)``, the first
        part bounded by the paths between the two named sums, the second by its atoms' bounds
        once ``e``'s body cancels atoms of ``R`` (up to :data:`MAX_ANCHORS` such steps).
        ``u0 + ... + u4 <= total``, with ``total`` the end of a chain of named two-term links
        and ``e`` the first link, naming ``u0 + ... + u32``: one path along the chain where
        unfolding it link by link rebuilds a sum as long as the chain at every link.
        Sound: a path sums implied differences, and a named sum equals its body."""
        if g.kind not in (LE, LT, EQ, NE) or g.args[0].kind != LIN:
            return None
        if not any(a.kind == DEF for a in g.args[0].args):
            return None
        coefs, c = linear_parts(g.args[0])
        steps: list[tuple[Term, object, Term]] = []
        for _ in range(MAX_ANCHORS):
            step = self._anchor(coefs)
            if step is None:
                return None
            d, k, e = step
            steps.append(step)
            c += _unfold_into(coefs, d, k, e.args[0])
            rest = self._linear_range(coefs, c)
            if rest is None:
                return None
            verdict = self._verdict_through(g.kind, steps, rest)
            if verdict is not None:
                return verdict
        return None

    def _anchor(self, coefs: dict[Term, object]) -> tuple[Term, object, Term] | None:
        """``(d, k, e)``: a named sum ``d`` with coefficient ``k`` in ``coefs`` and another
        named sum ``e`` whose body has an atom ``a`` of ``coefs`` with coefficient ``b``,
        ``k*b`` cancelling ``a``'s (the defs over ``a`` as :meth:`_sources` keeps them)."""
        looked = 0
        for d, k in coefs.items():
            if d.kind != DEF:
                continue
            for a, r in coefs.items():
                if a is d:
                    continue
                for source in self._sources(a):
                    if source[0] != "def" or source[2] is not a or source[1] is d:
                        continue
                    e = source[1]
                    body = e.args[0]  # ``a`` may be an alias of ``e``, not in its body
                    if body.kind == LIN and a in body.args and k * body.data[0][body.args.index(a)] == -r:
                        return d, k, e
                    looked += 1
                    if looked >= MAX_CANDIDATES:
                        return None
        return None

    def _linear_range(self, coefs: dict[Term, object], c) -> tuple[object, object] | None:
        """The range of ``sum coefs[a]*a + c`` from its atoms' values (None: one is not a key)."""
        ranges = []
        for a in coefs:
            v = self.network.key_value(a)
            if v is None:
                return None
            ranges.append(self.network.domain.bounds(v))
        return linear_range(list(coefs.values()), c, ranges)

    def _verdict_through(self, kind: Kind, steps, rest: tuple[object, object]) -> bool | None:
        """The truth of ``sum k*(d - e) + rest <kind> 0`` over ``steps``: first through the
        searches kept from earlier questions (a chain's end asked about once per split is
        walked once), then searched anew; the lower side only when the upper one leaves the
        verdict open."""
        for kept in (True, False):
            hi = self._side(steps, rest[1], upper=True, kept=kept)
            verdict = _verdict(kind, 1, 0, None, hi)
            if verdict is None:
                verdict = _verdict(kind, 1, 0, self._side(steps, rest[0], upper=False, kept=kept), hi)
            if verdict is not None:
                return verdict
        return None

    def _side(self, steps, bound, upper: bool, kept: bool):
        """``bound + sum k*(d - e)``'s upper (lower) bound over ``steps``, or None (unbounded);
        ``kept``: read only the searches kept from earlier questions."""
        if is_infinite(bound):
            return None
        total = bound
        for d, k, e in steps:
            # k*(d - e) <= k*hi(d - e) when k > 0; d - e <= D is the path e -> d
            source, target = (e, d) if (k > 0) == upper else (d, e)
            length = self._kept_length(source, target) if kept else self._difference_bound(source, target)[0]
            if length is None:
                return None
            total += abs(k) * length if upper else -abs(k) * length
        return total

    def _kept_length(self, source: Term, target: Term):
        """``target - source <=`` what a search kept from ``source`` shows (however old: facts
        only grow, and a rollback drops them), or None."""
        kept = self._cache.get((source, False))
        return None if kept is None or kept[1] is None else kept[1].get(target)

    def settled(self, g: Term) -> bool:
        """Whether :meth:`decide` just left ``g`` open after complete searches: then the
        bounds it found on ``g``'s difference are the tightest the network's difference keys
        and atom bounds imply, so a slice holding nothing else (no other relation, no
        congruence, no nonlinear atom) cannot decide ``g`` either (over the integers a
        system of difference constraints is exact: any value between those bounds is
        reached)."""
        return self._settled_open is g

    def _cached_verdict(self, kind: Kind, k, c, x: Term, y: Term, search: bool = True) -> bool | None:
        """A TRUE for ``k*(x - y) + c <kind> 0`` from the direct path alone, through the search
        that proves it (``x - y`` bounded above when ``k > 0``, below when ``k < 0``), kept
        from an earlier question when there is one: a long chain is then walked once."""
        if kind not in (LE, LT):
            return None
        source, target = (y, x) if k > 0 else (x, y)

        def proves(d) -> bool:  # target - source <= d: the top of k*(x - y) + c
            top = k * d + c if k > 0 else -k * d + c
            return top < 0 or (kind == LE and top == 0)

        def shown(paths) -> bool:
            return paths is not None and target in paths and proves(paths[target])

        if any(w is source and proves(d) for w, d in self._edges(target, reverse=True)):
            return True  # one definition or key apart: no search
        kept = self._cache.get((source, False))  # however old: what it shows is still implied
        if kept is not None and shown(kept[1]):
            return True
        if not search or (kept is not None and kept[0] == self.network.epoch):
            return None
        order = self._current_order()
        if order is not None:
            d, _ = self._distance_between(source, target, order)
            return True if d is not None and proves(d) else None
        if shown(self._paths(source, False)):
            return True
        return None

    def _difference_bound(self, source: Term, target: Term) -> tuple[object | None, bool]:
        """The least ``d`` with ``target - source <= d`` the graph shows (or None), and
        whether both searches finished. No search is run from a side no path can leave: a
        ``target`` nothing leads to (no edge in, no upper bound), or a ``source`` that leads
        nowhere (no edge out, no lower bound), as a fresh size has: a chain of ``N`` facts
        ``u_i <= u_{i+1}``, each asked before it is assumed, would otherwise walk the chain
        once per fact."""
        if source is not target and (self._dead_end(target, reverse=True) or self._dead_end(source, reverse=False)):
            return None, True
        order = self._current_order()
        if order is not None:  # at the fixpoint: the direct path among the atoms between, and zero
            best, done = self._distance_between(source, target, order)
            return self._through_zero(source, target, best), done
        out = self._paths(source, reverse=False)
        if out is None:
            return None, False
        best = out.get(target)
        if self.network.at_fixpoint:  # the path through zero is the atoms' own bounds: no second search
            return self._through_zero(source, target, best), True
        back = self._paths(target, reverse=True)
        if back is not None:
            via_zero = _min(d - lo for a, d in out.items() if (lo := self._bound(a, upper=False)) is not None)
            to_target = _min(hi + d for b, d in back.items() if (hi := self._bound(b, upper=True)) is not None)
            if via_zero is not None and to_target is not None:
                best = via_zero + to_target if best is None else min(best, via_zero + to_target)
        return best, back is not None

    def _through_zero(self, source: Term, target: Term, best):
        """``best`` or the path through zero, ``hi(target) - lo(source)``, whichever is less."""
        hi, lo = self._bound(target, upper=True), self._bound(source, upper=False)
        if hi is None or lo is None:
            return best
        return hi - lo if best is None else min(best, hi - lo)

    def _current_order(self) -> dict[Term, int] | None:
        """The components' order of this epoch (built on first use), once a search of this
        epoch was large and while the network is at its fixpoint; else None."""
        network = self.network
        if not network.at_fixpoint or self._order_wanted != network.epoch:
            return None
        if self._order is None or self._order[0] != network.epoch:
            self._order = (network.epoch, self._component_order())
        return self._order[1]

    def _distance_between(self, source: Term, target: Term, order: dict[Term, int]) -> tuple[object | None, bool]:
        """The shortest direct path ``source -> target`` (None: none), and whether the search
        finished, through the atoms a path can pass: those whose component lies between
        ``target``'s and ``source``'s in the order (a path ``s -> x -> t`` has ``order[t] <=
        order[x] <= order[s]``), and atoms the order does not know. A question on one link of a
        chain ``u0 <= ... <= u255`` then looks at that link, not at the chain below it.

        Keys registered since the order was built (the epoch unchanged: no value moved) add
        edges no shorter than the path through zero, which the caller adds: a new key's
        bounds are its atoms' bounds, and at the fixpoint those are shortest paths from
        zero. Leaving an atom out only ever loses precision, never soundness."""
        low, high = order.get(target), order.get(source)
        if source is target:
            return 0, True
        if low is not None and high is not None and low > high:
            return None, True  # target's component completes after source's: no path

        def between(w: Term) -> bool:
            o = order.get(w)
            return o is None or ((low is None or o >= low) and (high is None or o <= high))

        dist = self._search(source, False, between)
        return (None, False) if dist is None else (dist.get(target), True)

    def _component_order(self) -> dict[Term, int]:
        """Tarjan's strongly connected components over every difference edge, numbered in
        the order they complete: whatever a component reaches completes first, so a path
        ``s -> t`` implies ``order[t] <= order[s]``."""
        nodes = []
        for q in self.network.keys():
            if q.kind == DEF or is_difference(q):
                nodes.extend(q.args if q.kind == LIN else (q,))
        def successors(u: Term) -> list[Term]:
            out = [w for w, _ in self._edges(u, reverse=False)]
            self.relaxations += len(out)  # the walk is work the scaling tests count too
            return out

        return strongly_connected_order(nodes, successors)

    def _dead_end(self, u: Term, reverse: bool) -> bool:
        """No edge out of ``u`` (into it, with ``reverse``) and no bound of ``u`` to zero on
        that side (a lower one going out, an upper one coming in)."""
        if self._bound(u, upper=reverse) is not None:
            return False
        return next(iter(self._edges(u, reverse)), None) is None

    def _atom_bound(self, x: Term, upper: bool) -> tuple[object | None, bool]:
        """The tightest bound on ``x`` through the graph: ``x <= hi(b) + d(b, x)`` (upper)
        or ``x >= lo(a) - d(x, a)``, and whether the search finished. With the network at its
        fixpoint that is ``x``'s own bound: propagating a difference key ``a - b`` in ``[lo, hi]``
        is relaxing its two edges, so the values already are the shortest paths from zero."""
        if self.network.at_fixpoint:
            return self._bound(x, upper), True
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
        budget runs out or a negative cycle shows the facts contradictory. A search kept
        from this epoch is reused: questions on one pair come in groups (``x - y == 0``,
        ``== 1``, ``< 2``, ...) between two facts."""
        key = (source, reverse)
        kept = self._cache.get(key)
        if kept is None or kept[0] != self.network.epoch:
            kept = (self.network.epoch, self._search(source, reverse))
            self._cache[key] = kept
            if len(self._cache) > MAX_CACHED:
                self._cache.popitem(last=False)
        self._cache.move_to_end(key)
        return kept[1]

    def _search(self, source: Term, reverse: bool, admits=None) -> dict[Term, object] | None:
        """Bellman-Ford by rounds from ``source``, within :data:`MAX_RELAXATIONS`, through the
        atoms ``admits`` accepts (all of them without it)."""
        dist: dict[Term, object] = {source: 0}
        queue = [source]
        spent = 0
        while queue:
            nxt = []
            for u in queue:
                for w, weight in self._edges(u, reverse):
                    if admits is not None and not admits(w):
                        continue
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
        self.relaxations += spent
        if admits is None and len(dist) > ORDER_AFTER:
            self._order_wanted = self.network.epoch
        return dist

    def _edges(self, u: Term, reverse: bool) -> Iterable[tuple[Term, object]]:
        """Edges out of ``u`` (into ``u`` with ``reverse``) from the differences ``u`` is in."""
        for a, b, lo, hi in self._differences(u):  # a - b in [lo, hi]: b -> a (hi), a -> b (-lo)
            if (u is b) != reverse:
                if not is_infinite(hi):
                    yield (a if u is b else b), hi
            elif not is_infinite(lo):
                yield (b if u is a else a), -lo

    def _differences(self, u: Term) -> Iterator[tuple[Term, Term, object, object]]:
        """``(a, b, lo, hi)``, ``a - b`` in ``[lo, hi]`` with ``u`` one of them: the bounded
        difference keys over ``u``, and what the named sums over ``u`` (or ``u`` itself) say;
        the bounds read now, the keys they come from as :meth:`_sources` kept them."""
        network = self.network
        for source in self._sources(u):
            if source[0] == "diff":
                q = source[1]
                yield (*q.args, *network.domain.bounds(network.key_value(q)))
            else:
                yield from self._definition_differences(source[1], source[2])

    def _sources(self, u: Term) -> tuple[tuple, ...]:
        """Where ``u``'s differences come from: ``("diff", q)`` for a difference key ``q`` over
        ``u``, ``("def", d, only)`` for a named sum ``d`` (over ``only``, or ``u`` itself);
        kept while the network's keys are the same (:attr:`ValueNetwork.shape`), and brought up
        to date when keys were only added (a question registers its own: PyTorch asks
        thousands, and rebuilding every atom's sources after each cost a walk of the graph)."""
        if self.network.shape != self._sources_shape:
            self._update_sources()
        kept = self._sources_of.get(u)
        if kept is None:
            kept = self._sources_of[u] = tuple(self._walk_sources(u))
        return kept

    def _update_sources(self) -> None:
        """Forget the kept sources the keys registered since the last update change (those
        of the atoms under a new sum, and under a new named sum's body), or all of them
        when keys were removed."""
        network, kept = self.network, self._sources_of
        if network.removals != self._sources_removals:
            kept.clear()
        else:
            for p in network.registered[self._sources_logged:]:
                if p.kind not in (LIN, DEF):
                    continue  # a parent of another kind gives no difference
                for c in p.args:
                    kept.pop(c, None)
                    if p.kind == DEF and c.kind == LIN:
                        for x in c.args:
                            kept.pop(x, None)
        self._sources_removals, self._sources_logged = network.removals, len(network.registered)
        self._sources_shape = network.shape

    def _walk_sources(self, u: Term) -> Iterator[tuple]:
        network = self.network
        if u.kind == DEF:
            yield ("def", u, None)
        for q in network.parents(u):
            if q.kind == DEF:
                yield ("def", q, u)
            elif q.kind == LIN:
                if is_difference(q):
                    yield ("diff", q)
                for d in network.parents(q):
                    if d.kind == DEF:
                        yield ("def", d, u)

    def _definition_differences(self, d: Term, only: Term | None) -> Iterator[tuple[Term, Term, object, object]]:
        """``d - x`` in the bounds of the rest of a definition ``d = x + rest`` (``x`` with
        coefficient 1, a body of at most :data:`SHORT_BODY` atoms: a prefix sum's), and
        ``d - e = 0`` for an alias ``e``; with ``only``, those over it."""
        for arg in d.args:
            if arg.kind == CONST:
                continue
            if arg.kind != LIN:
                if only is None or arg is only:
                    yield d, arg, 0, 0
                continue
            if len(arg.args) > SHORT_BODY or (only is not None and only not in arg.args):
                continue
            coefs, c = arg.data
            for x, v in zip(arg.args, coefs):
                if v == 1 and (only is None or x is only):
                    yield d, x, *self._rest_bounds(arg, x)

    def _rest_bounds(self, q: Term, x: Term) -> tuple[object, object]:
        """The bounds of ``q - x`` for a sum ``q`` over ``x``, from its other atoms' bounds."""
        coefs, c = q.data
        others = [(a, v) for a, v in zip(q.args, coefs) if a is not x]
        values = [self.network.key_value(a) for a, _ in others]
        if any(value is None for value in values):
            return NEG_INF, INF
        return linear_range([v for _, v in others], c, [self.network.domain.bounds(value) for value in values])


def strongly_connected_order(nodes: Iterable, successors) -> dict:
    """Each node reachable from ``nodes`` (any hashable: atoms here, modules in the import
    check of ``tests/project``) -> the number of its strongly connected component, numbered
    as Tarjan's algorithm completes them (iteratively: a chain of thousands of atoms is no
    recursion depth): a node reaching another has a number at least as large."""
    index: dict = {}
    low: dict = {}
    order: dict = {}
    stack: list = []
    on_stack: set = set()
    components = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(successors(root)))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            u, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(successors(w))))
                elif w in on_stack:
                    low[u] = min(low[u], index[w])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[u])
            if low[u] == index[u]:
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    order[w] = components
                    if w is u:
                        break
                components += 1
    return order


def _unfold_into(coefs: dict[Term, object], d: Term, k, body: Term):
    """``coefs`` with ``k*d`` replaced by ``k*body`` (in place); the constant it adds."""
    del coefs[d]
    body_coefs, c = body.data
    for a, b in zip(body.args, body_coefs):
        v = coefs.get(a, 0) + k * b
        if v:
            coefs[a] = v
        else:
            coefs.pop(a, None)
    return k * c


def _min(values):
    out = None
    for v in values:
        if out is None or v < out:
            out = v
    return out


def _verdict(kind: Kind, k, c, lo, hi) -> bool | None:
    """The truth of ``k*P + c <kind> 0`` for ``P`` in ``[lo, hi]`` (None: unbounded side)."""
    hi_t = None if hi is None else k * hi + c
    lo_t = None if lo is None else k * lo + c
    top, bottom = (hi_t, lo_t) if k > 0 else (lo_t, hi_t)  # the range of k*P + c
    if kind == LE:
        if top is not None and top <= 0:
            return True
        return False if bottom is not None and bottom > 0 else None
    if kind == LT:
        if top is not None and top < 0:
            return True
        return False if bottom is not None and bottom >= 0 else None
    if (bottom is not None and bottom > 0) or (top is not None and top < 0):
        return kind == NE
    if top is not None and bottom is not None and top == bottom == 0:
        return kind == EQ
    return None

