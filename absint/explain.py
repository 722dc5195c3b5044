"""One assert at a time: its line, its text, its verdict, the layer that gave it, and why.

``absint analyze FILE --asserts`` lists every assert (:func:`assert_rows`);
``absint explain FILE:LINE`` explains one (:func:`explain`):

* a TRUE or FALSE verdict comes with the earlier asserts it needs: a smallest set found
  by deleting asserts while a fresh reasoner, told only the rest (and the program's
  named sums), still gives the same verdict (chunks first, then one by one; within
  :data:`EXPLAIN_SECONDS`, else the set found so far, said not minimal). Adding facts
  never loses a verdict, so any such set decides the assert as the whole prefix does;
* FALSE and UNKNOWN come with a point where the earlier asserts hold and this one fails,
  found by :mod:`absint.search.engine` (from the example point outwards, under the earlier
  asserts and the negation) and checked by the evaluator; UNKNOWN also with a point where
  it holds, when one is found;
* ``--missing``: an UNKNOWN assert comes with the weakest extra facts over the file's
  symbols that would prove it (:func:`missing_facts`, :mod:`absint.missing`), each true at
  the example point and checked to decide the assert.
"""

from __future__ import annotations

import time
from typing import Sequence

import attrs

from absint.batch.analyze import analyze_with_presets
from absint.lang import terms as T
from absint.lang.evaluator import truth_at
from absint.lang.dag import subterms
from absint.lang.kinds import EQ, LE, LIN, LT, NE, VAR
from absint.lang.printer import brief_infix
from absint.lang.program import Fact, Program
from absint.missing import Candidate, missing
from absint.readers.files import load_program
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Truth
from absint.search import engine
from absint.search.sampling import LARGEST

#: CPU seconds for the search of a smallest set of premises
EXPLAIN_SECONDS = 10.0
#: points the search engine checks for a point where the assert fails (or holds), and seconds
POINT_TRIES = 400
POINT_SECONDS = 1.0
#: CPU seconds for the search of missing facts (``--missing``)
MISSING_SECONDS = 10.0
#: families (sums over several symbols, from the earlier asserts) the missing facts may use
MAX_FAMILIES = 4


@attrs.frozen(slots=True)
class AssertRow:
    """One assert as ``--asserts`` lists it."""

    index: int
    position: str
    text: str
    verdict: str  # T, F or ?
    layer: str  # the layer that decided it ("none" for ?)

    def to_json(self, file: str) -> dict:
        return {"file": file, "index": self.index, "position": self.position, "text": self.text,
                "verdict": self.verdict, "layer": self.layer}

    def line(self) -> str:
        return f"{self.position}: {self.verdict} {self.layer:<19} {self.text}"


@attrs.frozen(slots=True)
class Explanation:
    """``premises``: the earlier asserts that decide it (TRUE/FALSE), ``minimal`` whether no
    one of them can go; ``failing``/``passing``: checked points (None if none was found)."""

    row: AssertRow
    premises: tuple[AssertRow, ...] = ()
    minimal: bool = True
    failing: dict[str, object] | None = None
    passing: dict[str, object] | None = None
    missing: tuple[Candidate, ...] | None = None  # None: not asked (--missing) or not open

    def to_json(self, file: str) -> dict:
        out = {**self.row.to_json(file), "premises": [p.to_json(file) for p in self.premises],
               "minimal": self.minimal, "failing_point": self.failing, "passing_point": self.passing}
        if self.missing is not None:
            out["missing"] = [{"facts": [text_of_term(f) for f in c.facts], "kind": c.kind} for c in self.missing]
        return out


def text_of(fact: Fact) -> str:
    return brief_infix(fact.term, 200)


def text_of_term(t) -> str:
    return brief_infix(t, 200)


def assert_rows(program: Program, presets: tuple[str, ...] = ()) -> list[AssertRow]:
    """Every assert with its verdict against the ones before it and the deciding layer."""
    analysis = analyze_with_presets(program, presets)
    return [AssertRow(f.index, str(f.position), text_of(f), v.letter, v.by.value)
            for f, v in zip(program.facts, analysis.verdicts)]


class NotRead(Exception):
    """A file that cannot be read or parsed, or a line without an assert: the message, one line."""


def rows_of_file(path: str, presets: tuple[str, ...] = ()) -> list[AssertRow]:
    """:func:`assert_rows` of the file at ``path``, read in a fresh term table; raises
    :class:`NotRead` when it cannot be read or parsed."""
    with T.fresh_table():
        return assert_rows(_program_of(path), presets)


def explain_line(path: str, line: int, seed: int = 0, want_missing: bool = False) -> Explanation:
    """:func:`explain` of the assert written on ``line`` of the file at ``path``, read in a
    fresh term table; raises :class:`NotRead` when the file cannot be read or parsed or has
    no assert on that line."""
    with T.fresh_table():
        program = _program_of(path)
        fact = fact_at_line(program, line)
        if fact is None:
            raise NotRead(f"{path}:{line}: no assert on this line")
        return explain(program, fact, assert_rows(program)[fact.index], seed, want_missing=want_missing)


