"""The ``--jsonl`` results file: streamed while a batch runs, sorted when it ends.

Invariants, so that a run killed at any moment loses no finished result:

* while running, each record is appended as one complete line and flushed as
  soon as its file is finished (completion order);
* a line without its final newline can only be the tail of a killed run; it is
  ignored when the file is read back (:func:`read_records`) and dropped when a
  run resumes (:func:`JsonlSink.resume`);
* when the run ends, the file is rewritten in a deterministic order (file name,
  then content hash) through a temporary file and ``os.replace``, so a reader
  never sees a half-written file; the file keeps its mode (or gets the umask's);
* a run holds an exclusive ``flock`` on the results file from before it reads
  it until after its last rewrite (each new file is locked before it takes the
  name), so a second run on the same file is refused instead of silently
  dropping the first run's records.

Timing fields (:data:`TIMING_FIELDS`) differ from run to run; everything else
in a record is a function of the file's content.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import stat
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


def _umask() -> int:
    """The process's umask, read without changing it where the system allows."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _mode_for(path: str) -> int:
    """The permission bits a plain ``open(path, "w")`` would leave: the file's own, else ``0o666 & ~umask``."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~_umask()


def write_sorted(path: str, records: Iterable[Record], keep_open: bool = False) -> int | None:
    """Replace ``path`` atomically by ``records`` sorted by :func:`record_key`.

    The new file gets the mode the old one had (or the umask's), not the temporary
    file's 0600. With ``keep_open``, the new file is locked before it takes the
    name, and its descriptor is returned (positioned at the end): the run keeps
    holding the results file across the replacement.
    """
    ordered = sorted(records, key=record_key)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".absint-", suffix=".jsonl.tmp", dir=directory)
    try:
        os.fchmod(fd, _mode_for(path))
        if keep_open:
            fcntl.flock(fd, fcntl.LOCK_EX)  # nobody else knows this file yet
        with os.fdopen(fd, "w", encoding="utf-8", closefd=False) as f:
            for rec in ordered:
                f.write(dumps(rec) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.close(fd)
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if keep_open:
        return fd
    os.close(fd)
    return None


class ResultsBusy(Exception):
    """Another run holds the results file: two runs appending to one file would lose records."""


def open_locked(path: str) -> tuple[int, bool]:
    """``path`` opened (created if missing) and locked for this run: (descriptor, created).

    ``OSError`` if it cannot be written; :class:`ResultsBusy` if another run holds
    it. The lock is taken on the file that has the name: a run that replaced the
    file while we waited leaves us a stale one, so we look again.
    """
    while True:
        created = not os.path.lexists(path)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(errno.EINVAL, "not a regular file")
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise ResultsBusy(f"{path} is in use by another absint analyze run") from None
        except BaseException:
            os.close(fd)
            raise
        try:
            if os.path.samestat(os.fstat(fd), os.stat(path)):
                return fd, created
        except FileNotFoundError:
            pass
        os.close(fd)


class JsonlSink:
    """The results file of one run: locked for the run, appended to one flushed line per record."""

    def __init__(self, path: str, fsync: bool = False):
        """Open and lock ``path`` (see :func:`open_locked`); nothing in it is changed yet."""
        self.path = path
        self.fsync = fsync
        self._fd, self.created = open_locked(path)
        self._f = None

    @classmethod
    def fresh(cls, path: str) -> "JsonlSink":
        """An empty results file (an earlier one at ``path`` is discarded)."""
        return cls(path).start(())

    @classmethod
    def resume(cls, path: str, keep: Iterable[Record]) -> "JsonlSink":
        """The file rewritten to hold exactly ``keep`` (dropping any partial tail), then appended to."""
        return cls(path).start(keep)

    def start(self, keep: Iterable[Record]) -> "JsonlSink":
        """Rewrite the file to hold exactly ``keep``, then append to it."""
        self._swap(write_sorted(self.path, keep, keep_open=True))
        return self

    def write(self, record: Record) -> None:
        self._f.write(dumps(record) + "\n")
        self._f.flush()
        if self.fsync:
            os.fsync(self._f.fileno())

    def finish(self, records: Iterable[Record]) -> None:
        """The final, sorted file (written before the lock is let go), then :meth:`close`."""
        try:
            self._swap(write_sorted(self.path, records, keep_open=True))
        finally:
            self.close()

    def abandon(self) -> None:
        """Let go of a file this run did not use; removed if this run created it."""
        if self.created and self._f is None:
            try:
                os.unlink(self.path)
            except OSError:
                pass
        self.close()

    def _swap(self, fd: int) -> None:
        """Hold ``fd`` (locked, at its end) instead of the current file."""
        old_f, old_fd = self._f, self._fd
        self._f, self._fd = os.fdopen(fd, "w", encoding="utf-8"), fd
        if old_f is not None:
            old_f.close()
        elif old_fd is not None:
            os.close(old_fd)

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
        elif self._fd is not None:
            os.close(self._fd)
        self._f = self._fd = None

    def __enter__(self) -> "JsonlSink":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
