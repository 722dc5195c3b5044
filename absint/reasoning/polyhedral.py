"""Layer 2: the exact relational check of a guard, on the slice of facts it touches.

The value network already holds what isl needs: bounds of atoms, bounds of linear
combinations (the relational facts) and nonlinear atoms with their operands. For one
guard this layer takes the nearest slice of that network (at most :data:`MAX_SLICE` in
weight), turns it into integer linear constraints (nonlinear atoms become variables
linked to their operands, see :mod:`absint.reasoning.links`) and asks isl, under
:data:`MAX_OPERATIONS` per call, whether the guard (or its negation) is entailed.
Real-sorted atoms stay out: isl reasons over the integers.

What a question leaves behind: the keys of the atoms it reads are registered in the
network (as every layer-1 question does), and the back-off counters below change
whether a later question reaches isl at all (never what isl answers).
"""

from __future__ import annotations

from typing import Iterable, Iterator

import attrs

from absint.lang import terms as T
from absint.lang.kinds import EQ, LE, LIN, NE, TO_REAL, VAR
from absint.lang.terms import INT, Term
from absint.reasoning.facade import Facade
from absint.reasoning.links import links
from domains.bounds import is_infinite
from domains.packing import nearest_block
from domains.polyhedra import LinearConstraint, Polyhedron

#: slice size, counted in weight: a variable weighs 1, a nonlinear atom (which brings
#: McCormick/division constraints with large coefficients, isl's costly case) weighs
#: NONLINEAR_WEIGHT
MAX_SLICE = 36
NONLINEAR_WEIGHT = 9
#: isl operations per call (``set_max_operations``); past it the answer is UNKNOWN
MAX_OPERATIONS = 20_000
#: after this many isl queries in a row without a verdict, only every k-th candidate is
#: tried (k grows with the streak): files full of real guards do not pay isl on each
BACKOFF_STREAK = 32
#: polyhedra kept for the next questions on the same slice while the network is unchanged
KEPT_POLYHEDRA = 8
#: slices kept (by their seed atoms) while the network is unchanged
KEPT_SLICES = 64


@attrs.frozen(slots=True)
class Slice:
    """A slice as isl constraints: ``index`` maps atoms to dimensions (the set dimensions
    first, then one existential per congruence ``x = m*k + r``, then the parameters)."""

    constraints: list[LinearConstraint]
    index: dict[Term, int]
    n_dims: int
    relational: bool  # whether some constraint relates two atoms
    #: whether it holds only bounds of variables and bounds of differences ``x - y``
    #: (no congruence, no other relation, no nonlinear atom): what zones read exactly
    differences_only: bool = False


def indexed(coefs: dict[Term, int], index: dict[Term, int], sign: int = 1) -> tuple[tuple[int, int], ...]:
    """A linear form's coefficients over isl dimensions."""
    return tuple((index[a], sign * int(v)) for a, v in coefs.items())


def comparison_constraint(g: Term, index: dict[Term, int]) -> LinearConstraint:
    """A normal ``t <= 0`` (as ``-t >= 0``), or the equality ``t = 0`` of ``t = 0`` and
    ``t != 0``, over indexed atoms."""
    coefs, c = T.linear_parts(g.args[0])
    if g.kind == LE:
        return LinearConstraint(indexed(coefs, index, -1), -int(c))
    return LinearConstraint(indexed(coefs, index), int(c), equality=True)


