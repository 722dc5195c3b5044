"""One program: every assert decided against the asserts before it, then assumed.

A file's outcome is a :class:`absint.batch.record.FileRecord` (the
``absint analyze --jsonl`` contract is documented there).
"""

from __future__ import annotations

import os
import time
from collections import Counter

import attrs

from absint.lang.evaluator import NotEvaluable, evaluate
from absint.lang.program import Program
from absint.reasoning.reasoner import Reasoner
from absint.batch.record import FileRecord
from absint.readers.files import LoadedFile, load_bytes, load_program
from absint.lang.terms import fresh_table
from absint.reasoning.verdict import Truth, Verdict


@attrs.frozen(slots=True)
class ProgramAnalysis:
    verdicts: tuple[Verdict, ...]
    contradiction: int | None
    example_violations: tuple[int, ...]

    @property
    def letters(self) -> str:
        return "".join(v.letter for v in self.verdicts)

    def layer_counts(self) -> dict[str, int]:
        return dict(Counter(v.by.value for v in self.verdicts if v.truth is not Truth.UNKNOWN))


def analyze_program(program: Program, check_example: bool = True, reasoner: Reasoner | None = None) -> ProgramAnalysis:
    """Decide each assert given the ones before it, then assume it.

    With ``check_example``, every verdict is checked at the example point (all
    asserts hold there): a FALSE, or a TRUE on an assert that is false there,
    is a soundness bug and is listed in ``example_violations``.
    """
    r = reasoner if reasoner is not None else Reasoner()
    r.prefer_to_eliminate(s.term for s in program.symbols if s.backed)
    point = program.hints() if check_example else None
    memo: dict = {}
    verdicts = []
    violations = []
    contradiction = None
    for fact in program.facts:
        v = r.decide(fact.term)
        verdicts.append(v)
        if point is not None and v.truth is not Truth.UNKNOWN:
            if v.truth is Truth.FALSE or not _holds(fact.term, point, memo):
                violations.append(fact.index)
        r.assume(fact.term)
        if contradiction is None and r.contradiction:
            contradiction = fact.index
    return ProgramAnalysis(tuple(verdicts), contradiction, tuple(violations))


def _holds(term, point, memo) -> bool:
    try:
        return evaluate(term, point, memo) is True
    except NotEvaluable:
        return True  # unbacked symbols: nothing to check at this point


def analyze_file(path: str, max_size: int = 0) -> FileRecord:
    """The record of one file; never raises for a bad file (the error is in the record).

    The file is analysed in a fresh term table, so its record does not depend on
    which files the same process analysed before (term ids break ties).
    """
    with fresh_table():
        start = time.process_time()
        return record_of(load_program(path, max_size=max_size), start)


def analyze_bytes(path: str, data: bytes) -> FileRecord:
    """:func:`analyze_file` of bytes already read from ``path`` (by a batch worker)."""
    with fresh_table():
        start = time.process_time()
        return record_of(load_bytes(path, data, start=start), start)


def record_of(loaded: LoadedFile, start: float) -> FileRecord:
    """The record of a loaded file; ``start``: the CPU clock when reading began."""
    name = os.path.basename(loaded.path)
    if loaded.program is None:
        return FileRecord.failed(name, str(loaded.error), 0.0 if loaded.digest is None else
                                 time.process_time() - start, loaded.digest)
    parsed = time.process_time()
    analysis = analyze_program(loaded.program)
    return FileRecord(
        name, len(loaded.program.facts), analysis.letters, round(time.process_time() - start, 6), None,
        loaded.digest, round(parsed - start, 6), analysis.layer_counts(), analysis.contradiction,
        analysis.example_violations,
    )
