"""The user's source, read as Python: which statement a line belongs to (where a check can
be pasted), the names it uses, a comprehension's ``for`` clause, and inserting lines.

Torch-free. Sources are read through ``linecache`` (what tracebacks read) and parsed once
per file and text.
"""

from __future__ import annotations

import ast
import functools
import linecache
import os

import attrs

_BLOCKS = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.FunctionDef,
           ast.AsyncFunctionDef, ast.ClassDef)
COMPREHENSIONS = ("<listcomp>", "<genexpr>", "<setcomp>", "<dictcomp>")


@attrs.frozen(slots=True)
class Statement:
    """The statement a line belongs to: ``line`` where it starts (a check is pasted before
    it), ``indent`` its column, ``names`` the identifiers it uses (up to its body, for a
    compound statement: an ``if``'s test, a ``for``'s header)."""

    line: int
    indent: int
    names: frozenset[str]


def text_of(path: str) -> str:
    return "".join(linecache.getlines(path))


@functools.lru_cache(maxsize=64)
def _parsed(path: str, text: str) -> ast.Module | None:
    try:
        return ast.parse(text, path)
    except (SyntaxError, ValueError):
        return None


def tree_of(path: str) -> ast.Module | None:
    return _parsed(path, text_of(path))


def statement_at(path: str, line: int) -> Statement | None:
    """The innermost statement of ``path`` whose own lines (not its body) hold ``line``; an
    ``elif``'s is its first ``if`` (nothing can be pasted before an ``elif``)."""
    tree = tree_of(path)
    if tree is None:
        return None
    found, parents = None, {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
        if isinstance(node, ast.stmt) and node.lineno <= line <= (node.end_lineno or node.lineno):
            if _header_holds(node, line) and (found is None or node.lineno >= found.lineno):
                found = node
    while found is not None and _is_elif(found, parents, path):
        found = parents[found]
    if found is None:
        return None
    return Statement(found.lineno, found.col_offset, frozenset(_header_names(found)))


def _header_holds(node: ast.stmt, line: int) -> bool:
    """Whether ``line`` is in ``node`` but in none of its bodies."""
    if not isinstance(node, _BLOCKS):
        return True
    bodies = [getattr(node, f, None) or [] for f in _BODIES]
    first = min((b[0].lineno for b in bodies if b), default=None)
    return first is None or line < first


def _is_elif(node: ast.stmt, parents: dict, path: str) -> bool:
    parent = parents.get(node)
    if not isinstance(node, ast.If) or not isinstance(parent, ast.If) or parent.orelse != [node]:
        return False
    return linecache.getline(path, node.lineno).lstrip().startswith("elif")


_BODIES = ("body", "orelse", "finalbody", "handlers")


def _header_names(node: ast.stmt) -> set[str]:
    parts: list = [node]
    if isinstance(node, _BLOCKS):
        parts = []
        for field, value in ast.iter_fields(node):
            if field not in _BODIES:
                parts.extend(value if isinstance(value, list) else [value])
    return {n.id for p in parts if isinstance(p, ast.AST) for n in ast.walk(p) if isinstance(n, ast.Name)}


def comprehension_clause(path: str, first_line: int, targets: set[str]) -> tuple[str, str, frozenset[str]] | None:
    """A comprehension starting on ``first_line`` whose ``for`` targets are among ``targets``
    (the comprehension frame's locals): ``(target, iterable, target names)`` as source, when
    it has one ``for`` and no ``if`` (then ``for target in iterable:`` runs over what it does)."""
    tree = tree_of(path)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if not isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            continue
        if node.lineno != first_line or len(node.generators) != 1:
            continue
        g = node.generators[0]
        names = {n.id for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        if g.ifs or g.is_async or not names or not names <= targets:
            continue
        return ast.unparse(g.target), ast.unparse(g.iter), frozenset(names)
    return None


def insert_lines(text: str, inserts: dict[int, list[tuple[int, str, object]]]) -> tuple[str, list[tuple[int, object]]]:
    """``text`` with, before each line ``n`` of ``inserts``, its ``(indent, statement, tag)``
    lines; and for each line of the result, ``(the line of text it comes from, tag)``: an
    inserted line's is the line it was pasted before and its tag, an original line's tag None."""
    out, origin = [], []
    for n, line in enumerate(text.splitlines(keepends=True), start=1):
        for indent, statement, tag in inserts.get(n, ()):
            out.append(" " * indent + statement + "\n")
            origin.append((n, tag))
        out.append(line)
        origin.append((n, None))
    return "".join(out), origin


def real(path: str) -> str:
    return os.path.realpath(path)
