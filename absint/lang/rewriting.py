"""Every rewrite of a term is a row of one type, run by one engine (Halide/TVM/egg style).

A :class:`Row` of a :class:`Phase` names the kinds it applies to, a ``match`` that reads
the term into a named record (or None), the side ``conditions`` the record needs proved
(None: it holds at every point) and the ``result`` built from the record. The phases
differ only in what the match reads and who proves a condition:

* ``CONSTRUCT``: the operands of an application the constructors of
  :mod:`absint.lang.terms` are about to intern (it is not a term yet); every condition is
  syntactic, so these rows have none. This module sits below the term table because every
  term is built through these rows.
* ``DECIDE``, ``EXPAND``, ``PRESENT``, ``MULTIPLY_OUT`` (:mod:`absint.reasoning.rules`): ``(t, r)``, a term
  as written and as rebuilt from its normal (or presented) operands; a condition is asked
  of the reasoner's layers by whichever driver runs the phase.
* ``NAME`` and ``SUBSTITUTE`` (:mod:`absint.lang.terms`): ``(t, r)`` as in deciding (a name
  unfolded, a sum folded into its name), and ``(t, values)``, a term and the driver's table of
  stated equalities.
* ``PRESENT_FIXED`` (:mod:`absint.reasoning.rules`, driven by
  :mod:`absint.reasoning.simplify`): ``(t, shown, bounds)``, a term as written, the presented
  form of its sub-terms and the reasoner's bounds; the match reads the value the facts fix
  (a point, a remainder) into its record, and its conditions, which state that value, are
  proved by the reasoner.

:func:`rewrite` is the engine of every phase: a plain loop over the rows of one kind,
allocating nothing when no row matches (construction runs it on every term built).
"""

from __future__ import annotations

import enum
from typing import Callable, Iterator

import attrs

from absint.lang.kinds import Kind


class Phase(enum.Enum):
    """When a row applies. Deciding keeps the keys facts and guards share (a fact on an
    intermediate quotient ``(x div 2) div 3`` meets a later guard only while both keep that
    shape: folding nested divisions while deciding lost 279 corpus proofs); presenting a term
    to people folds them (``absint outputs``, :mod:`absint.reasoning.simplify`)."""

    #: while a term is built, from its operands; syntactic conditions only
    CONSTRUCT = "construct"
    #: the normal form's, of every term of a fact or guard; conditions asked of layers 0-1
    DECIDE = "decide"
    #: what is shown to people (``absint outputs``); every row holds at every point
    PRESENT = "present"
    #: applied to one open guard, or to its monomials multiplied out, while deciding it (never
    #: to facts): ``b*(a div b)`` as ``a - a mod b`` everywhere lost 191 corpus proofs (the
    #: product's congruence as a multiple of ``b``), asked of a guard left open it costs none
    EXPAND = "expand"
    #: what is shown to people where the facts fix a value the term does not name (a numeric
    #: term's point, a dividend's remainder): the match reads it from the reasoner's bounds, a
    #: condition states it and the reasoner proves it. Apart from PRESENT, whose rows hold at
    #: every integer with no condition and fold constant divisions with no reasoner at hand
    #: (``simplify.fold_div``), to a fixpoint; these hold under the facts only, take the
    #: reasoner as an argument, and apply once per node of the term shown
    PRESENT_FIXED = "present-fixed"
    #: a comparison read with its products of sums multiplied out (an open guard before its
    #: monomials meet the EXPAND rows; the interval layer's second reading of a comparison):
    #: every product of the sum at once, or none when one would pass the size limit
    #: (:func:`absint.reasoning.rules.distribute`); no conditions, equal at every point
    MULTIPLY_OUT = "multiply-out"
    #: a named sum (``def``) and the sum it names, either way: a name unfolded into its
    #: definition, a sum written out folded into the name equal to it
    #: (:func:`absint.lang.terms.fold_named`, :func:`~absint.lang.terms.unfold`). No
    #: conditions: a ``def`` equals its body at every point, by construction
    NAME = "name"
    #: a term a stated equality fixes replaced by what it equals: a variable the facts bind
    #: (the normal form's bindings), a symbol a constraint pins (``absint inputs``), an atom at
    #: a value (:func:`absint.lang.terms.replaced`). The match reads the equality from the
    #: driver's table and its condition states it; the driver's own facts are what prove it
    #: (each hands over only equalities they state), so the row holds where they hold
    SUBSTITUTE = "substitute"


