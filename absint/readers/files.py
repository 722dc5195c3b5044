"""From a file name to a program, or to one positioned error: the one path every command takes.

A bad file is never an exception for the caller: :func:`load_program` returns a
:class:`LoadedFile` whose ``error`` is ``FILE:LINE:COLUMN: message`` (the reader's
error) or ``PATH: cannot read: reason``, so a batch goes on with the other files.
"""

from __future__ import annotations

import hashlib
import os
import time
from typing import Iterable

import attrs

from absint.lang.program import Program
from absint.readers.smtlib import SmtLibError, parse_bytes


def content_digest(data: bytes) -> str:
    """The SHA-256 of a file's bytes (hex): how records, caches and resumed runs name a content."""
    return hashlib.sha256(data).hexdigest()


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


def load_program(path: str, label: str | None = None) -> LoadedFile:
    """Read and parse ``path``; positions in messages name ``label`` (default: the base name)."""
    name = os.path.basename(path)
    label = name if label is None else label
    start = time.process_time()
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        return LoadedFile(path, name, error=f"{path}: cannot read: {e.strerror or e}",
                          parse_seconds=time.process_time() - start)
    digest = content_digest(data)
    try:
        program = parse_bytes(data, label)
    except SmtLibError as e:
        return LoadedFile(path, name, data, digest, error=str(e), parse_seconds=time.process_time() - start)
    return LoadedFile(path, name, data, digest, program, parse_seconds=time.process_time() - start)


def smt2_files(paths: Iterable[str]) -> list[str]:
    """Files named on the command line; directories are searched for ``*.smt2``, sorted by name."""
    out: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            found = []
            for root, _, names in os.walk(p):
                found.extend(os.path.join(root, n) for n in names if n.endswith(".smt2"))
            out.extend(sorted(found, key=lambda f: (os.path.basename(f), f)))
        else:
            out.append(p)
    return out
