"""One file's ``absint bounds`` report: how small and how large each unbacked size can be.

Every assert of a file is assumed, in order; then each unbacked Int symbol (by
default), each output (``outputs``) or each name asked for gets its numeric bounds
and its symbolic bounds over the backed symbols (the inputs): ``u0 <= min(s0*s1, s0 + 50)``.
The facts are trusted, not checked: a bound holds at every point that satisfies all of
them. :func:`assume_program` (the presets' facts, then every assert) is shared with
:mod:`absint.reports.outputs`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Iterable

import attrs

from absint.lang import terms as T
from absint.lang.kinds import CONST
from absint.lang.printer import to_infix, to_smtlib
from absint.lang.program import Program
from absint.lang.terms import BOOL, INT, Term
from absint.presets import facts as preset_facts
from absint.reasoning.reasoner import Reasoner
from absint.readers.files import load_program


@attrs.frozen(slots=True)
class SymbolBounds:
    """What is known about one reported term; bounds are already rendered."""

    name: str
    lo: object
    hi: object
    upper: tuple[str, ...] | None
    lower: tuple[str, ...] | None
    int32: str | None = None

    def to_json(self) -> dict:
        d = {"name": self.name, "lo": json_number(self.lo), "hi": json_number(self.hi),
             "upper": None if self.upper is None else list(self.upper),
             "lower": None if self.lower is None else list(self.lower)}
        if self.int32 is not None:
            d["int32"] = self.int32
        return d


@attrs.frozen(slots=True)
class FileBounds:
    """One file's report. ``contradiction``: the index (from 0) of the assert after which
    the facts became contradictory, or None. ``usage_error``: the error is the user's
    (a ``--symbol`` name the file does not have), not the file's."""

    file: str
    asserts: int = 0
    symbols: tuple[SymbolBounds, ...] = ()
    contradiction: int | None = None
    contradiction_at: str | None = None
    unbacked: int = 0
    error: str | None = None
    usage_error: bool = False

    def to_json(self) -> dict:
        return {"file": self.file, "asserts": self.asserts, "contradiction": self.contradiction,
                "symbols": [s.to_json() for s in self.symbols], "error": self.error}


# ------------------------------------------------------------------ values


def number(v: object) -> str:
    """A bound as text: ``oo`` / ``-oo`` for infinities, ``p/q`` for a fraction."""
    if v == math.inf:
        return "oo"
    if v == -math.inf:
        return "-oo"
    return str(v)


def json_number(v: object) -> object:
    """A bound as a JSON value: an int stays a number; infinities and fractions become strings."""
    if isinstance(v, int):
        return v
    if isinstance(v, Fraction) and v.denominator == 1:
        return v.numerator
    return number(v)


# ------------------------------------------------------------------ bounds of one term


def symbolic_bound(r: Reasoner, t: Term, params: list[Term], upper: bool) -> list[Term]:
    """Pieces over ``params`` only: ``t <= min(pieces)`` (``>= max`` for a lower bound)."""
    return (r.upper_bound(t, params) if upper else r.lower_bound(t, params)) or []


def beyond_numeric(pieces: Iterable[Term], numeric: object, upper: bool) -> list[Term]:
    """The pieces that say more than the numeric bound: constants no tighter are dropped,
    and so are repeats."""
    out: list[Term] = []
    for p in pieces:
        if p.kind == CONST and (p.data >= numeric if upper else p.data <= numeric):
            continue
        if p not in out:
            out.append(p)
    return out


# ------------------------------------------------------------------ one program, one file


class UnknownNames(Exception):
    """A ``--symbol`` name the program does not have (or that is not a number)."""


def chosen_terms(program: Program, names: list[str] | None, outputs: bool) -> list[tuple[str, Term]]:
    """(name, term) to report: the unbacked Int symbols, or the named symbols and outputs;
    plus the outputs with ``outputs``. Raises :class:`UnknownNames` for a name the
    program has neither as a symbol nor as an output, or that is not numeric."""
    symbols = {s.name: s.term for s in program.symbols}
    outs = dict(program.outputs)
    if names:
        missing = [n for n in names if n not in symbols and n not in outs]
        if missing:
            known = list(symbols) + [n for n, _ in program.outputs]
            shown = ", ".join(known[:12]) + (", ..." if len(known) > 12 else "") if known else "none"
            raise UnknownNames(f"no symbol or output named {', '.join(map(repr, missing))} (known: {shown})")
        chosen = [(n, symbols[n] if n in symbols else outs[n]) for n in dict.fromkeys(names)]
        booleans = [n for n, t in chosen if t.sort is BOOL]
        if booleans:
            raise UnknownNames(f"{', '.join(map(repr, booleans))} is Bool, not a number")
    else:
        chosen = [(s.name, s.term) for s in program.unbacked if s.sort is INT]
    if outputs:
        taken = {n for n, _ in chosen}
        chosen += [(n, t) for n, t in program.outputs if n not in taken and t.sort is not BOOL]
    return chosen


