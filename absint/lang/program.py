"""A shape program: symbols, facts in order, named outputs."""

from __future__ import annotations

import bisect
import re
from typing import Iterator, Mapping

import attrs

from absint.lang.terms import Sort, Term, definitions_in
from absint.lang.evaluator import Value


@attrs.frozen(slots=True)
class Position:
    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@attrs.define(slots=True, eq=False)
class Source:
    """The text a program was read from; positions are computed only when asked for.

    Tracking positions while tokenizing would double the cost of every parse,
    and they are needed only for messages, so they are recovered on demand from
    the token index by one more scan.
    """

    name: str
    text: str
    token_pattern: re.Pattern[str]
    _offsets: list[int] | None = None
    _line_starts: list[int] | None = None

    def offset_of_token(self, index: int) -> int:
        if self._offsets is None:
            self._offsets = [m.start() for m in self.token_pattern.finditer(self.text)]
        if index >= len(self._offsets):
            return len(self.text)
        return self._offsets[index]

    def position_of_offset(self, offset: int) -> Position:
        if self._line_starts is None:
            starts = [0]
            find = self.text.find
            i = find("\n")
            while i >= 0:
                starts.append(i + 1)
                i = find("\n", i + 1)
            self._line_starts = starts
        line = bisect.bisect_right(self._line_starts, offset)
        return Position(self.name, line, offset - self._line_starts[line - 1] + 1)

    def position(self, token_index: int) -> Position:
        return self.position_of_offset(self.offset_of_token(token_index))


@attrs.frozen(slots=True)
class Symbol:
    """A declared constant: backed (``hint`` is its example value) or unbacked (``hint is None``)."""

    name: str
    sort: Sort
    hint: Value | None
    term: Term

    @property
    def backed(self) -> bool:
        return self.hint is not None


@attrs.frozen(slots=True, eq=False)
class Fact:
    """One ``assert``: its term, its index among the asserts, and where it was written."""

    term: Term
    index: int
    source: Source | None = attrs.field(default=None, repr=False)
    token: int = attrs.field(default=0, repr=False)

    @property
    def position(self) -> Position | None:
        return None if self.source is None else self.source.position(self.token)


@attrs.frozen(slots=True, eq=False)
class Program:
    name: str
    symbols: tuple[Symbol, ...]
    facts: tuple[Fact, ...]
    outputs: tuple[tuple[str, Term], ...] = ()

    def hints(self) -> dict[str, Value]:
        """The example point: every backed symbol's hint, by name."""
        return {s.name: s.hint for s in self.symbols if s.hint is not None}

    def symbol(self, name: str) -> Symbol:
        for s in self.symbols:
            if s.name == name:
                return s
        raise KeyError(name)

    @property
    def unbacked(self) -> tuple[Symbol, ...]:
        return tuple(s for s in self.symbols if s.hint is None)

    def __iter__(self) -> Iterator[Fact]:
        return iter(self.facts)

    def output(self, name: str) -> Term:
        return dict(self.outputs)[name]

    def output_map(self) -> Mapping[str, Term]:
        return dict(self.outputs)

    def definitions(self) -> tuple[list[Term], int | None]:
        """The named long sums the asserts use, oldest first, and the index of the first
        assert that uses one (:func:`absint.lang.terms.definitions_in`)."""
        return definitions_in(f.term for f in self.facts)
