"""``absint validate``'s files: a file of pairs, or a source and a target program, read and checked.

Each is read in a fresh term table (as every command reads a file), so the results do not
depend on what the process read before. Bad input raises
:class:`absint.readers.smtlib.SmtLibError` (positioned), :class:`absint.validation.check.ValidationError`
or ``OSError``; the command reports them.
"""

from __future__ import annotations

import os

from absint.lang.terms import fresh_table
from absint.readers.smtlib import parse_bytes, parse_with_definitions
from absint.validation.check import BisectResult, PairResult, bisect, validate_pairs


def pairs_of_file(path: str, equiv: bool = False) -> list[PairResult]:
    """Each ``source<k>``/``target<k>`` pair of the file under its asserts (see
    :func:`absint.validation.check.validate_pairs`)."""
    data, name = _read(path), os.path.basename(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        parse_bytes(data, name)  # raises the positioned error every command reports
        raise
    with fresh_table():
        program, definitions = parse_with_definitions(text, name)
        return validate_pairs(program, definitions, equiv=equiv)


def bisect_files(source: str, target: str) -> BisectResult:
    """The first step at which the target's asserts stop implying the source's (see
    :func:`absint.validation.check.bisect`)."""
    with fresh_table():
        return bisect(parse_bytes(_read(source), os.path.basename(source)),
                      parse_bytes(_read(target), os.path.basename(target)))


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()
