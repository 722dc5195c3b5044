"""Facts in: each one split into what the layers keep.

A conjunction is assumed conjunct by conjunct; a comparison narrows its key in the value
network (a disequality also excludes one value, and a product that is not zero has no
zero factor); an equality that solves for a variable becomes a binding of the normal
form, and the keys that mention the variable move to their new normal form; a Bool
literal is recorded; a disjunction waits until all but one of its disjuncts are refuted.
A ``distinct`` too long to expand is left out (a fact left out only weakens the
premises, so every verdict stays sound). A contradiction makes the state bottom: every
guard is then vacuously TRUE.
"""

from __future__ import annotations

from typing import Iterable

from absint.lang import terms as T
from absint.lang.kinds import AND, CONST, DISTINCT, EQ, MOD, MUL, NE, NOT, OR, VAR, Kind
from absint.lang.terms import Term
from absint.reasoning.facade import Facade
from absint.reasoning.normal_form import NormalForm, solve_for_variable
from absint.reasoning.network import ValueNetwork
from absint.reasoning.trail import Trail


class Facts:
    """The intake; its literals, waiting disjunctions and preferred variables are logged
    in ``trail`` (the network's) while a checkpoint is open."""

    def __init__(self, facade: Facade, network: ValueNetwork, normal_form: NormalForm,
                 trail: Trail | None = None):
        self.facade = facade
        self.network = network
        self.normal_form = normal_form
        self.trail = network.trail if trail is None else trail
        self._literals: set[Term] = set()
        self._disjunctions: list[Term] = []
        #: variables an equality eliminates first when it allows a choice
        self._preferred: set[Term] = set()

    @property
    def contradiction(self) -> bool:
        return self.network.contradiction

    def prefer_to_eliminate(self, variables: Iterable[Term]) -> None:
        for v in variables:
            self.trail.add(self._preferred, v)

    def literal_truth(self, b: Term) -> bool | None:
        """A Bool variable (or its negation) as the literals asserted say."""
        if b.kind == NOT:
            if b.args[0] in self._literals:
                return False
            return True if b in self._literals else None
        if b in self._literals:
            return True
        return False if T.not_(b) in self._literals else None

    def assume(self, fact: Term) -> None:
        """Add one fact (normal or not) and propagate its consequences."""
        if self.contradiction:
            return
        self._assume(self.normal_form.normalize(fact))
        self._recheck_disjunctions()

    def _assume(self, g: Term) -> None:
        kind = g.kind
        if kind == CONST:
            if g.data is False:
                self.network.contradict()
            return
        if kind == AND:
            for a in g.args:
                self._assume(self.normal_form.normalize(a))
                if self.contradiction:
                    return
            return
        if kind == OR:
            self._wait(g)
            return
        if kind == DISTINCT:  # too long to expand: left out, which only weakens the facts
            return
        if kind in (VAR, NOT):
            if T.not_(g) in self._literals:
                self.network.contradict()
            self.trail.add(self._literals, g)
            self.network.values_changed()
            return
        self._compare(kind, g)

    def _compare(self, kind: Kind, g: Term) -> None:
        t = g.args[0]
        network = self.network
        network.restrict(t, kind)
        if kind == NE:
            target = network.exclude(t)
            p = network.split(t)[1]
            if target == 0 and p.kind == MUL:
                for f in p.args:
                    self._assume(T.ne(f, T.ZERO))
        network.propagate()
        if kind == EQ and not self.contradiction:
            if t.kind == MOD:
                self._remainder_by_constant_factor(t)
            solved = solve_for_variable(g, self._preferred)
            if solved is not None:
                self._substitute(*solved)

    def _remainder_by_constant_factor(self, t: Term) -> None:
        """``a mod (k*B) = 0`` with ``B != 0`` proved is also ``a mod |k| = 0`` (``a = k*B*q``),
        a congruence every key over ``a`` then reads: PyTorch's ``(s6*s11) mod (4*s6 - 4) == 0``
        and a later ``4*((s6*s11) div 4)``, which is ``s6*s11``. Without ``B != 0`` nothing
        follows: SMT-LIB's ``a mod 0`` is any value, 0 included."""
        a, b = t.args
        if b.kind == CONST:
            return
        k, rest = T.content(b)
        if abs(k) > 1 and self.facade.truth(self.normal_form.normalize(T.ne(rest, T.ZERO))) is True:
            self._assume(self.normal_form.normalize(T.eq(T.mod(a, T.const(abs(k))), T.ZERO)))

    def _substitute(self, x: Term, e: Term) -> None:
        """Bind ``x = e`` and move every key that mentions ``x`` to its new normal form. A
        value that writes out a named sum is bound by the name (:func:`absint.lang.terms.fold_named`):
        ``values_size0 = u0 + ... + u{n-1}`` where the chain of prefixes ends in a name for that
        sum binds ``values_size0`` to the name, as when the program had named the total, and each
        ``end_k <= values_size0`` is a difference of two named sums, not a sum of ``n`` atoms."""
        folded = T.fold_named(e)
        if folded is not None:
            e = self.normal_form.normalize(folded)
        affected = self.network.dependents(x)
        self.normal_form.bind(x, e)
        self.network.rekey([x] + sorted(affected, key=lambda t: t.id), self.normal_form.normalize)

    def _recheck_disjunctions(self) -> None:
        if not self._disjunctions or self.contradiction:
            return
        pending = self._disjunctions
        self.trail.set_attribute(self, "_disjunctions", [])  # ``pending`` is left as it was
        truth = self.facade.truth
        for g in pending:
            g = self.normal_form.normalize(g)
            if g.kind != OR:
                self._assume(g)
                continue
            open_ = [a for a in g.args if truth(a) is not False]
            if any(truth(a) is True for a in open_):
                continue
            if not open_:
                self.network.contradict()
                return
            if len(open_) == 1:
                self._assume(open_[0])
            else:
                self._wait(g)

    def clause_implied(self, b: Term) -> bool:
        """Whether a kept disjunction has all its disjuncts among those of ``b`` (a normal
        ``or``), so the fact implies ``b``. PyTorch asks its own runtime asserts again as
        questions; the layers, reading one disjunct at a time, leave such a clause open."""
        if not self._disjunctions:
            return False
        wanted = set(b.args)
        for g in self._disjunctions:
            g = self.normal_form.normalize(g)
            if g.kind == OR and wanted.issuperset(g.args):
                return True
        return False

    def kept_disjunctions(self) -> list[Term]:
        """The disjunctions waiting for all but one disjunct to be refuted, in normal form."""
        return [self.normal_form.normalize(g) for g in self._disjunctions]

    def _wait(self, g: Term) -> None:
        """A disjunction waits until all but one disjunct are refuted."""
        self._disjunctions.append(g)
        self.trail.push(self._disjunctions.pop)