@attrs.frozen(slots=True)
class Assumed:
    """A reasoner that has assumed a program's preset facts and then its asserts, in order;
    ``contradiction``: the index of the assert after which the facts contradict each other
    (assuming stopped there), and where it was written."""

    reasoner: Reasoner
    contradiction: int | None = None
    contradiction_at: str | None = None


def assume_program(program: Program, presets: tuple[str, ...] = (), file: str | None = None) -> Assumed:
    """Every assert assumed, after the presets' facts (checked at the example point first:
    raises :class:`absint.presets.facts.PresetRefused`). Shared by ``bounds`` and ``outputs``."""
    file = program.name if file is None else file
    r = Reasoner(backed=[s.term for s in program.symbols if s.backed])
    preset_facts.assume(r, program, presets)
    for fact in program.facts:
        r.assume(fact.term)
        if r.contradiction:  # every later answer would be vacuous
            where = fact.position
            return Assumed(r, fact.index, None if where is None else f"{file}:{where.line}:{where.column}")
    return Assumed(r)


def bounds_of_program(program: Program, names: list[str] | None = None, outputs: bool = False,
                      int32: bool = False, smtlib: bool = False, file: str | None = None,
                      presets: tuple[str, ...] = ()) -> FileBounds:
    """Assume the presets' facts and every assert, then bound each chosen term (see
    :func:`chosen_terms`); an output's symbolic bounds are shown simplified under the facts
    (:meth:`Reasoner.simplify`, the normal form ``absint outputs`` prints)."""
    file = program.name if file is None else file
    try:
        chosen = chosen_terms(program, names, outputs)
        assumed = assume_program(program, presets, file)
    except (UnknownNames, preset_facts.PresetRefused) as e:
        return FileBounds(file, len(program.facts), error=f"{file}: {e}", usage_error=True)
    if assumed.contradiction is not None:
        return FileBounds(file, len(program.facts), contradiction=assumed.contradiction,
                          contradiction_at=assumed.contradiction_at, unbacked=len(program.unbacked))
    r = assumed.reasoner
    backed = [s.term for s in program.symbols if s.backed]
    render = to_smtlib if smtlib else to_infix
    reported = []
    symbol_names = {s.name for s in program.symbols}
    for name, t in chosen:
        # a backed symbol is bounded by the *other* inputs (by itself, trivially)
        params = [b for b in backed if b is not t] if name in symbol_names else backed
        shown = (lambda p: p) if name in symbol_names else (lambda p: r.simplify(p).term)
        lo, hi = r.bounds(t)
        upper = beyond_numeric(map(shown, symbolic_bound(r, t, params, upper=True)), hi, upper=True)
        lower = beyond_numeric(map(shown, symbolic_bound(r, t, params, upper=False)), lo, upper=False)
        reported.append(SymbolBounds(
            name, lo, hi,
            tuple(render(p) for p in upper) or None,
            tuple(render(p) for p in lower) or None,
            r.fits_int32(t).truth.name if int32 else None,
        ))
    return FileBounds(file, len(program.facts), tuple(reported), unbacked=len(program.unbacked))


def bounds_of_file(path: str, max_size: int = 0, **options) -> FileBounds:
    """One file's report; never raises for a bad file (the error is in the report).

    The file is read and analysed in a fresh term table, as ``absint analyze`` does, so
    its report does not depend on the files before it. Only a regular file of at
    most ``max_size`` bytes (0: any) is read.
    """
    try:
        with T.fresh_table():
            loaded = load_program(path, label=path, max_size=max_size)
            if loaded.program is None:
                return FileBounds(path, error=one_line(str(loaded.error)))
            return bounds_of_program(loaded.program, file=path, **options)
    except Exception as e:  # a bug of ours: the other files are still reported
        return FileBounds(path, error=one_line(f"{path}: internal error: {type(e).__name__}: {e}"))


def one_line(text: str) -> str:
    return " ".join(text.split())