def _program_of(path: str) -> Program:
    loaded = load_program(path, label=path)
    if not loaded.ok:
        raise NotRead(" ".join(str(loaded.error).split()))
    return loaded.program


def fact_at_line(program: Program, line: int) -> Fact | None:
    """The assert written on ``line`` (the first, if several)."""
    return next((f for f in program.facts if f.position is not None and f.position.line == line), None)


def explain(program: Program, fact: Fact, row: AssertRow, seed: int = 0, want_missing: bool = False) -> Explanation:
    """Why ``fact`` has the verdict of ``row`` (see the module docstring); ``want_missing``:
    for an open assert, also the facts that would prove it (:func:`missing_facts`)."""
    earlier = list(program.facts[:fact.index])
    premises, minimal = (), True
    if row.verdict in ("T", "F"):
        wanted = Truth.TRUE if row.verdict == "T" else Truth.FALSE
        kept, minimal = smallest_premises(program, fact, earlier, wanted)
        premises = tuple(AssertRow(f.index, str(f.position), text_of(f), "", "") for f in kept)
    failing = passing = None
    if row.verdict in ("F", "?"):
        failing = point_where(program, earlier, T.not_(fact.term), fact, False, seed)
    if row.verdict == "?":
        passing = point_where(program, earlier, fact.term, fact, True, seed)
    found = tuple(missing_facts(program, fact)) if want_missing and row.verdict == "?" else None
    return Explanation(row, premises, minimal, failing, passing, found)


def missing_facts(program: Program, fact: Fact, seconds: float = MISSING_SECONDS) -> list[Candidate]:
    """The weakest extra facts over the file's symbols that, with the asserts before
    ``fact``, prove it: each true at the file's example point and checked by a reasoner
    told those asserts (and the program's named sums) and the candidate. Families: the
    symbols of the earlier asserts' sums that share a symbol with ``fact``."""
    earlier = program.facts[:fact.index]
    r = Reasoner()
    r.register(program.definitions()[0])
    for f in earlier:
        r.assume(f.term)
    if r.contradiction:
        return []
    return missing(r, fact.term, program.hints(), families=_families(earlier, fact.term), seconds=seconds)


def _families(earlier: Sequence[Fact], goal) -> list[list]:
    """Sets of two or more variables that an earlier comparison sums with unit coefficients
    (``u0 + u1 + u2 == s0`` gives ``{u0, u1, u2}``), sharing a variable with ``goal``."""
    wanted = {t.id for t in subterms(goal) if t.kind == VAR}
    out: list[list] = []
    for f in reversed(earlier):
        for t in subterms(f.term):
            if t.kind not in (LE, LT, EQ, NE) or t.args[0].kind != LIN:
                continue
            lin = t.args[0]
            for sign in (1, -1):
                members = [a for a, c in zip(lin.args, lin.data[0]) if a.kind == VAR and c == sign]
                if len(members) >= 2 and wanted & {m.id for m in members} and members not in out:
                    out.append(members)
            if len(out) >= MAX_FAMILIES:
                return out[:MAX_FAMILIES]
    return out


def _verdict_with(definitions, facts: Sequence[Fact], target: Fact) -> Truth:
    r = Reasoner()
    r.register(definitions)
    for f in facts:
        r.assume(f.term)
    return r.decide(target.term).truth


def smallest_premises(program: Program, target: Fact, earlier: list[Fact],
                      wanted: Truth) -> tuple[list[Fact], bool]:
    """Earlier asserts that still give ``wanted``, found by deleting chunks then single ones
    (``minimal`` False when :data:`EXPLAIN_SECONDS` ran out first)."""
    deadline = time.process_time() + EXPLAIN_SECONDS
    definitions = program.definitions()[0]
    kept = list(earlier)
    chunk = max(1, len(kept) // 2)
    while True:
        i = 0
        while i < len(kept):
            if time.process_time() > deadline:
                return kept, False
            trial = kept[:i] + kept[i + chunk:]
            if _verdict_with(definitions, trial, target) is wanted:
                kept = trial
            else:
                i += chunk
        if chunk == 1:
            return kept, True
        chunk = max(1, chunk // 2)


def point_where(program: Program, earlier: list[Fact], goal, fact: Fact, holds: bool,
                seed: int) -> dict[str, object] | None:
    """A point where the earlier asserts hold and ``fact`` is ``holds``, checked by the
    evaluator; None if the draws found none (or a symbol cannot be drawn)."""
    r = Reasoner()
    for f in earlier:
        r.assume(f.term)
    r.assume(goal)
    if r.contradiction:
        return None
    query = engine.Query(lambda p: _checked(p, earlier, fact, holds), tuple(s.term for s in program.symbols),
                         program.hints(), engine.names_in(fact.term), largest=LARGEST, seed=seed)
    p = engine.find_point(r, query, POINT_TRIES, POINT_SECONDS).point
    return None if p is None else {s.name: p[s.name] for s in program.symbols if s.name in p}


def _checked(point: dict, earlier: list[Fact], fact: Fact, holds: bool) -> bool:
    memo: dict = {}
    return all(truth_at(f.term, point, memo) is True for f in earlier) and truth_at(fact.term, point, memo) is holds
