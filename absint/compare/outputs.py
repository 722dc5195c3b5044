"""The data files of ``absint compare``: ``summary.json`` (the summary and one entry per file)
and ``asserts.csv`` (one line per assert, written as each file finishes, so that a long run
keeps no assert text in memory)."""

from __future__ import annotations

import csv
import json
from typing import Any, Sequence

from absint.compare.excerpt import assert_text
from absint.compare.oracle import Oracle
from absint.compare.row import FileRow
from absint.compare.summary import counts
from absint.lang.program import Program

CSV_TEXT = 200  # characters of an assert's text in asserts.csv


def write_json(path: str, summary: dict[str, Any], rows: Sequence[FileRow], oracles: Sequence[Oracle]) -> None:
    files = [_file_entry(r, oracles) for r in rows]
    with open(path, "w", encoding="utf-8") as fh:
        json.dump({**summary, "files": files}, fh, indent=1, default=str)
        fh.write("\n")


def _file_entry(r: FileRow, oracles: Sequence[Oracle]) -> dict[str, Any]:
    f: dict[str, Any] = {"file": r.file, "family": r.family, "asserts": r.asserts, "problems": r.problems,
                         "unsound": len(r.unsound), "absint_decided_where_z3_gave_up": len(r.gave_up)}
    for o in oracles:
        a = r.answers.get(o.name)
        if a is not None:
            f[o.name] = {"letters": a.letters, "seconds": round(a.seconds, 6), **counts(a.letters), **o.file_fields(a)}
    return f


class CsvSink:
    """``asserts.csv``: file, index, line, assert text, absint's letter and deciding layer, each
    other oracle's letter, then every oracle's CPU seconds on the assert."""

    def __init__(self, path: str, oracles: Sequence[Oracle]):
        self.path = path
        self.names = [o.name for o in oracles]  # absint first

    def __enter__(self) -> "CsvSink":
        self.fh = open(self.path, "w", encoding="utf-8", newline="")
        self.w = csv.writer(self.fh)
        first, *others = self.names
        self.w.writerow(["file", "index", "line", "assert", first, "layer", *others,
                         *[f"{name}_seconds" for name in self.names]])
        return self

    def __exit__(self, *exc) -> None:
        self.fh.close()

    def write(self, row: FileRow, program: Program | None) -> None:
        facts = program.facts if program is not None else ()
        first, *others = self.names
        layers = row.answers[first].details["layers"]
        for i in range(row.asserts):
            fact = facts[i] if i < len(facts) else None
            line = "" if fact is None or fact.position is None else fact.position.line
            text = "" if fact is None else assert_text(fact.term, limit=CSV_TEXT)
            letters = [_at(row.letters(first), i), _at(layers, i), *[_at(row.letters(n), i) for n in others]]
            seconds = [_seconds_at(row, n, i) for n in self.names]
            self.w.writerow([row.file, i, line, text, *letters, *seconds])


def _at(values: Sequence[str], i: int) -> str:
    return values[i] if i < len(values) else ""


def _seconds_at(row: FileRow, name: str, i: int) -> str:
    a = row.answers.get(name)
    return f"{a.per_assert[i]:.6f}" if a is not None and i < len(a.per_assert) else ""
