"""One file's comparison: the record the summary, the tables and the output files read."""

from __future__ import annotations

from typing import Any, Mapping

import attrs

from absint.compare.oracle import Answers


@attrs.frozen(slots=True)
class FileRow:
    """``answers`` holds, by oracle name, the answers of those that ran on the file and read
    it (absint always, first); ``asserts`` is the larger count where readers disagree."""

    file: str
    family: str
    asserts: int
    answers: Mapping[str, Answers]
    problems: tuple[str, ...] = ()
    unsound: tuple[dict[str, Any], ...] = ()
    gave_up: tuple[dict[str, Any], ...] = ()

    def letters(self, name: str) -> str:
        """The letters of oracle ``name`` (empty where it did not run)."""
        answers = self.answers.get(name)
        return "" if answers is None else answers.letters

    def seconds(self, name: str) -> float:
        answers = self.answers.get(name)
        return 0.0 if answers is None else answers.seconds


def family(name: str) -> str:
    """The model a corpus file belongs to: ``BERT_pytorch___3.smt2`` -> ``BERT_pytorch``."""
    base = name[:-5] if name.endswith(".smt2") else name
    return base.split("___")[0]
