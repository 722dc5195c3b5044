"""One comparison run: each file read once, then through absint and every chosen oracle in
turn, in one process, into a :class:`~absint.compare.row.FileRow`.

Every oracle answers the same question per assert: is it implied (``T``) or refuted (``F``)
by the asserts before it? CPU time is ``time.process_time`` around each oracle's own work.
"""

from __future__ import annotations

import gc
import os
from typing import Mapping, Sequence

import attrs

from absint.compare.oracle import Case, Oracle, OracleOutcome
from absint.compare.outputs import CsvSink
from absint.compare.row import FileRow, family
from absint.compare.terminal import progress
from absint.lang.program import Program
from absint.readers.files import LoadedFile, content_digest, load_program
from absint.readers.smtlib import parse_bytes

WARM_UP = b"""(define-fun ceil ((x Real)) Int (ite (= (to_int x) x) (to_int x) (+ (to_int x) 1)))
(declare-const s0 Int)
(set-info :example-s0 8)
(declare-const u0 Int)
(define-fun ge () Bool (>= s0 0))
(assert ge)
(assert (= (mod s0 2) 0))
(assert (>= (div s0 2) 0))
(assert (<= (ceil (/ s0 2)) s0))
(assert (>= u0 0))
(assert (>= (+ u0 s0) 0))
"""


@attrs.frozen(slots=True)
class Session:
    """The oracles (absint first) and the files each one runs on."""

    oracles: tuple[Oracle, ...]
    plan: Mapping[str, frozenset[str]]

    @classmethod
    def over(cls, oracles: Sequence[Oracle], files: list[str]) -> "Session":
        return cls(tuple(oracles), {o.name: frozenset(o.select(files)) for o in oracles})

    def warm_up(self) -> None:
        """Each oracle once on a tiny program, so that lazy imports and first-call set-up are
        not charged to the first file."""
        name = "warm-up.smt2"
        loaded = LoadedFile(name, name, WARM_UP, content_digest(WARM_UP), parse_bytes(WARM_UP, name))
        own = self.oracles[0].run(Case(loaded))
        for oracle in self.oracles[1:]:
            oracle.warm_up(Case(loaded, own.answers))
        # what the imports left behind (torch's is large) is not any oracle's garbage: keep the
        # collector from scanning it again while an oracle is being timed
        gc.collect()
        gc.freeze()

    def compare_file(self, path: str) -> tuple[FileRow, Program | None]:
        """The file's row, and its program for the per-assert texts of ``asserts.csv``."""
        loaded = load_program(path)
        subject, *others = self.oracles
        own = subject.run(Case(loaded))
        outcomes = {subject.name: own}
        if loaded.data is not None:
            case = Case(loaded, own.answers)
            outcomes.update((o.name, o.run(case)) for o in others if path in self.plan[o.name])
        return _row(loaded, outcomes), loaded.program

    def compare_all(self, files: Sequence[str], csv_path: str, quiet: bool = False) -> list[FileRow]:
        """Every file's row, in order; ``asserts.csv`` (``csv_path``) written as each one
        finishes, a progress bar on a terminal's stderr unless ``quiet``."""
        rows = []
        with CsvSink(csv_path, self.oracles) as csv_sink, progress(len(files), quiet=quiet) as advance:
            for path in files:
                row, program = self.compare_file(path)
                csv_sink.write(row, program)
                rows.append(row)
                advance(os.path.basename(path))
        return rows


def _row(loaded: LoadedFile, outcomes: Mapping[str, OracleOutcome]) -> FileRow:
    """Answers, problems and findings gathered; a file the oracles read differently is a problem."""
    subject = next(iter(outcomes))
    read = len(outcomes[subject].answers.letters)
    answers, problems = {}, []
    for name, outcome in outcomes.items():
        problems += outcome.problems
        if outcome.answers is None:
            continue
        answers[name] = outcome.answers
        n = len(outcome.answers.letters)
        if n != read and loaded.ok:
            problems.append(f"assert count differs: {subject} read {read}, {name} read {n}")
    asserts = max(len(a.letters) for a in answers.values()) if loaded.ok else read
    return FileRow(loaded.name, family(loaded.name), asserts, answers, tuple(problems),
                   tuple(u for o in outcomes.values() for u in o.unsound),
                   tuple(g for o in outcomes.values() for g in o.gave_up))
