"""The facade: facts one at a time, guards decided against them, cheapest layer first.

:class:`Reasoner` owns the layers and is what they ask of each other (the
:class:`absint.reasoning.facade.Facade` protocol), as TVM's sub-analyzers ask their
``Analyzer``: layer 0, the normal form and its rule table; layer 1, the value network,
its entailment, the product bounds and Miné's linearisation; layer 2, isl on a slice.
Each verdict records the layer that decided it. A contradiction among the facts makes
every guard vacuously TRUE, and is reported through :attr:`Reasoner.contradiction` (in a
traced program it means a bug upstream or in us).

What a question leaves behind (the facts never change, but later answers may): the
keys of a guard that layer 1's fast path does not decide are registered in the value
network, so later facts narrow them too; normal forms are memoised (a rule whose side
conditions are not yet proved is retried later); the polyhedral layer counts its
unproductive isl queries to back off. None of this changes what a later question means,
only how much a later answer can know.
"""

from __future__ import annotations

import math
from typing import ContextManager, Iterable

from absint.lang import terms as T
from absint.lang.kinds import AND, CONST, EQ, LE, LIN, OR
from absint.lang.rewriting import Row, holds, rewrite
from absint.lang.terms import BOOL, INT, Term
from absint.reasoning.case_split import CaseBudget, SplitBackoff, disjunction_decide, split_decide
from absint.reasoning.entailment import Entailment
from absint.reasoning.facts import Facts
from absint.reasoning.linearize import linearized_value
from absint.reasoning.network import DEFAULT_BUDGET, ValueNetwork
from absint.reasoning.normal_form import NormalForm
from absint.reasoning.polyhedral import PolyhedralLayer
from absint.reasoning.products import ProductBounds
from absint.reasoning.rules import EXPAND_BY_KIND, distribute
from absint.reasoning.simplify import Simplified, simplify
from absint.reasoning import trail
from absint.reasoning.trail import Checkpoint, CheckpointError, Trail
from absint.reasoning.verdict import UNKNOWN, Layer, Truth, Verdict
from absint.reasoning.witnesses import LONG_QUESTION, Witnesses
from absint.reasoning.zones import DifferenceBounds
from domains.interval_congruence import IC
from domains.lattice import ValueDomain

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1

#: and/or nesting decided conjunct by conjunct (deeper: UNKNOWN)
MAX_JUNCTION_DEPTH = 4
#: settled guards kept (:meth:`Reasoner._settle`); past this the memo starts again (a
#: compiler's process lives long)
MAX_SETTLED = 1 << 16
#: named sums unfolded (newest first) at most, when a symbolic bound is read through them
UNFOLD_LEVELS = 4

#: how costly a layer is, to report the costliest one a combined answer used
_LAYER_COST = {Layer.NORMAL_FORM: 0, Layer.INTERVAL: 1, Layer.ZONES: 2, Layer.POLYHEDRA: 3,
               Layer.CASE_SPLIT: 4, Layer.CONTRADICTION: 5, Layer.NONE: -1}


