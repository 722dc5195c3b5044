"""``absint bounds``: how small and how large each unbacked size of a program can be.

Every assert of a file is assumed, in order; then each unbacked Int symbol (by
default), each output (``--outputs``) or each name given with ``--symbol`` gets
its numeric bounds and its symbolic bounds over the backed symbols (the inputs):
``u0 <= min(s0*s1, s0 + 50)``. The facts are trusted, not checked: a bound holds
at every point that satisfies all of them.
"""

from __future__ import annotations

import argparse
import math
from fractions import Fraction
from typing import Iterable

import attrs

from absint.lang import terms as T
from absint.lang.kinds import CONST
from absint.lang.printer import to_infix, to_smtlib
from absint.lang.program import Program
from absint.presets import facts as preset_facts
from absint.presets import option as preset_option
from absint.reasoning.reasoner import Reasoner
from absint.readers.files import load_program
from absint.lang.terms import BOOL, INT, Term
from absint.batch.budgets import add_budget_arguments, max_size
from absint.cli.runner import JSON_HELP, Outcome, add_paths, each_file, files_with_errors, reported

NONE = "-"  # an empty cell of the table

EPILOG = """\
what is reported:
  lo, hi  numeric bounds (-oo / oo: unbounded on that side)
  upper   symbolic upper bounds over the backed symbols: the term is at most
          each of them (shown as min(a, b) when there are several); a constant
          no better than hi is left out, so '-' means nothing beyond hi
  lower   the same from below (max(a, b)), nothing beyond lo when '-'
          (bounds are written in Python's operators, s0*s1 - 1, (s0 + 1) // 2;
          div(x, y) and mod(x, y) are SMT-LIB's Euclidean ones; or --smtlib)
  int32   with --int32: TRUE if the term provably lies in [-2**31, 2**31 - 1],
          FALSE if it provably lies outside, UNKNOWN otherwise
By default the unbacked Int symbols are reported (those without an example
value); --outputs adds the program's outputs (output<k>_size<d>, ...), and
--symbol NAME reports the named symbols or outputs instead. If the facts
contradict each other, the file says so and no (vacuous) bound is reported.
output:
  a table per file on stdout, errors on stderr as 'FILE:LINE:COLUMN: message'
  (or 'FILE: message'); with --json, one JSON object per line and file:
  {"file", "asserts", "contradiction", "symbols": [{"name", "lo", "hi", "upper",
  "lower", "int32"?}], "error"} (the error as on stderr), with
  "oo" / "-oo" for infinities, fractions as "p/q" strings, and null for upper /
  lower when there is nothing beyond the numeric bound; "contradiction" is null
  or the index (from 0, as in analyze's records) of the contradicting assert.
limits: each file is analysed in its own process: past --timeout it is killed
  and 'FILE: timeout after S s' is printed on stderr (past --max-memory,
  'FILE: memory limit exceeded (N MB)'), as the file's error; the other files
  are still reported.
exit status: 0 if every file was reported; 1 if a file could not be read,
  parsed or analysed, or was over a limit (the other files are still
  reported); 2 on a usage error, such as a --symbol name a file does not have
  or a --preset fact false at a file's example point (the preset is refused).
"""


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


# ------------------------------------------------------------------ the table


def table(report: FileBounds) -> list[str]:
    """The readable report of one file (without its error, which goes to stderr)."""
    n = len(report.symbols)
    head = f"{report.file}: {report.asserts} asserts"
    if report.contradiction is not None:
        where = f" at {report.contradiction_at}" if report.contradiction_at else ""
        return [f"{head}; CONTRADICTORY facts: assert {report.contradiction + 1}{where} contradicts the "
                "asserts before it, so every bound would be vacuous; none reported"]
    if not n:
        what = "no unbacked symbols" if not report.unbacked else "no unbacked Int symbols"
        return [f"{head}, {what} (report others with --outputs or --symbol NAME)"]
    rows = [["symbol", "lo", "hi"] + (["int32"] if report.symbols[0].int32 is not None else [])
            + ["upper", "lower"]]
    for s in report.symbols:
        rows.append([s.name, number(s.lo), number(s.hi)] + ([s.int32] if s.int32 is not None else [])
                    + [_pieces(s.upper, "min"), _pieces(s.lower, "max")])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [f"{head}, {n} term(s) bounded"]
    for row in rows:
        cells = [c.rjust(w) if i in (1, 2) else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
        lines.append(("  " + "  ".join(cells)).rstrip())
    return lines


def _pieces(pieces: tuple[str, ...] | None, combine: str) -> str:
    if not pieces:
        return NONE
    return pieces[0] if len(pieces) == 1 else f"{combine}({', '.join(pieces)})"


# ------------------------------------------------------------------ the command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_paths(parser, EPILOG, json_help=JSON_HELP)
    parser.add_argument("--symbol", "-s", action="append", metavar="NAME", dest="symbols",
                        help="report this symbol or output instead of the unbacked symbols (repeatable); "
                             "a file without it is a usage error")
    parser.add_argument("--outputs", action="store_true",
                        help="also report the program's outputs (output<k>_size<d>, _stride<d>, _storage_offset)")
    parser.add_argument("--int32", action="store_true",
                        help="also say whether each term provably fits in int32 (TRUE / UNKNOWN / FALSE)")
    parser.add_argument("--smtlib", action="store_true",
                        help="write symbolic bounds in SMT-LIB syntax, (* s0 s1), instead of the readable s0*s1")
    add_budget_arguments(parser)
    preset_option.add_argument(parser)


def run(args) -> int:
    def job(path: str, presets: tuple[str, ...]) -> Outcome:
        report = bounds_of_file(path, max_size(args), names=args.symbols, outputs=args.outputs, int32=args.int32,
                                smtlib=args.smtlib, presets=presets)
        return reported(report.to_json(), lambda: table(report), report.error, report.usage_error)

    return each_file(args, "bounds", job, summary=files_with_errors)
