"""SMT-LIB text as S-expressions and back: what the metamorphic rewrites work on.

The rewrites change how a program is *written* (names, nesting, order of operands), so they
work on its text, before the reader has made terms canonical: a reordered sum read into a
term would already be the canonical one. An S-expression is a ``str`` (one token, as the
reader's tokenizer cuts it) or a ``tuple`` of S-expressions. Reading and printing use an
explicit stack: an inlined definition can nest thousands of levels deep.
"""

from __future__ import annotations

import re
from typing import Callable, Union

from absint.readers.smtlib import TOKEN

SExpr = Union[str, tuple["SExpr", ...]]

_COMMENT = re.compile(r'"(?:[^"]|"")*"|\|[^|]*\||;[^\n]*')


class SExprError(ValueError):
    """Text that is not a sequence of balanced S-expressions."""


def tokens(text: str) -> list[str]:
    """The reader's tokens of ``text``, comments removed (quoted symbols and strings kept)."""
    if ";" in text:
        text = _COMMENT.sub(lambda m: m.group() if m.group()[0] != ";" else " ", text)
    return TOKEN.findall(text)


def parse(text: str) -> list[SExpr]:
    """The top-level S-expressions (commands) of ``text``."""
    stack: list[list[SExpr]] = [[]]
    for tok in tokens(text):
        if tok == "(":
            stack.append([])
        elif tok == ")":
            if len(stack) == 1:
                raise SExprError("unbalanced ')'")
            done = tuple(stack.pop())
            stack[-1].append(done)
        else:
            stack[-1].append(tok)
    if len(stack) != 1:
        raise SExprError("unbalanced '(': the text ends inside an expression")
    return stack[0]


def render(e: SExpr) -> str:
    """One S-expression as text (single spaces, no line breaks)."""
    out: list[str] = []
    stack: list[SExpr | None] = [e]
    while stack:
        item = stack.pop()
        if item is None:
            out.append(")")
        elif isinstance(item, str):
            out.append(item)
        else:
            out.append("(")
            stack.append(None)
            stack.extend(reversed(_spaced(item)))
    return "".join(out)


def _spaced(items: tuple[SExpr, ...]) -> list[SExpr]:
    out: list[SExpr] = []
    for i, item in enumerate(items):
        if i:
            out.append(" ")
        out.append(item)
    return out


def render_program(commands: list[SExpr]) -> str:
    """Commands as a program text, one per line."""
    return "".join(render(c) + "\n" for c in commands)


def size(e: SExpr) -> int:
    """Tokens of ``e`` (atoms and applications), without recursion."""
    n, stack = 0, [e]
    while stack:
        item = stack.pop()
        n += 1
        if isinstance(item, tuple):
            stack.extend(item)
    return n


def bottom_up(e: SExpr, fn: Callable[[tuple], SExpr], memo: dict[int, tuple[SExpr, SExpr]] | None = None) -> SExpr:
    """``e`` with every application replaced by ``fn`` of it, children first (``fn`` sees its
    operands already replaced); an application shared by reference is replaced once (``memo``,
    kept across calls by the caller, maps ``id`` -> (application, replacement)). No recursion."""
    if isinstance(e, str):
        return e
    memo = {} if memo is None else memo
    stack = [e]
    while stack:
        x = stack[-1]
        if id(x) in memo:
            stack.pop()
            continue
        pending = [a for a in x if isinstance(a, tuple) and id(a) not in memo]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        mapped = tuple(memo[id(a)][1] if isinstance(a, tuple) else a for a in x)
        memo[id(x)] = (x, fn(mapped))  # x kept alive: its id is not reused while memo lives
    return memo[id(e)][1]


def tree_size(roots: list[SExpr], cap: int) -> int:
    """Tokens of ``roots`` printed as trees (an application shared by reference once per use),
    counted over the shared structure without recursion, capped at ``cap + 1``."""
    sizes: dict[int, tuple[SExpr, int]] = {}
    total = 0
    for r in roots:
        total += _tree_size(r, sizes, cap) if isinstance(r, tuple) else 1
        if total > cap:
            return cap + 1
    return total


def _tree_size(e: tuple, sizes: dict[int, tuple[SExpr, int]], cap: int) -> int:
    """``e``'s tokens by :func:`bottom_up` (each application's children already counted)."""
    def counted(mapped: tuple) -> int:
        return min(cap + 1, 1 + sum(a if isinstance(a, int) else 1 for a in mapped))

    return bottom_up(e, counted, sizes)


def postorder(e: SExpr, seen: set[int] | None = None) -> list[tuple]:
    """The applications of ``e``, children before parents, each object once (``seen``: ids
    already listed by an earlier call, skipped with what is under them). No recursion."""
    seen = set() if seen is None else seen
    out: list[tuple] = []
    if isinstance(e, str) or id(e) in seen:
        return out
    stack: list[tuple[tuple, bool]] = [(e, False)]
    while stack:
        x, expanded = stack.pop()
        if expanded:
            out.append(x)
            continue
        if id(x) in seen:
            continue
        seen.add(id(x))
        stack.append((x, True))
        stack.extend((a, False) for a in reversed(x) if isinstance(a, tuple) and id(a) not in seen)
    return out