class Reasoner:
    def __init__(self, domain: ValueDomain | None = None, budget: int | None = None, relational: bool = True,
                 backed: Iterable[Term] = (), cases: CaseBudget | None = CaseBudget(), witnesses: bool = True,
                 early_look: str = "where it pays"):
        """``budget``: propagation steps per fact (default :data:`DEFAULT_BUDGET`);
        ``relational``: whether isl backs layers 0-1; ``backed``: the symbols with
        example values (inputs), which equalities eliminate first; ``cases``: how much
        case splitting an open guard may do (None: none; see
        :mod:`absint.reasoning.case_split`); ``witnesses``: whether models of the facts kept at
        hand answer an open question UNKNOWN before the relational layers
        (:mod:`absint.reasoning.witnesses`; off, every verdict is the same, only slower);
        ``early_look``: ``"always"`` or ``"where it pays"``, when the points see a guard before
        it is normalised (:meth:`Witnesses.open_early`): a compiler's questions are mostly
        open (PyTorch's jagged exports: 45-85%), a corpus file's asserts mostly hold ("always"
        looks at every short question; long ones, tallied apart, where it pays)."""
        self.cases = cases
        self._splits = SplitBackoff()
        self._disjunction_splits = SplitBackoff()  # apart: they must not make the others rarer
        self._trail = Trail()
        self._checkpoints: list[Checkpoint] = []  # open, oldest first
        self._serial = 0
        self.network = ValueNetwork(self, IC if domain is None else domain,
                                    DEFAULT_BUDGET if budget is None else budget, self._trail)
        self.normal_form = NormalForm(self, self._trail)
        self.entailment = Entailment(self)
        self.products = ProductBounds(self)
        self.zones = DifferenceBounds(self)
        self.polyhedral = PolyhedralLayer(self) if relational else None
        self.witnesses = Witnesses(self._trail, early_look=early_look) if witnesses else None
        #: the last guard the witness points showed both ways (no case split for it)
        self._open_at_points: Term | None = None
        #: guards as asked that :meth:`decide` settled TRUE or FALSE (:meth:`_settle`)
        self._settled: dict[Term, Verdict] = {}
        self._intake = Facts(self, self.network, self.normal_form, self._trail)
        self._intake.prefer_to_eliminate(backed)
        self.facts: list[Term] = []

    # ------------------------------------------------------------ what the layers ask (Facade)

    def truth(self, b: Term) -> bool | None:
        """Whether a normal Bool term holds, by layers 0 and 1 (no isl)."""
        return self.entailment.truth(b)

    def normalize(self, term: Term) -> Term:
        return self.normal_form.normalize(term)

    def normalized(self, term: Term) -> Term | None:
        return self.normal_form.known_form(term)

    def literal_truth(self, b: Term) -> bool | None:
        return self._intake.literal_truth(b)

    def clause_implied(self, b: Term) -> bool:
        return self._intake.clause_implied(b)

    def kept_disjunctions(self) -> list[Term]:
        """The disjunctions the facts keep (none of whose disjuncts is known yet), normal."""
        return self._intake.kept_disjunctions()

    def product_bound(self, p: Term, upper: bool):
        return self.products.bound(p, upper)

    def linearized_value(self, t: Term):
        return linearized_value(self.network, t)

    # ------------------------------------------------------------ facts

    @property
    def contradiction(self) -> bool:
        return self.network.contradiction

    def prefer_to_eliminate(self, variables: Iterable[Term]) -> None:
        """Equalities eliminate these variables first (the inputs: backed symbols), so that
        the unbacked sizes they define stay the basis and keep their own bounds."""
        self._intake.prefer_to_eliminate(variables)

    def register(self, terms: Iterable[Term]) -> None:
        """Track these numeric terms from now on (their keys get values that later facts
        narrow), adding no fact: a named sum's definition is known before it is asked."""
        for t in terms:
            self.network.register(self.normalize(t))
        self.network.propagate()

    def assume(self, fact: Term) -> None:
        """Add a Bool fact; it is trusted only in the sense that later verdicts assume it."""
        if fact.sort is not BOOL:
            raise TypeError(f"assume() takes a Bool term, got {fact.sort.value}")
        self.facts.append(fact)
        self._trail.push(self.facts.pop)
        self._intake.assume(fact)
        if self.witnesses is not None:
            self.witnesses.assume(fact)

    def example(self, values) -> None:
        """Example values of variables (backed hints, by name): where the witness points
        start (:mod:`absint.reasoning.witnesses`); no fact is added."""
        if self.witnesses is not None:
            self.witnesses.example(values)

    # ------------------------------------------------------------ checkpoints

    def checkpoint(self) -> Checkpoint:
        """A point to :meth:`rollback` to: everything ``assume`` and ``decide`` change from
        now on is logged (:mod:`absint.reasoning.trail`) until the checkpoint is rolled
        back past or committed."""
        self._trail.recording = True
        self._serial += 1
        marks = (self.network.mark(), None if self.polyhedral is None else self.polyhedral.mark(),
                 None if self.witnesses is None else self.witnesses.mark())
        cp = Checkpoint(self, self._serial, len(self._trail.entries), marks)
        self._checkpoints.append(cp)
        return cp

    def rollback(self, cp: Checkpoint) -> None:
        """Back to the state ``cp`` was taken in, as if nothing had been assumed or asked
        since. Checkpoints newer than ``cp`` are discarded; ``cp`` stays open (roll back
        to it again, or :meth:`commit` it). Counters of work done (``exhausted``,
        ``queries``, rules ``fired``) are not rolled back."""
        i = self._open_index(cp)
        del self._checkpoints[i + 1:]
        self._trail.undo_to(cp.position)
        self.zones.forget()
        network_mark, polyhedral_mark, witnesses_mark = cp.marks
        self.network.restore(network_mark)
        if self.polyhedral is not None:
            self.polyhedral.restore(polyhedral_mark)
        if self.witnesses is not None:
            self.witnesses.restore(witnesses_mark)

    def commit(self, cp: Checkpoint) -> None:
        """Keep what happened since ``cp`` and close it (and the newer ones); with no
        checkpoint left open, logging stops."""
        del self._checkpoints[self._open_index(cp):]
        if not self._checkpoints:
            self._trail.recording = False
            self._trail.entries.clear()
            self.network.stop_recording()

    def tentatively(self) -> ContextManager[Checkpoint]:
        """``with reasoner.tentatively(): ...``: whatever the block assumes (or asks) is
        taken back when it ends, normally or by an exception."""
        return trail.tentatively(self)

    def _open_index(self, cp: Checkpoint) -> int:
        if not isinstance(cp, Checkpoint):
            raise TypeError(f"expected a Checkpoint, got {type(cp).__name__}")
        if cp.owner is not self:
            raise CheckpointError("this checkpoint was taken on another reasoner")
        for i, open_cp in enumerate(self._checkpoints):
            if open_cp is cp:
                return i
        raise CheckpointError("this checkpoint is closed: a rollback to an older checkpoint, "
                              "or a commit, discarded it")

    # ------------------------------------------------------------ questions

    def decide(self, guard: Term) -> Verdict:
        """TRUE if the facts imply ``guard``, FALSE if they refute it, else UNKNOWN."""
        if guard.sort is not BOOL:
            raise TypeError(f"decide() takes a Bool term, got {guard.sort.value}")
        if self.contradiction:
            return Verdict.true(Layer.CONTRADICTION)
        v = self._settled.get(guard)
        if v is None:
            v = self._decide_anew(guard)
            if v.truth is not Truth.UNKNOWN:
                self._settle(guard, v)
        return v

    def _settle(self, guard: Term, v: Verdict) -> None:
        """Keep a TRUE/FALSE verdict of ``guard`` as asked: the facts only grow, so it stays
        (logged on the trail: a rollback takes back those its future gave). PyTorch asks a
        prefix sum's bound alone, then inside two ``and``s (:meth:`_as_written` reads it)."""
        if len(self._settled) >= MAX_SETTLED:
            self._trail.set_attribute(self, "_settled", {})
        self._trail.set_item(self._settled, guard, v)

    def _settled_truth(self, guard: Term) -> bool | None:
        v = self._settled.get(guard)
        return None if v is None else v.truth is Truth.TRUE

    def _decide_anew(self, guard: Term) -> Verdict:
        guard, decided = self._as_written(guard)
        if decided is not None:
            return decided
        if self.witnesses is not None and self.witnesses.open_early(guard):
            return self._shown_open()  # the points at hand show it both ways: nothing to normalise
        g = self.normalize(guard)
        self._open_at_points = None
        v = self._decide_normal(g, MAX_JUNCTION_DEPTH)
        if v.truth is Truth.UNKNOWN and self._open_at_points is g:
            return self._shown_open()
        if v.truth is Truth.UNKNOWN and self.cases is not None and not self.contradiction:
            truth = split_decide(self, g, self.cases, self._splits)
            if truth is Truth.UNKNOWN and not self.contradiction:
                truth = disjunction_decide(self, g, self.cases, self._disjunction_splits)
            if truth is not Truth.UNKNOWN:
                return Verdict(truth, Layer.CASE_SPLIT)
        return v

    def _as_written(self, guard: Term) -> tuple[Term, Verdict | None]:
        """An and/or's comparisons read by layer 1's fast path as written, before the guard is
        normalised: the verdict when that decides it, else the guard without the operands it
        decided (an absorbing one decides; the others drop out). PyTorch's narrow asks
        ``and(u0 + ... + uk - s <= 0, -u0 - ... - uk <= 0)``: the second holds as written, and
        normalising the pair rewrote both over the lengths the binding ``s = u0 + ... + un``
        brings in. Bounds are sound for a term as written, so each answer is; an operand
        asked and settled before is read from :meth:`_settle`'s memo."""
        if guard.kind not in (AND, OR):
            return guard, None
        truth, rest = self.entailment.quick_operands(guard, self._settled_truth)
        if truth is not None:
            return guard, Verdict(Truth.TRUE if truth else Truth.FALSE, self._costliest_settled(guard.args))
        if len(rest) == len(guard.args):
            return guard, None
        return (T.or_ if guard.kind == OR else T.and_)(*rest), None

    def _costliest_settled(self, operands: Iterable[Term]) -> Layer:
        """The layer to report for operands read by the fast path or from the memo: the
        costliest that settled one of them (the fast path's own is the interval layer)."""
        settled = list(map(self._settled.get, operands))
        layers = [Layer.INTERVAL if v is None else v.by for v in settled]
        return max(layers, key=_LAYER_COST.__getitem__)

    def _shown_open(self) -> Verdict:
        """UNKNOWN with the guard's variables at the two points that showed it open."""
        w = self.witnesses
        return Verdict(Truth.UNKNOWN, Layer.NONE, open_at=w.open_pair(w.last_names))

    def decide_unsplit(self, guard: Term, relational: bool = True) -> Verdict:
        """``decide`` without case splitting (what each branch of a split asks);
        ``relational=False``: no isl either."""
        if self.contradiction:
            return Verdict.true(Layer.CONTRADICTION)
        return self._decide_normal(self.normalize(guard), MAX_JUNCTION_DEPTH, relational)

    def _decide_normal(self, g: Term, depth: int, relational: bool = True) -> Verdict:
        """Layers cheapest first on a normal Bool term; an ``and``/``or`` that layer 1 leaves
        open is decided conjunct by conjunct (each by whichever layer can), ``depth`` levels;
        a bound on a ``max``/``min`` left open, as the junction of bounds on its operands."""
        if g.kind == CONST:
            return Verdict(Truth.TRUE if g.data else Truth.FALSE, Layer.NORMAL_FORM)
        r = self.entailment.quick_truth(g)
        if r is None and self.zones.quick_decide(g):
            return Verdict(Truth.TRUE, Layer.ZONES)
        looked = r is None and self._points_first(g)
        if looked and self.witnesses.open(g):
            self._open_at_points = g
            return UNKNOWN
        if r is None:
            r = self.entailment.truth(g)
        if self.contradiction:  # registering the guard's terms can expose one
            return Verdict.true(Layer.CONTRADICTION)
        if r is not None:
            return Verdict(Truth.TRUE if r else Truth.FALSE, Layer.INTERVAL)
        if not looked and self.witnesses is not None and self.witnesses.open(g):
            self._open_at_points = g
            return UNKNOWN
        if g.kind in (AND, OR):
            return self._junction(g, depth, relational) if depth > 0 else UNKNOWN
        r = self.zones.decide(g)
        if r is not None:
            if self.polyhedral is not None:
                self.polyhedral.relational_verdict_elsewhere(g)
            return Verdict(Truth.TRUE if r else Truth.FALSE, Layer.ZONES)
        r = self._through_definitions(g)
        if r is not None:
            return Verdict(Truth.TRUE if r else Truth.FALSE, Layer.INTERVAL)
        r = self.zones.through_definitions(g)
        if r is not None:
            return Verdict(Truth.TRUE if r else Truth.FALSE, Layer.ZONES)
        if self.polyhedral is not None and relational:
            r = self.polyhedral.decide(g, settled_by_zones=self.zones.settled(g))
            if r is not None:
                return Verdict(Truth.TRUE if r else Truth.FALSE, Layer.POLYHEDRA)
        expanded = self._expanded(g) if depth > 0 else None
        if expanded is not None:
            return self._decide_normal(self.normalize(expanded), depth - 1, relational)
        return UNKNOWN

    def _points_first(self, g: Term) -> bool:
        """Whether the points see ``g`` before layer 1 registers its key: a comparison of a
        long sum (more than :data:`LONG_QUESTION` summands) no fact has mentioned yet. Its
        registration costs in proportion to the sum, and such a question is mostly open
        (a prefix sum before its check, ``u0 + ... + uk == 2**63 - 1``); the points, when
        they show it open, are right whatever the layers know."""
        if self.witnesses is None or g.kind not in T.COMPARISON_KINDS:
            return False
        t = g.args[0]
        if t.kind != LIN or len(t.args) <= LONG_QUESTION:
            return False
        return self.network.key_value(self.network.split(t)[1]) is None

    def _expanded(self, g: Term) -> Term | None:
        """An open guard as an equivalent junction the layers may decide, by the EXPAND rows of
        its kind (:data:`rules.GUARD_ROWS`: a bound on a max/min as bounds on its operands, a
        quotient by a positive divisor as bounds on its dividend), else multiplied out."""
        expanded = rewrite(EXPAND_BY_KIND[g.kind], (g, g), self.normalize, self._row_held)
        return expanded if expanded is not None else self._multiplied_out(g)

    def _multiplied_out(self, g: Term) -> Term | None:
        """A comparison with its products of sums multiplied out and its monomials met by
        the rule table's expand rows (``b*(a div b)`` is ``a - a mod b`` where ``b != 0``), or
        None when no row applies: the relational layers then see a linear form with a
        bounded remainder where the factored product was one opaque atom (PyTorch's
        ``s77 - s11 - s16*(ceil((s32 - s11)/s16) - 1) <= 0``)."""
        if g.kind not in T.COMPARISON_KINDS:
            return None
        d = distribute(g.args[0])
        d = g.args[0] if d is None else d
        e = self.normal_form.rewrite_monomials(d)
        return None if e is d else T.rebuild(g, (e,))

    def _held(self, c: Term) -> bool:
        """``c`` proved from the bounds the network holds, registering nothing."""
        return self.entailment.quick_truth(self.normalize(c)) is True

    def _row_held(self, row: Row, m) -> bool:
        """The prover of an open guard's own rows (:data:`rules.GUARD_ROWS`): every condition
        group has a term :meth:`_held` proves."""
        return holds(row, m, self.normalize, self._held)

    def _through_definitions(self, g: Term) -> bool | None:
        """A comparison over named sums, read by layer 1 with each named sum replaced by its
        definition: ``u0 + u1 <= total`` where ``total`` names ``u0 + ... + u{n-1}``."""
        if g.kind not in T.COMPARISON_KINDS:
            return None
        t = g.args[0]
        unfolded = T.unfold(t)
        if unfolded is t:
            return None
        u = self.normalize(T.rebuild(g, (unfolded,)))
        if u.kind == CONST:
            return u.data
        r = self.entailment.quick_truth(u)
        return self.entailment.truth(u) if r is None else r

    def _junction(self, g: Term, depth: int, relational: bool) -> Verdict:
        """An ``and`` is FALSE when one conjunct is, TRUE when all are (an ``or`` dually);
        ``.by``: the costliest layer the answer needed."""
        absorbing = Truth.TRUE if g.kind == OR else Truth.FALSE
        by = Layer.NORMAL_FORM
        unknown = False
        for a in g.args:
            v = self._decide_normal(a, depth - 1, relational)
            if v.truth is absorbing:
                return v
            unknown = unknown or v.truth is Truth.UNKNOWN
            by = max(by, v.by, key=_LAYER_COST.__getitem__)
        return UNKNOWN if unknown else Verdict(Truth.FALSE if absorbing is Truth.TRUE else Truth.TRUE, by)

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
        if term.sort is BOOL:
            raise TypeError("bounds() takes a numeric term")
        return self.network.bounds(self.normalize(term))

    def value(self, term: Term) -> object:
        """The abstract value (interval × congruence by default) of a numeric term, which
        is registered on the way: what a search reads to choose values of the right residue."""
        if term.sort is BOOL:
            raise TypeError("value() takes a numeric term")
        t = self.normalize(term)
        self.network.register(t)
        return self.network.value(t)

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
        t = self.normalize(term)
        self.network.register(t)
        pieces: list[Term] = []
        if self.polyhedral is not None and not self.contradiction:
            # the parametric maximum is over the atoms the wanted variables normalise to
            params = {v for p in wanted for v in T.free_vars(self.normalize(p))}
            found = self.polyhedral.symbolic_bound(t, params, upper) or []
            pieces = [p for p in found if set(T.free_vars(p)) <= wanted]
        pieces += self._through_eliminated(term, wanted, upper)
        if pieces:
            return pieces
        lo, hi = self.bounds(t)
        numeric = hi if upper else lo
        return None if numeric in (math.inf, -math.inf) else [T.const(numeric)]

    def _through_eliminated(self, term: Term, wanted: set[Term], upper: bool) -> list[Term]:
        """A variable an equality eliminated (``u0 + u1 = s0`` binds ``s0``) is no atom the
        parametric bound can mention; ``term - s0`` may still have a numeric bound ``c``:
        ``term <= s0 + c``."""
        out = []
        for x in sorted(wanted, key=lambda v: v.id):
            if self.normalize(x) is not x:
                lo, hi = self._bounds_through_definitions(T.sub(term, x))
                c = hi if upper else lo
                if c not in (math.inf, -math.inf):
                    out.append(T.add(x, T.const(c)))
        return out

    def _bounds_through_definitions(self, term: Term) -> tuple[object, object]:
        """``bounds`` of ``term``, tightened by reading it with its named sums unfolded newest
        first, up to :data:`UNFOLD_LEVELS` of them (``u3 - total`` where ``total`` names
        ``u0 + ... + u99``: at most 0; ``end_k - start_k - total``: two)."""
        lo, hi = self.bounds(term)
        n = self.normalize(term)
        for _ in range(UNFOLD_LEVELS):
            unfolded = T.unfold_newest(n)
            if unfolded is n or (lo != -math.inf and hi != math.inf):
                break
            n = self.normalize(unfolded)
            ulo, uhi = self.bounds(n)
            lo, hi = max(lo, ulo), min(hi, uhi)
        return lo, hi

    def simplify(self, term: Term) -> Simplified:
        """``term`` as the simplest expression found equal to it under the facts (its
        constant when they fix it), with its bounds: a presentation pass apart from the
        normal form, which deciding keeps (see :mod:`absint.reasoning.simplify`)."""
        return simplify(self, term)

    def residual(self, guards: Iterable[Term]) -> list[Term]:
        """What of the conjunction of ``guards`` the facts do not already imply:
        Bool terms whose conjunction is equivalent to ``guards``' under the facts
        (``[]``: implied; ``[FALSE]``: refuted). Conjuncts decided by the layers
        are dropped; the linear ones left go through isl's gist on their slice;
        the rest come back in normal form."""
        if self.contradiction:
            return []
        open_: list[Term] = []
        for g in guards:
            for c in (g.args if g.kind == AND else (g,)):
                v = self.decide(c).truth
                if v is Truth.FALSE:
                    return [T.FALSE]
                if v is Truth.UNKNOWN:
                    open_.append(self.normalize(c))
        linear = [c for c in open_ if c.kind in (LE, EQ) and c.args[0].sort is INT]
        if len(linear) > 0 and self.polyhedral is not None:
            kept = self.polyhedral.residual(linear)
            if kept is not None:
                rest = [c for c in open_ if c not in linear]
                if any(k is T.FALSE for k in kept):
                    return [T.FALSE]
                return rest + [k for k in kept if k is not T.TRUE]
        return open_


__all__ = ["Reasoner", "Verdict", "Truth", "Layer", "Checkpoint", "CheckpointError", "INT32_MIN", "INT32_MAX"]
