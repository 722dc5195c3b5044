"""From a file name to a program, or to one positioned error: the one path every command takes.

A bad file is never an exception for the caller: :func:`load_program` returns a
:class:`LoadedFile` whose ``error`` is ``FILE:LINE:COLUMN: message`` (the reader's
error) or ``PATH: cannot read: reason``, so a batch goes on with the other files.

Only regular files are read, and at most ``max_size`` bytes of them
(:func:`read_regular`): a FIFO named ``*.smt2`` would block the reader forever and
``/dev/zero`` would fill its memory, so neither is ever read; a FIFO is not even
opened for reading before it is known to be one (and a file swapped for one in
between is opened non-blocking).
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from typing import Iterable

import attrs

from absint.lang.program import Program
from absint.readers.smtlib import SmtLibError, parse_bytes


MB = 1 << 20
DEFAULT_MAX_FILE_SIZE = 64  # MB; the largest program seen from a compiler is under 2 MB
CHUNK = 1 << 20


def content_digest(data: bytes) -> str:
    """The SHA-256 of a file's bytes (hex): how records, caches and resumed runs name a content."""
    return hashlib.sha256(data).hexdigest()


class UnreadableFile(Exception):
    """A file that is not read: the message is the record's error, ``PATH: cannot read: reason``."""


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _refuse(path: str, st: os.stat_result, max_size: int) -> None:
    """Raise :class:`UnreadableFile` unless ``st`` is a regular file within ``max_size`` bytes (0: any)."""
    if not stat.S_ISREG(st.st_mode):
        kind = next((k for test, k in _KINDS if test(st.st_mode)), "not a regular file")
        raise UnreadableFile(f"{path}: cannot read: not a regular file ({kind})")
    if max_size > 0 and st.st_size > max_size:
        raise UnreadableFile(f"{path}: cannot read: too large ({st.st_size} bytes, over the limit of "
                             f"{max_size / MB:g} MB: --max-file-size)")


def _open_regular(path: str, max_size: int) -> int:
    """A read-only descriptor of a regular file within the size limit, else :class:`UnreadableFile`."""
    try:
        _refuse(path, os.stat(path), max_size)  # a FIFO or device is refused before it is opened
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise UnreadableFile(f"{path}: cannot read: {e.strerror or e}") from None
    try:
        _refuse(path, os.fstat(fd), max_size)  # what was opened, if it changed since the stat
    except BaseException:
        os.close(fd)
        raise
    return fd


def _chunks(path: str, max_size: int):
    """The file's bytes in chunks; a file that grows past the limit while read is refused too."""
    fd = _open_regular(path, max_size)
    total = 0
    try:
        while True:
            try:
                chunk = os.read(fd, CHUNK)
            except OSError as e:
                raise UnreadableFile(f"{path}: cannot read: {e.strerror or e}") from None
            if not chunk:
                return
            total += len(chunk)
            if max_size > 0 and total > max_size:
                raise UnreadableFile(f"{path}: cannot read: too large (over the limit of "
                                     f"{max_size / MB:g} MB: --max-file-size)")
            yield chunk
    finally:
        os.close(fd)


def read_regular(path: str, max_size: int = 0) -> bytes:
    """The bytes of a regular file of at most ``max_size`` bytes (0: no limit); else :class:`UnreadableFile`."""
    return b"".join(_chunks(path, max_size))


def file_sha256(path: str, max_size: int = 0) -> str | None:
    """:func:`content_digest` of a file read in chunks (memory does not grow with it); None if unreadable."""
    h = hashlib.sha256()
    try:
        for chunk in _chunks(path, max_size):
            h.update(chunk)
    except UnreadableFile:
        return None
    return h.hexdigest()


@attrs.frozen(slots=True)
class LoadedFile:
    """One file as read: its bytes and digest when readable, its program when it parses.

    ``parse_seconds`` is the CPU time spent reading and parsing (also on failure).
    """

    path: str
    name: str
    data: bytes | None = attrs.field(default=None, repr=False)
    digest: str | None = None
    program: Program | None = attrs.field(default=None, repr=False)
    error: str | None = None
    parse_seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None


def load_program(path: str, label: str | None = None, max_size: int = 0) -> LoadedFile:
    """Read and parse ``path``; positions in messages name ``label`` (default: the base name)."""
    start = time.process_time()
    try:
        data = read_regular(path, max_size)
    except UnreadableFile as e:
        return LoadedFile(path, os.path.basename(path), error=str(e), parse_seconds=time.process_time() - start)
    return load_bytes(path, data, label, start)


def load_bytes(path: str, data: bytes, label: str | None = None, start: float | None = None) -> LoadedFile:
    """Parse bytes already read from ``path``; ``start``: the CPU clock when reading began."""
    name = os.path.basename(path)
    label = name if label is None else label
    start = time.process_time() if start is None else start
    digest = content_digest(data)
    try:
        program = parse_bytes(data, label)
    except SmtLibError as e:
        return LoadedFile(path, name, data, digest, error=str(e), parse_seconds=time.process_time() - start)
    return LoadedFile(path, name, data, digest, program, parse_seconds=time.process_time() - start)


def smt2_files(paths: Iterable[str]) -> list[str]:
    """Files named on the command line; directories are searched for ``*.smt2``, sorted by name;
    ``-`` is one program read from standard input (see :func:`stdin_file`)."""
    out: list[str] = []
    for p in paths:
        if p == "-":
            out.append(stdin_file())
        elif os.path.isdir(p):
            found = []
            for root, _, names in os.walk(p):
                found.extend(os.path.join(root, n) for n in names if n.endswith(".smt2"))
            out.extend(sorted(found, key=lambda f: (os.path.basename(f), f)))
        else:
            out.append(p)
    return out


_stdin_path: str | None = None


def stdin_file() -> str:
    """Standard input, read once into ``stdin.smt2`` in a private temporary directory removed
    at exit: every command (and the batch's worker processes) then reads it as a file."""
    global _stdin_path
    if _stdin_path is None:
        import atexit
        import shutil
        import sys
        import tempfile

        folder = tempfile.mkdtemp(prefix="absint-stdin-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        _stdin_path = os.path.join(folder, "stdin.smt2")
        with open(_stdin_path, "wb") as f:
            f.write(sys.stdin.buffer.read())
    return _stdin_path


def shown(text: str) -> str:
    """``text`` with the private file standard input was read into named ``-``, as the user
    gave it (records and messages name the file a command read)."""
    return text if _stdin_path is None else text.replace(_stdin_path, "-")
