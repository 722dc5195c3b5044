"""What a preset buys on one program, and what it costs: ``absint presets``.

For each preset (or comma-joined combination) the program is analysed with the preset's
facts assumed ahead of its asserts; the asserts absint still leaves open are counted.
Then each preset fact is decided against the program's own asserts: a fact they imply
costs nothing; a fact they do not imply excludes inputs the program accepts, and one such
input is searched for by the search engine, from the example point outwards (every assert
and the fact checked with the evaluator). When the search finds none, the report
says so; that is not a proof that the fact is implied.
"""

from __future__ import annotations

from typing import Iterable, Iterator, Sequence

import attrs

from absint.analysis import analyze_program
from absint.lang import terms as T
from absint.lang.evaluator import truth_at
from absint.lang.printer import to_smtlib
from absint.lang.program import Program
from absint.presets.facts import PresetFact, checked_facts, preset_facts, refused_fact
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Truth
from absint.search import engine

#: the combinations ``absint presets`` reports by default (the empty one: no preset)
DEFAULT_COMBINATIONS: tuple[tuple[str, ...], ...] = (
    (), ("nonneg",), ("ge1",), ("ge2",), ("contiguous",), ("duck",), ("ge2", "contiguous"),
    ("ge2", "contiguous", "duck"),
)

#: candidate points tried per fact when searching for an excluded input, and seconds
MAX_CANDIDATES = 400
SEARCH_SECONDS = 1.0


@attrs.frozen(slots=True)
class FactReport:
    """One preset fact: whether the program's asserts imply it, and if not, an input the
    program accepts and the fact excludes (only the symbols changed from the example point),
    or None when the search found none."""

    fact: PresetFact
    implied: bool
    witness: dict[str, int] | None = None
    #: the search engine's strategy that found the witness, and the points it checked
    found_by: str | None = None
    points: int = 0

    def to_json(self) -> dict:
        return {"preset": self.fact.preset, "fact": to_smtlib(self.fact.term), "text": self.fact.text,
                "implied": self.implied, "witness": self.witness, "found_by": self.found_by,
                "points": self.points}


@attrs.frozen(slots=True)
class PresetRow:
    """One combination on one program: its open asserts (indices), or why it was refused."""

    presets: tuple[str, ...]
    open: tuple[int, ...] = ()
    facts: tuple[FactReport, ...] = ()
    refused: str | None = None
    #: each assert's verdict (T, F, ?) with the facts assumed: what an exact solver is held to
    letters: str = ""

    @property
    def label(self) -> str:
        return ",".join(self.presets) or "none"

    def to_json(self) -> dict:
        return {"presets": self.label, "refused": self.refused, "open": len(self.open),
                "open_asserts": list(self.open), "facts": [f.to_json() for f in self.facts]}


def open_asserts(program: Program, presets: tuple[str, ...] = ()) -> tuple[int, ...]:
    """The indices of the asserts left UNKNOWN with the presets' facts assumed first."""
    return tuple(i for i, c in enumerate(verdict_letters(program, presets)) if c == Truth.UNKNOWN.value)


def verdict_letters(program: Program, presets: tuple[str, ...] = ()) -> str:
    """Each assert's verdict letter (``T``, ``F``, ``?``) with the presets' facts assumed first."""
    assumed = [f.term for f in checked_facts(program, presets)]
    analysis = analyze_program(program, check_example=False, assumed=assumed)
    return "".join(v.truth.value for v in analysis.verdicts)


def explore(program: Program, combinations: Sequence[tuple[str, ...]] = DEFAULT_COMBINATIONS,
            search: bool = True) -> list[PresetRow]:
    """One row per combination; facts decided against the program's asserts once each."""
    judged: dict[T.Term, FactReport] = {}
    reasoner = None
    rows = []
    for names in combinations:
        facts = preset_facts(program, names)
        refused = refused_fact(program, facts)
        if refused is not None:
            rows.append(PresetRow(names, refused=str(refused)))
            continue
        if reasoner is None and facts:
            reasoner = _after_asserts(program)
        reports = []
        for f in facts:
            if f.term not in judged:
                judged[f.term] = judge(program, reasoner, f, search)
            reports.append(attrs.evolve(judged[f.term], fact=f))
        letters = verdict_letters(program, names)
        rows.append(PresetRow(names, tuple(i for i, c in enumerate(letters) if c == Truth.UNKNOWN.value),
                              tuple(reports), letters=letters))
    return rows


def _after_asserts(program: Program) -> Reasoner:
    r = Reasoner(backed=[s.term for s in program.symbols if s.backed])
    for fact in program.facts:
        r.assume(fact.term)
    return r


def judge(program: Program, reasoner: Reasoner, fact: PresetFact, search: bool = True) -> FactReport:
    """Implied by the asserts (TRUE), or not: then an excluded input, if the search finds one."""
    if reasoner.decide(fact.term).truth is Truth.TRUE:
        return FactReport(fact, True)
    if not search:
        return FactReport(fact, False)
    found = excluded_input(program, reasoner, fact.term)
    return FactReport(fact, False, found.point, found.strategy, found.tried)


# ---------------------------------------------------------------- the concrete search


def excluded_input(program: Program, reasoner: Reasoner, fact: T.Term, limit: int = MAX_CANDIDATES,
                   seconds: float = SEARCH_SECONDS) -> engine.Found:
    """A point where every assert holds and ``fact`` is false (both by the evaluator), found
    by the search engine from the example point outwards (the fact's symbols moved first,
    with the sizes of their own tensor that shared their example value), given as the
    symbols changed from the example point; ``point`` None if it found none. ``reasoner``
    holds the asserts."""
    hints = program.hints()
    query = engine.Query(lambda p: truth_at(fact, p) is False and accepts(program, p),
                         tuple(s.term for s in program.symbols), hints,
                         engine.names_in(fact), _tensor)
    with reasoner.tentatively():
        reasoner.assume(T.not_(fact))
        found = engine.find_point(reasoner, query, limit, seconds)
    if found.point is None:
        return found
    return attrs.evolve(found, point={n: v for n, v in found.point.items() if hints.get(n) != v})


def accepts(program: Program, point: dict) -> bool:
    """Whether every assert of the program holds at ``point`` (the evaluator's verdict)."""
    memo: dict = {}
    return all(truth_at(f.term, point, memo) is True for f in program.facts)


def _tensor(name: str) -> str:
    """The tensor a symbol belongs to by the corpus naming (the name itself otherwise)."""
    for marker in ("_size", "_stride", "_storage_offset"):
        i = name.rfind(marker)
        if i > 0:
            return name[:i]
    return name


def combinations_from(texts: Iterable[str] | None) -> list[tuple[str, ...]]:
    """``--preset`` values (each a comma-joined combination; ``none`` for no preset) as
    combinations, or the defaults."""
    from absint.presets.facts import parse

    if not texts:
        return list(DEFAULT_COMBINATIONS)
    return [() if t.strip() == "none" else parse(t) for t in texts]
