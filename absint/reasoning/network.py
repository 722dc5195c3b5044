"""Layer 1's store: a network of keys with abstract values, propagated forwards and backwards.

The keys are atoms (variables and nonlinear applications) and primitive linear
combinations ``P = sum c_i a_i`` that occurred in some fact or guard. Each key holds
one value of the value domain (interval × congruence by default) and is tied to its
children by its definition (``P = sum c_i a_i``, ``A = op(args)``); narrowing one key
is propagated forwards (to parents) and backwards (to children) through those
definitions, HC4-revise style, with a worklist that only touches what changed and a
step budget (:data:`DEFAULT_BUDGET` per fact) that guarantees termination.

A term is read through its key as ``t = k*P + c`` (:meth:`ValueNetwork.split`);
keeping bounds on whole linear combinations is what lets ``u0 + u1 <= s0``, once
asserted, decide the same guard later without any relational domain.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import operator
from collections import deque
from fractions import Fraction
from typing import Callable, Iterable, Iterator

from absint.lang import terms as T
from absint.lang.kinds import CONST, DEF, ITE, LIN, NE, VAR, Kind
from absint.lang.terms import BOOL, INT, REAL, Term
from absint.reasoning.facade import Facade
from absint.reasoning.trail import Trail
from domains.bounds import RangeSum, linear_range, range_sum, range_sum_add, range_sum_bounds
from domains.lattice import ValueDomain
from domains.packing import UnionFind

#: propagation steps spent on one fact; past it values stay sound over-approximations
DEFAULT_BUDGET = 4000
#: a sum or named sum with at most this many operands is revised both ways whenever one
#: operand changes (HC4's revise), also when its own value holds still: ``v0 >= 0`` then
#: reaches ``v1`` through ``v1 - v0 >= 3``; a longer one is read backwards only when its own
#: value narrows (each backward read costs its length)
SHORT_KEY = 8
_REVISED = (LIN, DEF)
#: a sum with more operands than this is re-read one changed operand at a time, when the
#: domain can (``domain.sum_tracker``): a fact on one length of a sum of thousands is O(1)
LONG_SUM = 16
#: a linear form with more atoms than this has the bounds of its part over keys kept
#: (:meth:`ValueNetwork._key_part`), at most MAX_PARTIAL_BOUNDS of them
LONG_BOUNDS = 16
MAX_PARTIAL_BOUNDS = 4096


class ValueNetwork:
    """Keys and their values; ``facade`` answers the truth of ``ite`` conditions.

    Every change to the keys, their values, parents, excluded values and blocks is
    logged in ``trail`` while a checkpoint is open (:mod:`absint.reasoning.trail`);
    ``_split`` and ``_affine_terms`` are functions of the term alone, kept across
    rollbacks."""

    def __init__(self, facade: Facade, domain: ValueDomain, budget: int = DEFAULT_BUDGET,
                 trail: Trail | None = None):
        self.facade = facade
        self.trail = Trail() if trail is None else trail
        self.domain = domain
        self.budget = budget
        self.epoch = 0
        #: bumped whenever a key is registered or detached (the keys and parent links change):
        #: what caches of the network's shape compare, as the epoch is for its values; never
        #: rolled back (a rollback bumps it too: it only ever grows)
        self.shape = 0
        #: every key registered, in order (a detached key stays listed; a rollback cuts the
        #: list back): with :attr:`removals` unchanged, the keys registered since a cache was
        #: built are ``registered[position:]``, so a cache of the keys' shape can be brought up
        #: to date instead of rebuilt
        self.registered: list[Term] = []
        #: bumped whenever keys leave (a detach, a rollback): then caches rebuild
        self.removals = 0
        #: per removal, the first position of :attr:`registered` it took keys from (a
        #: rollback: the log's length at its mark, every key from there on; a detach: -1, a
        #: key anywhere): see :meth:`registered_since`
        self.removal_floors: list[int] = []
        self.contradiction = False
        self.exhausted = 0  # propagations cut short by the budget (or restored to mid-way)
        #: operand values read by forward and backward steps: the work facts cost (counted,
        #: not rolled back; the scaling tests read it instead of timing)
        self.reads = 0
        self._val: dict[Term, object] = {}
        self._parents: dict[Term, dict[Term, None]] = {}  # insertion-ordered: deterministic
        self._excluded: dict[Term, set] = {}
        self._split: dict[int, tuple] = {}
        self._affine_terms: dict[tuple, Term] = {}
        self._work: deque[Term] = deque()
        self._queued: set[Term] = set()
        #: atoms related by some fact or definition (for the polyhedral layer's slices)
        self._blocks = UnionFind()
        #: long sums' values kept up to date one operand at a time; dropped whenever a value
        #: may have changed without the sum hearing of it (a rollback, a cut-short propagation)
        self._sums: dict[Term, object] = {}
        self._positions: dict[Term, dict[Term, int]] = {}  # a long sum's operand -> its index
        self._tracker = getattr(domain, "sum_tracker", None)
        #: (atoms, coefficients) -> ((epoch, shape), (the range_sum of the atoms that are keys,
        #: the places of those that are not)): see :meth:`_key_part`
        self._partial_bounds: dict[tuple, tuple] = {}

    # ------------------------------------------------------------ what other layers may change

    @property
    def at_fixpoint(self) -> bool:
        """Whether every narrowing so far was propagated to its end: no propagation cut short
        by the budget (ever: a cut leaves values that a full propagation would narrow), none
        pending, no contradiction. Then the values are a fixpoint of every sum and named sum
        of at most :data:`SHORT_KEY` operands, which is what lets the difference searches
        read an atom's bounds off its value (:mod:`absint.reasoning.zones`)."""
        return not self.exhausted and not self._work and not self.contradiction

    def contradict(self) -> None:
        """The facts were found inconsistent (by the fact intake, on a disjunction or a
        literal and its negation): every later question is vacuous."""
        self.contradiction = True

    def values_changed(self) -> None:
        """Something the values' caches compare moved outside the keys (an asserted
        literal): :attr:`epoch` grows."""
        self.epoch += 1

    @contextlib.contextmanager
    def budget_at_most(self, steps: int | None) -> Iterator[None]:
        """Propagation limited to ``steps`` per fact inside the block (case splitting's
        branches), the budget restored after it; None leaves it as it is."""
        saved = self.budget
        if steps is not None:
            self.budget = min(saved, steps)
        try:
            yield
        finally:
            self.budget = saved

    # ------------------------------------------------------------ reading (the Network protocol)

    def split(self, t: Term) -> tuple[object, Term | None, object]:
        r = self._split.get(t.id)
        if r is None:
            r = self._split[t.id] = _split(t)
        return r

    def key_value(self, key: Term) -> object | None:
        return self._val.get(key)

    def parents(self, key: Term) -> Iterable[Term]:
        return self._parents.get(key, ())

    def related(self, atom: Term) -> bool:
        return self._blocks.related(atom)

    def block_of(self, atom: Term) -> object:
        """The block of related atoms ``atom`` is in (its union-find root, for now)."""
        return self._blocks.find(atom)

    def excluded_values(self, key: Term) -> set:
        return self._excluded.get(key) or set()

    def keys(self) -> Iterable[Term]:
        return self._val.keys()

    def value(self, t: Term):
        k, p, c = self.split(t)
        if p is None:
            return self.domain.constant(c, t.sort)
        return self._affine(self._val[p], k, c, t.sort)

    def registered_value(self, t: Term) -> object | None:
        """The value of ``t`` when its key is registered (a constant's too), else None:
        reading it registers nothing."""
        p = self.split(t)[1]
        if p is not None and p not in self._val:
            return None
        return self.value(t)

    def bounds(self, t: Term) -> tuple[object, object]:
        """Numeric ``(lo, hi)`` of a normal numeric term (registered on the way)."""
        self.register(t)
        return self.domain.bounds(self.value(t))

    def linear_bounds(self, t: Term, stand_in: Callable[[Term], object] | None = None
                      ) -> tuple[object, object] | None:
        """``(lo, hi)`` of a linear form (or atom) from its atoms' current bounds, registering
        nothing; None when one of them is not registered and ``stand_in(atom)`` (a sound value
        of that atom, or None) gives none."""
        bounds = self.domain.bounds
        if t.kind != LIN:
            x = self._val.get(t)
            if x is None and stand_in is not None:
                x = stand_in(t)
            return None if x is None else bounds(x)
        coefs, c = t.data
        if len(t.args) > LONG_BOUNDS:
            return self._long_bounds(t.args, coefs, c, stand_in)
        try:  # map in C: a long sum's atoms are many, and every one is usually registered
            values = list(map(self._val.__getitem__, t.args))
        except KeyError:
            values = None if stand_in is None else self._stood_in(t.args, stand_in)
            if values is None:
                return None
        return linear_range(coefs, c, list(map(bounds, values)))  # a list: read twice on overflow

    def _long_bounds(self, atoms: tuple[Term, ...], coefs: tuple, c,
                     stand_in: Callable[[Term], object] | None) -> tuple[object, object] | None:
        """:meth:`linear_bounds` of a long form: the sum over its keys kept (:meth:`_key_part`),
        the atoms that are no key stood in for afresh (what ``stand_in`` reads is not the
        network's alone)."""
        kept = self._key_part(atoms, coefs)
        if kept is None:  # an empty value: the plain sum
            values = self._stood_in(atoms, stand_in or _none)
            return None if values is None else linear_range(coefs, c, list(map(self.domain.bounds, values)))
        part, missing = kept
        for i in missing:
            x = None if stand_in is None else stand_in(atoms[i])
            if x is None:
                return None
            part = range_sum_add(part, coefs[i], *self.domain.bounds(x))
            if part is None:
                return None
        return range_sum_bounds(part, c)

    def _key_part(self, atoms: tuple[Term, ...], coefs: tuple) -> tuple[RangeSum, tuple[int, ...]] | None:
        """The sum of the bounds of the atoms that are keys, and the places of those that are
        not (None where a value is empty). Kept per (atoms, coefficients) with the network's
        ``(epoch, shape)``, which change whenever a value or the keys do (a rollback too:
        ``shape`` only grows). A form one atom longer than a kept one (the next prefix sum of
        a jagged program: its new atom is the newest, so last) adds that atom to it; one atom
        shorter at the front (the lengths after a prefix, ``-u(k+1) - ... - un``) was kept when
        the longer one was: O(1) each where they were O(k)."""
        stamp = (self.epoch, self.shape)
        memo = self._partial_bounds
        key = (atoms, coefs)
        kept = memo.get(key)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        shorter = memo.get((atoms[:-1], coefs[:-1]))
        if shorter is not None and shorter[0] == stamp:
            part, missing = shorter[1]
            x = self._val.get(atoms[-1])
            if x is None:
                missing += (len(atoms) - 1,)
            else:
                part = range_sum_add(part, coefs[-1], *self.domain.bounds(x))
        else:
            part, missing = self._key_part_anew(atoms, coefs)
        if part is None:
            return None
        if len(memo) >= MAX_PARTIAL_BOUNDS:
            memo.clear()
        memo[key] = (stamp, (part, missing))
        if not missing:
            rest = range_sum_add(part, coefs[0], *self.domain.bounds(self._val[atoms[0]]), times=-1)
            memo[(atoms[1:], coefs[1:])] = (stamp, (rest, ()))
        return part, missing

    def _key_part_anew(self, atoms: tuple[Term, ...], coefs: tuple) -> tuple[RangeSum | None, tuple[int, ...]]:
        values = list(map(self._val.get, atoms))  # in C: most atoms of a long form are keys
        missing = tuple(itertools.compress(range(len(values)), map(operator.is_, values, itertools.repeat(None))))
        if missing:
            coefs = [coefs[i] for i in range(len(coefs)) if values[i] is not None]
            values = [v for v in values if v is not None]
        return range_sum(coefs, list(map(self.domain.bounds, values))), missing

    def _stood_in(self, atoms: tuple[Term, ...], stand_in: Callable[[Term], object]) -> list | None:
        """The atoms' values, ``stand_in``'s for those that are no key (None if it has none):
        the missing ones found in C, a long sum's atoms being mostly keys."""
        values = list(map(self._val.get, atoms))
        for i in itertools.compress(range(len(values)), map(operator.is_, values, itertools.repeat(None))):
            x = stand_in(atoms[i])
            if x is None:
                return None
            values[i] = x
        return values

    # ------------------------------------------------------------ keys

    def _children(self, p: Term) -> list[Term]:
        """The keys a key's definition reads."""
        if p.kind == LIN:
            return list(p.args)
        if p.kind == VAR:
            return []
        out = []
        for a in p.args:
            if a.sort is BOOL:
                out.extend(self.bool_keys(a))
            else:
                key = self.split(a)[1]
                if key is not None:
                    out.append(key)
        return out

    def bool_keys(self, b: Term) -> list[Term]:
        """The keys of the comparisons inside a Bool term."""
        out = []
        for s in T.subterms(b):
            if s.kind in T.COMPARISON_KINDS:
                key = self.split(s.args[0])[1]
                if key is not None:
                    out.append(key)
        return out

    def register(self, t: Term) -> None:
        if t.sort is BOOL:
            for key in self.bool_keys(t):
                self._register_key(key)
            return
        key = self.split(t)[1]
        if key is not None and key not in self._val:
            self._register_key(key)

    def _register_key(self, root: Term) -> None:
        if root in self._val:
            return
        stack = [(root, False)]
        while stack:
            p, ready = stack.pop()
            if p in self._val:
                continue
            children = self._children(p)
            if not ready:
                stack.append((p, True))
                stack.extend((c, False) for c in children if c not in self._val)
                continue
            for c in children:
                self._add_parent(c, p)
            if children and p.sort is INT:
                self._blocks.union_all(children if p.kind == LIN else [p, *children])
            value = self._forward(p)  # may register keys of an ite's condition first
            self.trail.set_item(self._val, p, value)
            self.shape += 1
            self.registered.append(p)
            if p.kind == DEF:
                self.epoch += 1  # a definition is a relation the difference searches now see

    def _add_parent(self, child: Term, p: Term) -> None:
        ps = self._parents.get(child)
        if ps is None:
            ps = {}
            self.trail.set_item(self._parents, child, ps)
        if p not in ps:
            self.trail.set_item(ps, p, None)

    # ------------------------------------------------------------ values

    def _affine_term(self, k, c, sort) -> Term:
        key = (k, c, sort)
        t = self._affine_terms.get(key)
        if t is None:
            t = self._affine_terms[key] = T.make_linear(sort, {T.var("#affine", sort): k}, c)
        return t

    def _affine(self, v, k, c, sort):
        """The value of ``k*x + c`` when ``x`` lies in ``v``."""
        if k == 1 and c == 0:
            return v
        return self.domain.forward(self._affine_term(k, c, sort), (v,))

    def _unaffine(self, result, k, c, sort, prior):
        """What ``x`` (already in ``prior``) lies in when ``k*x + c`` lies in ``result``."""
        if k == 1 and c == 0:
            return self.domain.meet(result, prior)
        return self.domain.backward(self._affine_term(k, c, sort), result, (prior,))[0]

    def _forward(self, p: Term, changed: Term | None = None):
        """``p``'s value from its operands'; ``changed``: the one operand that changed since."""
        kind = p.kind
        d = self.domain
        if kind == VAR:
            return d.top(p.sort)
        if kind == LIN:
            val = self._val
            if len(p.args) > LONG_SUM and self._tracker is not None:
                return self._long_sum(p, changed)
            self.reads += len(p.args)
            return d.forward(p, [val[a] for a in p.args])
        self.reads += len(p.args)
        if kind == ITE:
            c, a, b = p.args
            truth = self.facade.truth(c)
            if truth is True:
                return self.value(a)
            if truth is False:
                return self.value(b)
            return d.join(self.value(a), self.value(b))
        return d.forward(p, [self.value(a) for a in p.args])

    def _long_sum(self, p: Term, changed: Term | None):
        """A long sum's value, through its tracker: only ``changed`` is read again."""
        tracker = self._sums.get(p)
        if tracker is None or changed is None:
            self.reads += len(p.args)
            tracker = self._sums[p] = self._tracker(p, [self._val[a] for a in p.args])
        else:
            self.reads += 1
            positions = self._positions.get(p)
            if positions is None:
                positions = self._positions[p] = {a: i for i, a in enumerate(p.args)}
            tracker.replace(positions[changed], self._val[changed])
        return tracker.value()

    def _backward(self, p: Term) -> None:
        kind = p.kind
        if kind == VAR:
            return
        self.reads += len(p.args)
        val = self._val
        if kind == LIN:
            new = self.domain.backward(p, val[p], [val[a] for a in p.args])
            for a, v in zip(p.args, new):
                self._narrow(a, v)
            return
        if kind == ITE:
            c, a, b = p.args
            truth = self.facade.truth(c)
            if truth is True:
                self.narrow_term(a, val[p])
            elif truth is False:
                self.narrow_term(b, val[p])
            return
        new = self.domain.backward(p, val[p], [self.value(a) for a in p.args])
        for a, v in zip(p.args, new):
            if a.kind != CONST:
                self.narrow_term(a, v)

    # ------------------------------------------------------------ narrowing

    def narrow_term(self, t: Term, v) -> None:
        """Narrow ``t``'s key to what ``t`` lying in ``v`` allows (queued for propagation)."""
        k, p, c = self.split(t)
        d = self.domain
        if p is None:
            if d.is_bottom(d.meet(v, d.constant(c, t.sort))):
                self.contradiction = True
            return
        self._narrow(p, self._unaffine(v, k, c, t.sort, self._val[p]))

    def restrict(self, t: Term, kind: Kind) -> None:
        """Narrow ``t`` to where ``t <kind> 0`` holds."""
        self.register(t)
        self.narrow_term(t, self.domain.restrict(kind, self.value(t)))

    def _narrow(self, p: Term, v) -> None:
        old = self._val[p]
        new = self.domain.meet(old, v)
        if new == old:
            return
        if not self.domain.is_bottom(new) and _outgrown(self.domain.bounds(old), self.domain.bounds(new)):
            return  # keeping the wider value is sound, and ends a climb like x >= y*y, y >= x
        excluded = self._excluded.get(p)
        if excluded:
            new = self._shave(p, new, excluded)
        trail = self.trail
        if trail.recording:
            trail.entries.append((self._val.__setitem__, p, old))
        self._val[p] = new
        self.epoch += 1
        if self.domain.is_bottom(new):
            self.contradiction = True
            return
        if p not in self._queued:
            self._queued.add(p)
            self._work.append(p)

    def exclude(self, t: Term) -> object | None:
        """Record ``t != 0`` on ``t``'s key as one excluded value of it, shaving bounds
        (``x != 0`` and ``x >= 0`` give ``x >= 1``); the value, or None when ``t != 0``
        excludes no integer value of the key."""
        k, p, c = self.split(t)
        target = Fraction(-c) / k
        if t.sort is not REAL and target.denominator != 1:
            return None
        target = target if t.sort is REAL else int(target)
        self._add_excluded(p, target)
        self.epoch += 1
        self._narrow(p, self._shave(p, self._val[p], self._excluded[p]))
        return target

    def _add_excluded(self, p: Term, value) -> None:
        excluded = self._excluded.get(p)
        if excluded is None:
            excluded = set()
            self.trail.set_item(self._excluded, p, excluded)
        self.trail.add(excluded, value)

    def _shave(self, p: Term, v, excluded: set):
        """Remove excluded end points."""
        d = self.domain
        for _ in range(8):
            lo, hi = d.bounds(v)
            if lo not in excluded and hi not in excluded:
                break
            for e in (lo, hi):
                if e in excluded:
                    w = d.restrict(NE, self._affine(v, 1, -e, p.sort))
                    v = self._unaffine(w, 1, -e, p.sort, v)
        return v

    def propagate(self) -> None:
        work, queued = self._work, self._queued
        val, parents = self._val, self._parents
        steps = 0
        while work:
            if steps >= self.budget or self.contradiction:
                self.exhausted += bool(work) and not self.contradiction
                work.clear()
                queued.clear()
                self._sums.clear()  # operands narrowed and never popped: their sums did not hear
                return
            p = work.popleft()
            queued.discard(p)
            steps += 1
            for q in tuple(parents.get(p, ())):  # a copy: narrowing may register a key reading p
                if q in val:
                    before = val[q]
                    self._narrow(q, self._forward(q, p))
                    if val[q] is before and q.kind in _REVISED and len(q.args) <= SHORT_KEY:
                        self._backward(q)  # q held still: its other operands may still narrow
            self._backward(p)

    # ------------------------------------------------------------ substitution

    def dependents(self, x: Term) -> set[Term]:
        """Every key whose definition reads ``x``, directly or not."""
        affected: set[Term] = set()
        stack = [x]
        while stack:
            for q in self._parents.get(stack.pop(), ()):
                if q not in affected:
                    affected.add(q)
                    stack.append(q)
        return affected

    def rekey(self, keys: list[Term], normalize) -> None:
        """Move each of ``keys`` (in order) to its new normal form, keeping its value and
        its excluded values, then propagate: a binding ``x = e`` changed their terms."""
        moved = [(old, *self._detach(old)) for old in keys if old in self._val]
        for old, v, excluded in moved:
            new = normalize(old)
            self.register(new)
            self.narrow_term(new, v)
            if excluded:
                self._move_excluded(new, excluded)
        self.propagate()

    def _detach(self, old: Term) -> tuple[object, set | None]:
        """Remove a key (its value, excluded values, parent links); its value and excluded
        values. Logged: a key's parents come back in their order (it decides the order of
        propagation and of slices); the order of the other dicts is never read."""
        trail = self.trail
        v = self._val.pop(old)
        self.shape += 1
        self.removals += 1
        self.removal_floors.append(-1)
        trail.push(self._val.__setitem__, old, v)
        self._sums.pop(old, None)
        excluded = self._excluded.pop(old, None)
        if excluded is not None:
            trail.push(self._excluded.__setitem__, old, excluded)
        for c in self._children(old):
            ps = self._parents.get(c)
            if ps is not None and old in ps:
                if trail.recording:
                    trail.entries.append((_refill, ps, dict(ps)))
                del ps[old]
        ps = self._parents.pop(old, None)
        if ps is not None:
            trail.push(self._parents.__setitem__, old, ps)
        return v, excluded

    def _move_excluded(self, new: Term, excluded: set) -> None:
        k, p, c = self.split(new)
        if p is None:
            if any(c == e for e in excluded):
                self.contradiction = True
            return
        for e in excluded:
            target = (Fraction(e) - c) / k
            if new.sort is REAL or target.denominator == 1:
                self._add_excluded(p, target if new.sort is REAL else int(target))

    # ------------------------------------------------------------ checkpoints

    def registered_since(self, removals: int, logged: int) -> tuple[int, list[Term]] | None:
        """For a cache built from the log's first ``logged`` keys when :attr:`removals` was
        ``removals``: ``(kept, new)``, where the cached keys at log positions below ``kept``
        are all still there (a rollback only cuts the log from its mark on) and ``new`` are
        the keys logged from ``kept`` on; None after a detach (any key may have left)."""
        floors = self.removal_floors[removals:]
        if any(floor < 0 for floor in floors):
            return None
        kept = min(logged, *floors) if floors else logged
        return kept, self.registered[kept:]

    def mark(self) -> tuple:
        """What the trail does not log: the epoch, the contradiction flag, the blocks'
        journal position (the journal starts with the first checkpoint), whether a
        propagation was under way (restoring values it had not finished with is a cut)."""
        return self.epoch, self.contradiction, self._blocks.start_journal(), bool(self._work), len(self.registered)

    def restore(self, mark: tuple) -> None:
        """Back to a :meth:`mark`, once the trail is undone to the same checkpoint."""
        self.epoch, self.contradiction, position, pending, registered = mark
        del self.registered[registered:]
        self.exhausted += pending  # back to values a propagation had not finished with
        self.shape += 1
        self.removals += 1
        self.removal_floors.append(registered)
        self._blocks.undo_to(position)
        self._work.clear()
        self._queued.clear()
        self._sums.clear()
        self._partial_bounds.clear()

    def stop_recording(self) -> None:
        """No checkpoint is open any more: the blocks keep no journal."""
        self._blocks.stop_journal()


