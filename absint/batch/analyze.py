"""One program: every assert decided against the asserts before it, then assumed.

The record a file produces is a contract (``absint analyze --jsonl``): later
tools and users read it. Its keys: ``file`` (base name), ``asserts``,
``verdicts`` (one letter per assert: ``T`` implied by the earlier asserts,
``F`` refuted by them, ``?`` not decided), ``seconds`` (CPU, parse included),
``error`` (null or the message); plus ``sha256``, ``parse_seconds``, ``layers``
(verdicts per deciding layer), ``contradiction`` (index of the assert after which
the facts became contradictory, or null) and ``example_violations`` (asserts whose
verdict is contradicted by the example point: must be empty); with ``--preset``,
``presets`` (the names whose facts were assumed ahead of the asserts), and when a preset
fact is false at the example point, ``error`` says which and ``preset_refused`` is true.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections import Counter
from typing import Any

import attrs

from absint.lang.evaluator import NotEvaluable, evaluate
from absint.lang.program import Program
from absint.presets import facts as preset_facts
from absint.reasoning.reasoner import Reasoner
from absint.readers.smtlib import SmtLibError, parse_bytes
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


def analyze_program(program: Program, check_example: bool = True, reasoner: Reasoner | None = None,
                    presets: tuple[str, ...] = ()) -> ProgramAnalysis:
    """Decide each assert given the ones before it, then assume it.

    With ``check_example``, every verdict is checked at the example point (all
    asserts hold there): a FALSE, or a TRUE on an assert that is false there,
    is a soundness bug and is listed in ``example_violations``. ``presets``: their
    facts are checked at the example point (:class:`PresetRefused` if one fails) and
    assumed before the first assert.
    """
    r = reasoner if reasoner is not None else Reasoner()
    r.prefer_to_eliminate(s.term for s in program.symbols if s.backed)
    preset_facts.assume(r, program, presets)
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


def file_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def analyze_file(path: str, presets: tuple[str, ...] = ()) -> dict[str, Any]:
    """The JSONL record of one file; never raises for a bad file (the error is in the record).

    The file is analysed in a fresh term table, so its record does not depend on
    which files the same process analysed before (term ids break ties).
    """
    with fresh_table():
        return _analyze_file(path, tuple(presets))


def _analyze_file(path: str, presets: tuple[str, ...]) -> dict[str, Any]:
    name = os.path.basename(path)
    start = time.process_time()
    record: dict[str, Any] = {"file": name, "asserts": 0, "verdicts": "", "seconds": 0.0, "error": None}
    if presets:
        record["presets"] = list(presets)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        record["error"] = f"{path}: cannot read: {e.strerror or e}"
        return record
    record["sha256"] = file_digest(data)
    try:
        program = parse_bytes(data, name)
    except SmtLibError as e:
        record["error"] = str(e)
        record["seconds"] = round(time.process_time() - start, 6)
        return record
    parsed = time.process_time()
    try:
        analysis = analyze_program(program, presets=presets)
    except preset_facts.PresetRefused as e:
        record.update(asserts=len(program.facts), error=str(e), preset_refused=True,
                      seconds=round(time.process_time() - start, 6))
        return record
    record.update(
        asserts=len(program.facts),
        verdicts=analysis.letters,
        seconds=round(time.process_time() - start, 6),
        parse_seconds=round(parsed - start, 6),
        layers=analysis.layer_counts(),
        contradiction=analysis.contradiction,
        example_violations=list(analysis.example_violations),
    )
    return record