#: what a row's result and conditions may use to normalise (or present) the terms they build
Again = Callable[[object], object]
#: the side conditions of a match: groups, yielded lazily in order; a group holds when one of its
#: terms is proved, and every group must hold
Conditions = Iterator[tuple[object, ...]]


@attrs.frozen(slots=True)
class Row:
    """``kind(...)`` equals ``result(match)`` wherever ``conditions(match)`` hold.

    ``match``: the phase's arguments (construct: the operands; present-fixed: the term as
    written, its sub-terms' presented forms and the reasoner's bounds; else the term as
    written and as rebuilt) -> a named record, or None; ``conditions(match, again)`` -> groups of terms,
    or None for a row that holds at every point; ``result(match, again)`` -> the term."""

    name: str
    phase: Phase
    kinds: tuple[Kind, ...]
    match: Callable[..., object | None]
    result: Callable[[object, Again], object]
    conditions: Callable[[object, Again], Conditions] | None = None
    #: when its conditions are not proved, no later row is tried on the term
    final: bool = False
    #: its conditions are read from the keys the facts registered only: asking about a term
    #: registers it, and the multiples ``k*b`` a row looks for would join blocks of atoms
    #: (the polyhedra then see other slices) on every quotient the row tries
    known_keys_only: bool = False


#: the prover of a phase: whether a matched row's conditions hold (and, if it says so, the row fires)
Proved = Callable[[Row, object], bool]


def rewrite(rows: tuple[Row, ...], args: tuple, again: Again | None = None, proved: Proved | None = None) -> object:
    """The engine of every phase: the result of the first of ``rows`` that matches ``args``
    and whose conditions ``proved`` accepts (every row goes through it, so a driver sees each
    row that fires), or None. Without a prover only rows without conditions apply. Adjacent
    rows sharing a match function match once; a ``final`` row left unproved stops the search."""
    last = m = None
    for row in rows:
        if row.match is not last:
            last = row.match
            m = last(*args)
        if m is None:
            continue
        if proved is None:
            if row.conditions is None:
                return row.result(m, again)
        elif proved(row, m):
            return row.result(m, again)
        if row.final:
            return None
    return None


def holds(row: Row, m, again: Again | None, proves: Callable[[object], bool]) -> bool:
    """Whether every condition group of ``row``'s match ``m`` has a term ``proves`` accepts
    (a row without conditions holds): what a phase's prover asks of its own oracle."""
    return row.conditions is None or all(any(proves(c) for c in group) for group in row.conditions(m, again))


def by_kind(rows: tuple[Row, ...], phase: Phase) -> dict[Kind, tuple[Row, ...]]:
    """A phase's rows by the kind they apply to, in table order (each kind present)."""
    out: dict[Kind, tuple[Row, ...]] = {kind: () for kind in Kind}
    for row in rows:
        if row.phase is phase:
            for kind in row.kinds:
                out[kind] += (row,)
    return out


def record(name: str, fields: str, doc: str) -> type:
    """A match record: a frozen slotted attrs class with the named ``fields`` (a row's match
    names what it found instead of placing it in a tuple)."""
    cls = attrs.make_class(name, {f: attrs.field() for f in fields.split()}, frozen=True, slots=True)
    cls.__doc__ = doc
    return cls


def matched(m, again: Again | None = None) -> object:
    """The result of a row whose match is already the equal term (a branch, an operand)."""
    return m