def _none(atom: Term) -> None:
    """A stand-in that has no value for any atom."""
    return None


def _refill(d: dict, content: dict) -> None:
    """Give ``d`` back its ``content``, in its order."""
    d.clear()
    d.update(content)


def _split(t: Term) -> tuple[object, Term | None, object]:
    """``t = k*P + c`` with ``P`` an atom or a primitive linear form (leading coefficient 1/positive)."""
    kind = t.kind
    if kind == CONST:
        return 0, None, t.data
    if kind != LIN:
        return 1, t, 0
    coefs, c = t.data
    if len(coefs) == 1:
        return coefs[0], t.args[0], c
    if t.sort is INT:
        k = math.gcd(*coefs)
        if coefs[0] < 0:
            k = -k
        return k, T.primitive_part(t, k), c
    k = coefs[0]
    return k, T.make_linear(REAL, {a: v / k for a, v in zip(t.args, coefs)}, 0), c


#: a narrowed bound past this many bits is not taken: a cycle of products (``x >= y*y``,
#: ``y >= x``) squares its bounds at every step, and its digits would double each time
MAX_BOUND_BITS = 1 << 17


def _outgrown(old: tuple, new: tuple) -> bool:
    """Whether a bound that narrowing changed has grown past :data:`MAX_BOUND_BITS`."""
    return any(n != o and _bits(n) > MAX_BOUND_BITS for o, n in zip(old, new))


def _bits(b) -> int:
    if type(b) is int:
        return b.bit_length()
    if type(b) is float:  # an infinity
        return 0
    return max(b.numerator.bit_length(), b.denominator.bit_length())
