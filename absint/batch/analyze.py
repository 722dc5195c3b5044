"""One program: every assert decided against the asserts before it, then assumed.

A file's outcome is a :class:`absint.batch.record.FileRecord` (the
``absint analyze --jsonl`` contract is documented there). With ``--preset``, the
presets' facts are assumed ahead of the asserts; one false at the example point
refuses the file (``preset_refused``, the fact in ``error``).
"""

from __future__ import annotations

import time

from absint.analysis import AssertReasoner, ProgramAnalysis, analyze_program
from absint.lang.program import Program
from absint.presets import facts as preset_facts
from absint.batch.record import FileRecord
from absint.readers.files import LoadedFile, load_bytes, load_program
from absint.lang.terms import fresh_table


def analyze_with_presets(program: Program, presets: tuple[str, ...] = (), check_example: bool = True,
                         reasoner: AssertReasoner | None = None) -> ProgramAnalysis:
    """:func:`absint.analysis.analyze_program` with the presets' facts assumed first, each
    checked at the example point (:class:`~absint.presets.facts.PresetRefused` if one fails)."""
    assumed = [f.term for f in preset_facts.checked_facts(program, presets)]
    return analyze_program(program, check_example, reasoner, assumed)


def analyze_file(path: str, max_size: int = 0, presets: tuple[str, ...] = ()) -> FileRecord:
    """The record of one file; never raises for a bad file (the error is in the record).

    The file is analysed in a fresh term table, so its record does not depend on
    which files the same process analysed before (term ids break ties). ``presets``:
    the ``--preset`` names whose facts are assumed ahead of the asserts.
    """
    with fresh_table():
        start = time.process_time()
        return record_of(load_program(path, max_size=max_size), start, presets)


def analyze_bytes(path: str, data: bytes, presets: tuple[str, ...] = ()) -> FileRecord:
    """:func:`analyze_file` of bytes already read from ``path`` (by a batch worker)."""
    with fresh_table():
        start = time.process_time()
        return record_of(load_bytes(path, data, start=start), start, presets)


def record_of(loaded: LoadedFile, start: float, presets: tuple[str, ...] = ()) -> FileRecord:
    """The record of a loaded file; ``start``: the CPU clock when reading began. The presets'
    facts are built and checked here, from the loaded program (a refused one is the record)."""
    name = loaded.path  # as given: two model.smt2 in different folders stay two records
    presets = tuple(presets)
    if loaded.program is None:
        return FileRecord.failed(name, str(loaded.error), 0.0 if loaded.digest is None else
                                 time.process_time() - start, loaded.digest).with_presets(presets)
    parsed = time.process_time()
    try:
        analysis = analyze_with_presets(loaded.program, presets)
    except preset_facts.PresetRefused as e:
        return FileRecord.refused(name, len(loaded.program.facts), str(e), presets,
                                  time.process_time() - start, loaded.digest)
    return FileRecord(
        name, len(loaded.program.facts), analysis.letters, round(time.process_time() - start, 6), None,
        loaded.digest, round(parsed - start, 6), analysis.layer_counts(), analysis.contradiction,
        analysis.example_violations, analysis.warning, presets=presets,
        assert_errors=analysis.assert_errors,
    )