class PolyhedralLayer:
    """Answers guards the value network leaves open; ``None`` means still unknown."""

    def __init__(self, facade: Facade, max_slice: int = MAX_SLICE, max_operations: int = MAX_OPERATIONS):
        self.network = facade.network
        self.max_slice = max_slice
        self.max_operations = max_operations
        self.queries = 0
        self.exhausted = 0
        self.left_to_zones = 0  # open questions not asked because zones' answer is exact
        #: per block of related atoms (its union-find root): (isl queries since its last
        #: verdict, candidates seen); blocks back off apart, so unrelated parts of a program
        #: (N copies of one model in a file) do not make each other's questions skip isl
        self._streaks: dict[object, tuple[int, int]] = {}
        #: the network's (epoch, shape) the kept slices and polyhedra were built in;
        #: seed atoms -> slice atoms; slice atoms -> (slice, polyhedron): see :meth:`_built`
        self._kept_state: tuple[int, int] | None = None
        self._kept_slices: dict[tuple[Term, ...], list[Term] | None] = {}
        self._kept: dict[frozenset, tuple[Slice, Polyhedron | None]] = {}
        self._kept_differences: dict[frozenset, bool] = {}
        #: (network removals, registration log length, [(log position, key)]): the linear
        #: keys but differences, brought up to date from the log (:meth:`_other_keys`)
        self._others: tuple[int, int, list[tuple[int, Term]]] = (0, 0, [])
        #: the same keys by their first atom (entries of keys since cut are skipped by
        #: ``_others_live``): a slice's check reads the keys of its own atoms only
        self._others_by_atom: dict[Term, list[Term]] = {}
        self._others_live: set[Term] = set()
        self._others_indexed: set[Term] = set()  # in ``_others_by_atom`` once, cut or not
        self._whole_blocks: dict[Term, list[Term]] = {}

    # ------------------------------------------------------------ slices

    def _neighbours(self, a: Term) -> Iterable[Term]:
        if a.kind not in (VAR, LIN, TO_REAL):
            for arg in a.args:
                if arg.sort is INT:
                    yield from T.linear_parts(arg)[0]
        for q in self.network.parents(a):
            if q.kind == LIN:
                yield from q.args
            elif q.sort is INT:
                yield q

    def _slice(self, atoms: list[Term]) -> list[Term] | None:
        """The nearest slice around ``atoms``, or None if it cannot hold them all."""
        return self._slice_and_whole(atoms)[0]

    def _slice_and_whole(self, atoms: list[Term]) -> tuple[list[Term] | None, bool]:
        """:meth:`_slice`, and whether it is the whole block of related atoms (then it is
        the slice of every atom in it)."""
        def weight(a: Term) -> int:
            return 1 if a.kind == VAR else NONLINEAR_WEIGHT

        found, whole = nearest_block(atoms, self._neighbours, self.max_slice, weight)
        out = [a for a in found if a.sort is INT]
        return (out, whole) if all(a in out for a in atoms) else (None, False)

    def _polyhedron(self, s: Slice, n_params: int = 0) -> Polyhedron:
        poly = Polyhedron(s.n_dims, n_params, max_operations=self.max_operations)
        poly.add_all(s.constraints)
        return poly

    # ------------------------------------------------------------ constraints

    def _constraints(self, dims: list[Term], params: list[Term] = ()) -> Slice:
        """Integer constraints over ``dims`` then ``params`` (isl parameters)."""
        network = self.network
        atoms = list(dims) + list(params)
        congruent = []
        for a in atoms:
            v = network.key_value(a)
            if v is not None and _congruent(network.domain, v):
                congruent.append((a, network.domain.congruence(v)))
        n_dims = len(dims) + len(congruent)
        index = {a: i for i, a in enumerate(dims)}
        index.update({a: n_dims + j for j, a in enumerate(params)})
        out: list[LinearConstraint] = []
        for a in atoms:
            v = network.key_value(a)
            if v is not None:
                out.extend(_within({a: 1}, 0, *network.domain.bounds(v), index))
        for k, (a, (m, r)) in enumerate(congruent):  # a = m*k + r
            out.append(LinearConstraint(((index[a], 1), (len(dims) + k, -m)), -int(r), True))
        relations, related, differences_only = self._relations(atoms, index)
        tied = [c for a in atoms for c in links(a, index, network)]
        differences_only = differences_only and not tied and not congruent and all(a.kind == VAR for a in atoms)
        return Slice(out + relations + tied, index, n_dims, bool(related or tied), differences_only)

    def _relations(self, atoms: list[Term], index: dict[Term, int]) -> tuple[list[LinearConstraint], bool, bool]:
        """The bounds of every linear key over indexed atoms: the relational facts; whether
        there is such a key; and whether every one is a difference ``x - y`` (as zones read
        them). A key whose bounds its atoms' own bounds imply (the slice holds those) adds no
        constraint: the polyhedron is the same set, with fewer rows for isl (a swin model's
        slices carried ``32*a - b`` keys bounded only by ``2**68``: 95 rows against 79)."""
        out: list[LinearConstraint] = []
        related, differences_only = False, True
        for q, lo, hi in self._bounded_keys(atoms, index):
            related = True
            coefs, c = q.data
            implied = self._box_implies(q, lo, hi)
            differences_only = differences_only and (implied or T.is_difference(q))
            if not implied:
                out.extend(_within(dict(zip(q.args, coefs)), c, lo, hi, index))
        return out, related, differences_only

    def _bounded_keys(self, atoms: list[Term], inside) -> Iterator[tuple[Term, object, object]]:
        """``(q, lo, hi)`` for each linear key over atoms all ``inside`` the slice with a
        finite bound; a key over atoms outside it is looked at once."""
        seen: set[Term] = set()
        for a in atoms:
            for q in self.network.parents(a):
                if q.kind != LIN or q in seen:
                    continue
                seen.add(q)
                if not all(x in inside for x in q.args):
                    continue
                lo, hi = self.network.domain.bounds(self.network.key_value(q))
                if not (is_infinite(lo) and is_infinite(hi)):
                    yield q, lo, hi

    def _differences_only(self, atoms: list[Term]) -> bool:
        """``Slice.differences_only`` of the slice over ``atoms``, without building it: every
        atom a variable without a congruence, every bounded key over them a difference or
        implied by its atoms' bounds (what :meth:`_constraints` would find)."""
        network = self.network
        for a in atoms:
            v = network.key_value(a)
            if a.kind != VAR or (v is not None and _congruent(network.domain, v)):
                return False
        for q in self._other_keys_inside(atoms):
            lo, hi = network.domain.bounds(network.key_value(q))
            if not (is_infinite(lo) and is_infinite(hi)) and not self._box_implies(q, lo, hi):
                return False
        return True

    def _other_keys_inside(self, atoms: list[Term]) -> list[Term]:
        """The linear keys over atoms all in ``atoms`` but the differences ``x - y`` (zones
        read those whatever their bounds), looked up by their first atom among ``atoms``:
        a slice's check does not walk the network's keys (a chain of offsets registers
        more with every question: walking them all made each check grow with the program)."""
        self._update_other_keys()
        inside, live, out = frozenset(atoms), self._others_live, []
        for a in inside:
            for q in self._others_by_atom.get(a, ()):
                if q in live and q not in out and all(x in inside for x in q.args):
                    out.append(q)
        return out

    def _update_other_keys(self) -> None:
        """Every linear key of the network but the differences, with its log position, brought
        up to date from the registration log (a rollback cuts those logged after its mark); a
        detach makes it read the whole log again, keeping the keys still there."""
        network, (removals, logged, kept) = self.network, self._others
        since = network.registered_since(removals, logged)
        if since is None:
            start, kept, new = 0, [], network.registered
            self._others_by_atom, self._others_live, self._others_indexed = {}, set(), set()
        else:
            start, new = since
            self._others_live.difference_update(q for i, q in kept if i >= start)
            kept = [(i, q) for i, q in kept if i < start]
        added = [(start + i, q) for i, q in enumerate(new)
                 if q.kind == LIN and not T.is_difference(q) and (since or network.key_value(q) is not None)]
        for _, q in added:
            self._others_live.add(q)
            if q not in self._others_indexed:
                self._others_indexed.add(q)
                self._others_by_atom.setdefault(q.args[0], []).append(q)
        self._others = (network.removals, len(network.registered), kept + added)

    def _box_implies(self, q: Term, lo, hi) -> bool:
        """Whether ``lo <= q <= hi`` follows from its atoms' own bounds (a key a question
        registered, such as PyTorch's ``-size <= start``, whose bounds were only read off
        them): a constraint the slice need not relate atoms by."""
        coefs, c = q.data
        low = high = c
        for a, v in zip(q.args, coefs):
            a_lo, a_hi = self.network.domain.bounds(self.network.key_value(a))
            first, second = (a_lo, a_hi) if v > 0 else (a_hi, a_lo)
            low = None if low is None or is_infinite(first) else low + v * first
            high = None if high is None or is_infinite(second) else high + v * second
        return (is_infinite(lo) or (low is not None and low >= lo)) and \
            (is_infinite(hi) or (high is not None and high <= hi))

    # ------------------------------------------------------------ symbolic bounds

    def symbolic_bound(self, t: Term, params: set[Term], upper: bool = True) -> list[Term] | None:
        """Valid bounds of ``t`` as terms over the atoms built from ``params`` only.

        isl's parametric maximum gives one affine piece per region of the
        parameters; each piece is kept only if it bounds ``t`` everywhere, so
        the minimum (``upper``) or maximum of the returned pieces is a sound bound.
        """
        if t.sort is not INT:
            return None
        sign = 1 if upper else -1
        coefs, c = T.linear_parts(t)
        if not coefs:
            return [t]
        atoms = self._slice(list(coefs))
        if atoms is None:
            return None
        dims = [a for a in atoms if not all(v in params for v in T.free_vars(a))]
        ps = [a for a in atoms if all(v in params for v in T.free_vars(a))]
        s = self._constraints(dims, ps)
        poly = self._polyhedron(s, len(ps))
        lin = indexed(coefs, s.index, sign)
        pieces = poly.parametric_maximum(lin, sign * int(c))
        if pieces is None:
            self.exhausted += 1
            return None
        out: list[Term] = []
        for _, pcoefs, const, den in pieces:
            # sign*t <= (sum pcoefs*p + const) / den, valid everywhere?
            check = LinearConstraint(
                tuple((i, -den * v) for i, v in lin) + tuple((s.n_dims + j, v) for j, v in pcoefs.items() if v),
                const)
            if poly.entails(check) is not True:
                continue
            expr = _piece(ps, pcoefs, const, den, upper)
            if all(expr is not o for o in out):
                out.append(expr)
        return out or None

    # ------------------------------------------------------------ queries

    def decide(self, g: Term, settled_by_zones: bool = False) -> bool | None:
        """Truth of a normal comparison over Int atoms, or None. ``settled_by_zones``: the
        difference-bound layer searched ``g``'s difference to the end and left it open;
        then a slice of difference constraints only is not asked (isl would find the
        same bounds: the cost a long chain of ``<=`` used to pay on every open question)."""
        if g.kind not in (LE, EQ, NE) or g.args[0].sort is not INT:
            return None
        coefs, _ = T.linear_parts(g.args[0])
        if not coefs or any(a.sort is not INT for a in coefs):
            return None
        if not any(self.network.related(a) for a in coefs):
            return None
        atoms = None
        if settled_by_zones:
            atoms = self._slice_atoms(tuple(coefs))
            if atoms is None or self._kept_differences_only(atoms):
                self.left_to_zones += atoms is not None
                return None
        block = self.network.block_of(next(a for a in coefs if self.network.related(a)))
        misses, candidates = self._streaks.get(block, (0, 0))
        self._streaks[block] = (misses, candidates + 1)
        if (candidates + 1) % (1 + misses // BACKOFF_STREAK):
            return None  # backing off: not even the slice is built
        built = self._built(tuple(coefs), atoms)
        if built is None or not built[0].relational:
            return None
        self.queries += 1
        verdict = self._entailment(g, *built)
        self._streaks[block] = (0 if verdict is not None else misses + 1, candidates + 1)
        return verdict

    def mark(self) -> dict:
        """The back-off state (it decides whether a later question reaches isl), for
        :meth:`restore` on rollback; ``queries`` and ``exhausted`` count work done and
        are not rolled back."""
        return dict(self._streaks)

    def restore(self, mark: dict) -> None:
        self._streaks = dict(mark)
        self._kept_state = None  # the epoch goes back too: a kept polyhedron could match other facts

    def relational_verdict_elsewhere(self, g: Term) -> None:
        """Another relational layer (difference bounds) decided ``g``: that ends its block's
        streak of open questions as an isl verdict would (the back-off is for real guards)."""
        for a in T.linear_parts(g.args[0])[0]:
            block = self.network.block_of(a)
            if block in self._streaks:
                self._streaks[block] = (0, self._streaks[block][1])

    def _keep_state(self) -> None:
        """Forget the kept slices and polyhedra once the network has changed (its epoch,
        or its keys: ``shape``): they were built from facts that are no longer all."""
        state = (self.network.epoch, self.network.shape)
        if state != self._kept_state:
            self._kept_state = state
            self._kept_slices.clear()
            self._kept.clear()
            self._kept_differences.clear()
            self._whole_blocks.clear()

    def _slice_atoms(self, seeds: tuple[Term, ...]) -> list[Term] | None:
        """:meth:`_slice` of ``seeds``, kept while the network is the same; a slice that is
        a whole block is the slice of all its atoms (the 32 sizes of one split: one walk)."""
        self._keep_state()
        if seeds in self._kept_slices:
            return self._kept_slices[seeds]
        blocks = {id(self._whole_blocks.get(a)) for a in seeds}
        if len(blocks) == 1 and seeds[0] in self._whole_blocks:
            return self._whole_blocks[seeds[0]]
        atoms, whole = self._slice_and_whole(list(seeds))
        _bounded_put(self._kept_slices, seeds, atoms, KEPT_SLICES)
        if whole:
            self._whole_blocks.update(dict.fromkeys(atoms, atoms))
        return atoms

    def _kept_differences_only(self, atoms: list[Term]) -> bool:
        """:meth:`_differences_only`, kept per slice while the network is the same."""
        key = frozenset(atoms)
        if key not in self._kept_differences:
            _bounded_put(self._kept_differences, key, self._differences_only(atoms), KEPT_SLICES)
        return self._kept_differences[key]

    def _built(self, seeds: tuple[Term, ...], atoms: list[Term] | None) -> tuple[Slice, Polyhedron] | None:
        """The slice around ``seeds`` and its polyhedron, kept while the network is the same.
        PyTorch asks ``u == 0``, ``u != 0``, ``u == 1``, ``u < 2`` of each of a split's
        sizes, whose slices are all one block: one polyhedron serves them all, and its
        witness points answer most of the questions without isl
        (:meth:`domains.polyhedra.Polyhedron.satisfiable_with`)."""
        atoms = atoms or self._slice_atoms(seeds)
        if atoms is None:
            return None
        key = frozenset(atoms)
        kept = self._kept.get(key)
        if kept is None:
            s = self._constraints(atoms)
            kept = (s, self._polyhedron(s) if s.relational else None)
            _bounded_put(self._kept, key, kept, KEPT_POLYHEDRA)
        return kept

    def _entailment(self, g: Term, s: Slice, poly: Polyhedron) -> bool | None:
        guard = comparison_constraint(g, s.index)
        if g.kind == NE:
            possible = poly.satisfiable_with(guard)
            if possible is None:
                self.exhausted += 1
                return None
            if not possible:
                return True
            return False if poly.entails(guard, same_question=True) else None
        entailed = poly.entails(guard)
        if entailed is None:
            self.exhausted += 1
            return None
        if entailed:
            return True
        possible = poly.satisfiable_with(guard, same_question=True)
        if possible is None:
            self.exhausted += 1
            return None
        return False if not possible else None

    # ------------------------------------------------------------ residual guards (compiler API)

    def residual(self, guards: list[Term]) -> list[Term] | None:
        """Of the normal comparisons ``guards`` (``le``/``eq`` over Int atoms), the
        constraints still needed where the facts hold: isl's gist of their
        conjunction on the slice they touch. The conjunction of the result is
        equivalent to that of ``guards`` under the facts (the slice is implied by
        them, and ``gist ∩ C = G ∩ C`` for any such context ``C``); None when not
        applicable (atoms outside the slice, isl out of budget)."""
        atoms: dict[Term, None] = {}
        for g in guards:
            if g.kind not in (LE, EQ) or g.args[0].sort is not INT:
                return None
            self.network.register(g.args[0])
            atoms.update(dict.fromkeys(T.linear_parts(g.args[0])[0]))
        if not atoms or any(a.sort is not INT for a in atoms):
            return None
        dims = self._slice(list(atoms))
        if dims is None:
            return None
        s = self._constraints(dims)
        kept = self._polyhedron(s).gist([comparison_constraint(g, s.index) for g in guards])
        if kept is None:
            self.exhausted += 1
            return None
        atom_at = {i: a for a, i in s.index.items()}
        out = []
        for con in kept:
            if any(i not in atom_at for i, _ in con.coefs):  # a congruence's existential
                return None
            lhs = T.add(T.const(con.const), *(T.scale(atom_at[i], v) for i, v in con.coefs))
            out.append(T.eq(lhs, T.ZERO) if con.equality else T.ge(lhs, T.ZERO))
        return out


def _bounded_put(kept: dict, key, value, limit: int) -> None:
    """``kept[key] = value``, the oldest entry dropped past ``limit``."""
    kept[key] = value
    if len(kept) > limit:
        kept.pop(next(iter(kept)))


def _congruent(domain, v) -> bool:
    """Whether ``v`` holds a congruence ``a = m*k + r`` with ``m > 1`` that isl is told beyond
    the bounds (a constant needs none)."""
    lo, hi = domain.bounds(v)
    return domain.congruence(v)[0] > 1 and lo != hi


def _within(coefs: dict[Term, int], const, lo, hi, index: dict[Term, int]) -> list[LinearConstraint]:
    """``lo <= sum coefs*a + const <= hi`` (the finite sides)."""
    idx = indexed(coefs, index)
    out = []
    if not is_infinite(lo):
        out.append(LinearConstraint(idx, int(const - lo)))
    if not is_infinite(hi):
        out.append(LinearConstraint(tuple((i, -v) for i, v in idx), int(hi - const)))
    return out


def _piece(ps: list[Term], pcoefs: dict[int, int], const: int, den: int, upper: bool) -> Term:
    """A parametric maximum's piece ``(sum pcoefs*p + const) / den`` as a term (negated for a
    lower bound)."""
    expr = T.add(T.const(const), *(T.scale(ps[j], v) for j, v in pcoefs.items() if v))
    if den != 1:
        expr = T.div(expr, T.const(den))
    return expr if upper else T.neg(expr)
