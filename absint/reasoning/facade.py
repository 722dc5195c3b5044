"""What the reasoning layers may ask of each other, as protocols.

Each sub-analysis (normal form, value network, entailment, product bounds,
linearisation, difference bounds, polyhedra) holds the facade,
:class:`absint.reasoning.reasoner.Reasoner`, and asks it, as TVM's sub-analyzers ask their
``Analyzer``; none reads another's fields. These protocols are the whole of what may be
asked: every member of the network a module other than the network, the reasoner and the
fact intake reads is named in :class:`Network`
(``tests/project/test_architecture.py: test_the_network_is_read_through_its_protocol``). A layer imports this module and its own helpers (``rules``, ``links``,
``monomials``), never another layer; only ``facts`` (the intake, which feeds the network
and the normal form) and ``reasoner`` import layers, so the layers form no import circle.
"""

from __future__ import annotations

from typing import Callable, ContextManager, Iterable, Protocol, Sequence

from absint.lang.terms import Term
from domains.lattice import ValueDomain


class Network(Protocol):
    """The value network (layer 1's store): one abstract value per *key*, an atom or a
    primitive linear combination; a term reads as ``k*key + c``."""

    domain: ValueDomain
    #: bumped whenever what the network knows may have grown
    epoch: int
    #: bumped whenever a key is registered or removed, and on rollback: the keys and their
    #: parent links (what caches of the network's shape compare)
    shape: int
    #: every key registered, in order (a rollback cuts it back): a cache of the keys' shape
    #: built from the first ``n`` reads ``registered[n:]`` to catch up (see :meth:`registered_since`)
    registered: Sequence[Term]
    #: bumped whenever keys leave (a detach, a rollback): then such caches rebuild
    removals: int

    @property
    def at_fixpoint(self) -> bool:
        """Whether every narrowing so far was propagated to its end (none cut short, none
        pending, no contradiction): the values are then a fixpoint of the short sums, which
        the difference searches read instead of searching."""

    def registered_since(self, removals: int, logged: int) -> tuple[int, list[Term]] | None:
        """For a cache built from the first ``logged`` keys when :attr:`removals` was
        ``removals``: ``(kept, new)``, the log position below which its keys are all still
        there and the keys logged since; None when any key may have left."""

    def budget_at_most(self, steps: int | None) -> ContextManager[None]:
        """Propagation limited to ``steps`` per fact inside the block (a case split's branches,
        a sampler's draws), the budget restored after it."""

    def split(self, t: Term) -> tuple[object, Term | None, object]:
        """``t = k*key + c``; ``key`` is None for a constant."""

    def register(self, t: Term) -> None:
        """Give every key of ``t`` a value (so that later facts narrow it too)."""

    def value(self, t: Term) -> object:
        """The value of a numeric term whose keys are registered."""

    def registered_value(self, t: Term) -> object | None:
        """The value of ``t`` when its key is registered (a constant's too), else None."""

    def key_value(self, key: Term) -> object | None:
        """The value of a key, or None if it is not registered (nothing is registered)."""

    def parents(self, key: Term) -> Iterable[Term]:
        """The keys whose definitions read ``key``, in registration order."""

    def related(self, atom: Term) -> bool:
        """Whether some fact or definition relates ``atom`` to another atom."""

    def block_of(self, atom: Term) -> object:
        """The block of related atoms ``atom`` is in (blocks merge as facts join them)."""

    def excluded_values(self, key: Term) -> set:
        """The values a disequality excluded for ``key`` (empty when none)."""

    def keys(self) -> Iterable[Term]:
        """The registered keys."""

    def linear_bounds(self, t: Term, stand_in: Callable[[Term], object] | None = None
                      ) -> tuple[object, object] | None:
        """Numeric bounds of the linear term ``t`` from its atoms' current bounds, registering
        nothing (None when an atom is not registered and ``stand_in(atom)``, a sound value
        of it, gives none)."""


class Facade(Protocol):
    network: Network

    def truth(self, b: Term) -> bool | None:
        """Whether a normal Bool term holds under the facts, by layers 0 and 1 (no isl)."""

    def normalize(self, t: Term) -> Term:
        """``t`` in normal form under the equalities learnt so far."""

    def normalized(self, t: Term) -> Term | None:
        """``t``'s normal form if it was already computed (no work, nothing registered), else None."""

    def literal_truth(self, b: Term) -> bool | None:
        """The truth of a Bool variable or its negation, as asserted."""

    def clause_implied(self, b: Term) -> bool:
        """Whether a disjunction the facts keep implies the normal ``or`` ``b`` (its
        disjuncts are all among ``b``'s)."""

    def product_bound(self, p: Term, upper: bool) -> object | None:
        """A bound of the product ``p`` through a dominating, bounded product."""

    def linearized_value(self, t: Term) -> object | None:
        """A value of the Int sum ``t`` that keeps shared atoms correlated (Miné)."""
