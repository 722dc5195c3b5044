"""The small protocols every abstract domain implements.

A *value domain* abstracts the set of values one numeric term can take. Its user
(absint's value network) drives it through one dispatch table keyed by term kind (the
kinds of absint's operator table, ``absint.lang.ops``): ``forward`` computes a term's value from its operands',
``backward`` narrows the operands given what the term is known to be (HC4-revise).
Defaults are sound: a domain may start forward-only (``backward`` returning the
operands unchanged) and still be correct.

Elements are immutable values; the domain object holds the operations, so one
element type can serve several domains and its user never mutates a value.
"""

from __future__ import annotations

from typing import Protocol, Sequence, TypeVar


V = TypeVar("V")


class Sort(Protocol):
    """What a domain needs to know of a term's sort: whether it is Real (else Int).

    Domains take the term language's sorts as they are, by this one attribute, so that
    ``domains`` depends on no other package."""

    real: bool


class Operation(Protocol):
    """A term as the transfer functions read it: its ``kind`` (the operator table's name,
    ``lin``, ``mul``, ``div``, ...), its ``sort``, its operands ``args`` (only their identity
    is read: a repeated factor of ``x*x`` is the same object twice) and its ``data`` (a
    constant's value, a linear form's ``(coefficients, constant)``)."""

    kind: str
    sort: Sort
    args: tuple
    data: object


class Lattice(Protocol[V]):
    """top, bottom, order, join, meet; ``is_bottom`` means "no concrete value"."""

    def top(self, sort: Sort) -> V: ...

    def bottom(self, sort: Sort) -> V: ...

    def is_bottom(self, v: V) -> bool: ...

    def leq(self, a: V, b: V) -> bool: ...

    def join(self, a: V, b: V) -> V: ...

    def meet(self, a: V, b: V) -> V: ...


class ValueDomain(Lattice[V], Protocol[V]):
    """A non-relational domain: one value per numeric term.

    Kinds covered: ``const var lin mul div mod rdiv pow to_int ceil to_real min max fn``
    (``ite`` is its user's: it needs the truth of the condition).
    Division by an interval that may hold zero is handled soundly: SMT-LIB's
    ``x div 0`` is an arbitrary (but fixed) integer, so it contributes top.
    """

    def constant(self, value: int | object, sort: Sort) -> V:
        """The abstraction of one number."""
        ...

    def forward(self, term: Operation, args: Sequence[V]) -> V:
        """A sound value for ``term`` when its ``args`` (in ``term.args`` order) have these values.

        For ``lin`` the args are the atoms' values; coefficients are in ``term.data``.
        A bottom operand gives bottom. Where the operands allow a point without an SMT-LIB value
        (``x div 0``, ``x / 0``, ``(-1)^(1/2)``, ``0^(-1)``) the term may take any value, so the
        result is top.
        """
        ...

    def backward(self, term: Operation, result: V, args: Sequence[V]) -> Sequence[V]:
        """Operand values narrowed so that every concrete tuple of operands whose
        result lies in ``result`` is still included (each returned value ⊑ the given one).

        One value per operand, in ``term.args`` order (a repeated atom, as in ``x*x``, appears
        once per position: the caller meets them). When no tuple is consistent every
        returned value is bottom."""
        ...

    def truth(self, kind: str, v: V) -> bool | None:
        """Whether ``t <kind> 0`` (kind in le, lt, eq, ne) holds for every value of ``v``
        (True), for none (False), or is undecided (None). A bottom ``v`` is vacuously True."""
        ...

    def restrict(self, kind: str, v: V) -> V:
        """``v`` narrowed to the values where ``t <kind> 0`` holds (bottom if none)."""
        ...

    def bounds(self, v: V) -> tuple[object, object]:
        """Numeric (lo, hi) with ``-inf``/``inf`` for unbounded sides; ``(inf, -inf)`` for bottom."""
        ...

    def congruence(self, v: V) -> tuple[int, object]:
        """``(m, r)``: every value of ``v`` is ``r`` modulo ``m``. ``m = 1`` when the domain knows
        no congruence of it (and for a Real value), ``0`` when ``v`` is the constant ``r``, ``-1``
        for bottom. What the polyhedra and the searches read of a value beyond its bounds."""
        ...


class RelationalDomain(Protocol):
    """A domain over several variables at once (e.g. polyhedra on one slice); its constraints
    are its own values (see :class:`domains.polyhedra.LinearConstraint`)."""

    def add(self, constraint: object) -> None: ...

    def entails(self, constraint: object) -> bool | None: ...
