"""What a program's names stand for, read from its commands: the sort of every constant, the
body of every named constant (``(define-fun NAME () Sort BODY)``), the result sort of every
function, and from them the sort of any expression and its form with names expanded.

The rewrites need sorts to write a new ``define-fun`` (its sort is part of it) and to keep a
``Real`` constant with an ``Int`` body ``Real`` once inlined (``to_real``). The rules are the
reader's (:mod:`absint.readers.smtlib`): ``+ - * abs ite`` take the common sort of their
operands, ``/ to_real`` and opaque functions are Real, ``div mod to_int ceil`` Int,
comparisons and connectives Bool.
"""

from __future__ import annotations

import re
from typing import Iterator

import attrs

from absint.metamorphic.sexpr import SExpr

_INT = re.compile(r"-?[0-9]+")
_DEC = re.compile(r"-?[0-9]+\.[0-9]+")
BOOL_HEADS = frozenset({"<=", "<", ">=", ">", "=", "distinct", "not", "and", "or", "=>", "xor"})
INT_HEADS = frozenset({"div", "mod", "to_int", "ceil"})
REAL_HEADS = frozenset({"/", "to_real"})
COMMON_HEADS = frozenset({"+", "-", "*", "abs"})


class TooLarge(Exception):
    """A rewrite whose text would be over the size limit (inlining can grow a program
    quadratically): the file is skipped for that rewrite, and the report says so."""


def unquoted(tok: str) -> str:
    return tok[1:-1] if len(tok) > 1 and tok[0] == "|" and tok[-1] == "|" else tok


def is_definition(c: SExpr) -> bool:
    """``(define-fun NAME () Sort BODY)``: a named constant."""
    return isinstance(c, tuple) and len(c) == 5 and c[0] == "define-fun" and c[2] == ()


@attrs.define(slots=True)
class Scope:
    """The names of one program; :meth:`read` takes its commands in order."""

    sorts: dict[str, str] = attrs.Factory(dict)  # constant (declared or named) -> sort
    bodies: dict[str, SExpr] = attrs.Factory(dict)  # named constant -> body, as written
    results: dict[str, str] = attrs.Factory(dict)  # function (macro or opaque) -> result sort
    used: set[str] = attrs.Factory(set)  # every token of the program: fresh names avoid them
    _sort_memo: dict[int, tuple[SExpr, str]] = attrs.Factory(dict)

    @classmethod
    def of(cls, commands: list[SExpr]) -> "Scope":
        scope = cls()
        for c in commands:
            scope.read(c)
        return scope

    def read(self, c: SExpr) -> None:
        self.used.update(_atoms(c))
        if not isinstance(c, tuple) or len(c) < 3:
            return
        head, name = c[0], unquoted(c[1]) if isinstance(c[1], str) else None
        if head == "declare-const" and name is not None:
            self.sorts[name] = c[2]
        elif head == "declare-fun" and name is not None:
            (self.sorts if c[2] == () else self.results)[name] = c[3]
        elif is_definition(c):
            self.sorts[name], self.bodies[name] = c[3], c[4]
        elif head == "define-fun" and name is not None:
            self.results[name] = c[3]

    def fresh(self, stem: str) -> Iterator[str]:
        """Names ``stem1``, ``stem2``, ... that no token of the program is."""
        for i in _count():
            name = f"{stem}{i}"
            if name not in self.used:
                self.used.add(name)
                yield name

    def sort_of(self, e: SExpr) -> str:
        """``Int``, ``Real`` or ``Bool``: the sort the reader gives ``e`` (an expression without
        ``let``: the rewrites expand them first). Children first, without recursion."""
        if isinstance(e, str):
            return self._atom_sort(e)
        memo = self._sort_memo
        stack = [e]
        while stack:
            x = stack[-1]
            if id(x) in memo:
                stack.pop()
                continue
            pending = [a for a in x[1:] if isinstance(a, tuple) and id(a) not in memo]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            memo[id(x)] = (x, self._application_sort(x))  # x kept alive: its id stays its own
        return memo[id(e)][1]

    def _sort(self, e: SExpr) -> str:
        return self._atom_sort(e) if isinstance(e, str) else self._sort_memo[id(e)][1]

    def _atom_sort(self, tok: str) -> str:
        name = unquoted(tok)
        if name in self.sorts:
            return self.sorts[name]
        if tok in ("true", "false"):
            return "Bool"
        if _INT.fullmatch(tok):
            return "Int"
        if _DEC.fullmatch(tok):
            return "Real"
        raise ValueError(f"undefined name '{tok}'")

    def _application_sort(self, e: tuple) -> str:
        head = e[0]
        if head in BOOL_HEADS:
            return "Bool"
        if head in INT_HEADS:
            return "Int"
        if head in REAL_HEADS:
            return "Real"
        if head == "ite":
            return _common([self._sort(a) for a in e[2:]])
        if head in COMMON_HEADS or head == "^":
            return _common([self._sort(a) for a in e[1:]])
        name = unquoted(head) if isinstance(head, str) else None
        if name in self.results:
            return self.results[name]
        raise ValueError(f"unknown operator '{head}'")


def _common(sorts: list[str]) -> str:
    if "Bool" in sorts:
        return "Bool"
    return "Real" if "Real" in sorts else "Int"


def _count() -> Iterator[int]:
    i = 1
    while True:
        yield i
        i += 1


def _atoms(e: SExpr) -> Iterator[str]:
    stack = [e]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield unquoted(item)
        else:
            stack.extend(item)
