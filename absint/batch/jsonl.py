"""The ``--jsonl`` results file: streamed while a batch runs, sorted when it ends.

Invariants, so that a run killed at any moment loses no finished result:

* while running, each record is appended as one complete line and flushed as
  soon as its file is finished (completion order);
* a line without its final newline can only be the tail of a killed run; it is
  ignored when the file is read back (:func:`read_records`) and dropped when a
  run resumes (:func:`JsonlSink.resume`);
* when the run ends, the file is rewritten in a deterministic order (file name,
  then content hash) through a temporary file and ``os.replace``, so a reader
  never sees a half-written file.

Timing fields (:data:`TIMING_FIELDS`) differ from run to run; everything else
in a record is a function of the file's content.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any, Iterable

Record = dict[str, Any]

TIMING_FIELDS = ("seconds", "parse_seconds")


def record_key(record: Record) -> tuple[str, str]:
    """The deterministic order of the final file: base name, then content hash."""
    return (str(record.get("file", "")), str(record.get("sha256") or ""))


def without_timing(record: Record) -> Record:
    """``record`` without the fields that change from run to run (CPU seconds)."""
    return {k: v for k, v in record.items() if k not in TIMING_FIELDS}


def dumps(record: Record) -> str:
    """One line of the file (no newline): compact, keys in the record's own order."""
    return json.dumps(record, separators=(", ", ": "), ensure_ascii=False)


def read_records(path: str) -> list[Record]:
    """The complete records of ``path`` in file order; [] if it does not exist.

    A trailing line without a newline (a write cut short by a kill) and lines
    that are not a JSON object are skipped.
    """
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return []
    lines = data.split(b"\n")
    lines.pop()  # after the last newline: empty, or a partial line
    out: list[Record] = []
    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and "file" in rec:
            out.append(rec)
    return out


def write_sorted(path: str, records: Iterable[Record]) -> None:
    """Replace ``path`` atomically by ``records`` sorted by :func:`record_key`."""
    ordered = sorted(records, key=record_key)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".absint-", suffix=".jsonl.tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            for rec in ordered:
                f.write(dumps(rec) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class JsonlSink:
    """Appends records to the results file, one flushed line each."""

    def __init__(self, path: str, fsync: bool = False):
        self.path = path
        self.fsync = fsync
        self._f = open(path, "a", encoding="utf-8")

    @classmethod
    def fresh(cls, path: str) -> "JsonlSink":
        """An empty results file (an earlier one at ``path`` is discarded)."""
        open(path, "w").close()
        return cls(path)

    @classmethod
    def resume(cls, path: str, keep: Iterable[Record]) -> "JsonlSink":
        """The file rewritten to hold exactly ``keep`` (dropping any partial tail), then appended to."""
        write_sorted(path, keep)
        return cls(path)

    def write(self, record: Record) -> None:
        self._f.write(dumps(record) + "\n")
        self._f.flush()
        if self.fsync:
            os.fsync(self._f.fileno())

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> "JsonlSink":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
