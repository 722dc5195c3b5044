"""absint itself as an oracle: the reasoner under test, timed per assert like the others.

Its CPU seconds are its parse (from :func:`absint.readers.files.load_program`) plus the
analysis; each assert is charged its verdict and assuming it, plus an even share of the parse.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

from absint import __version__
from absint.analysis import analyze_program
from absint.compare.oracle import Answers, Case, Oracle, OracleOutcome
from absint.reasoning.reasoner import Reasoner


class TimedReasoner:
    """A reasoner wrapped to record the CPU seconds of each assert (its verdict plus assuming
    it); what the analysis asks of it (:class:`absint.analysis.AssertReasoner`) is passed on."""

    def __init__(self, reasoner: Reasoner | None = None) -> None:
        self.reasoner = Reasoner() if reasoner is None else reasoner
        self.times: list[float] = []
        self._decide = 0.0

    @property
    def contradiction(self) -> bool:
        return self.reasoner.contradiction

    def prefer_to_eliminate(self, variables) -> None:
        self.reasoner.prefer_to_eliminate(variables)

    def example(self, values) -> None:
        self.reasoner.example(values)

    def register(self, terms) -> None:
        self.reasoner.register(terms)

    def decide(self, guard):
        t = time.process_time()
        try:
            return self.reasoner.decide(guard)
        finally:
            self._decide = time.process_time() - t

    def assume(self, fact):
        t = time.process_time()
        try:
            self.reasoner.assume(fact)
        finally:
            self.times.append(self._decide + time.process_time() - t)
            self._decide = 0.0


class AbsintOracle(Oracle):
    name = "absint"
    title = "absint"
    line_style = ("tab:blue", "-")

    def version(self) -> str:
        return __version__

    def run(self, case: Case) -> OracleOutcome:
        loaded = case.loaded
        if not loaded.ok:
            answers = Answers("", (), loaded.parse_seconds, {"layers": ()})
            return OracleOutcome(answers, (f"absint: {loaded.error}",))
        start = time.process_time()
        reasoner = TimedReasoner()
        verdicts = analyze_program(loaded.program, check_example=False, reasoner=reasoner).verdicts
        analysis = time.process_time() - start
        n = len(verdicts)
        times = reasoner.times if len(reasoner.times) == n else [analysis / n] * n
        parse = loaded.parse_seconds
        return OracleOutcome(Answers("".join(v.letter for v in verdicts), tuple(t + parse / n for t in times),
                               parse + analysis, {"layers": tuple(v.by.value for v in verdicts)}))

    def file_fields(self, answers: Answers) -> dict[str, Any]:
        """Which layer decided how many of its ``T``/``F``."""
        decided = (layer for layer, letter in zip(answers.details["layers"], answers.letters) if letter in "TF")
        return {"layers": dict(Counter(decided))}


def from_args(args) -> AbsintOracle:
    return AbsintOracle()
