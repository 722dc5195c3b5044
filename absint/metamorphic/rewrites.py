"""Rewrites of a program's text that keep its meaning: the same asserts, in the same order,
written another way. absint must give every rewritten program the verdict letters of the
original (its reasoning is about meaning, not spelling); :mod:`absint.metamorphic.check`
compares them.

Each rewrite takes the program's commands (S-expressions) and returns new ones:

* ``inline``: every named constant (``(define-fun NAME () Sort BODY)``) replaced by its body
  where it is used, and its definition dropped (functions with parameters, the prelude's
  ``ceil``/``min2``/``max2``, stay); a ``Real`` constant with an ``Int`` body is ``(to_real
  BODY)``. Inlining can grow a program quadratically (a chain of prefix sums): over
  ``max_tokens`` the rewrite raises :class:`~absint.metamorphic.scope.TooLarge`;
* ``name-shared``: the inlined program, then every application used more than once (in the
  program as one shared structure) named by a new ``define-fun`` before its first use;
* ``chain``: every sum or product of three or more operands ``(+ a b c d)`` as a chain of
  named two-operand links (``l1 = a + b``, ``l2 = l1 + c``, ``l3 = l2 + d``);
* ``reorder``: the operands of every ``+`` and ``*`` reversed;
* ``rename``: every constant, ``let`` variable and parameter renamed (one injective map,
  so shadowing is kept), the new names in the reverse of the old names' alphabetical order;
* ``sympy``: the sympy round trip (:mod:`absint.metamorphic.sympy_trip`).

``let`` is expanded first by ``inline``, ``name-shared`` and ``chain`` (its variables cannot
be named outside their scope); the corpus has none, the printer writes them for shared
sub-terms of large terms.
"""

from __future__ import annotations

from typing import Callable

import attrs

from absint.metamorphic import sympy_trip
from absint.metamorphic.scope import Scope, TooLarge, is_definition, unquoted
from absint.metamorphic.sexpr import SExpr, bottom_up, postorder, tree_size

Commands = list[SExpr]
#: the inlined text of a program is refused over this many tokens (the corpus's largest
#: program is about 0.4 million tokens; 7 of its 1,354 files inline to more than this, 8.1 to
#: 125 million: with ``--max-tokens 200000000`` they took 1,360 s of CPU and 2.9 GB, docs/metamorphic.md)
MAX_TOKENS = 8_000_000


@attrs.frozen(slots=True)
class TextRewrite:
    """A named rewrite: ``apply(commands, max_tokens) -> commands``; ``why`` is its one line."""

    name: str
    why: str
    apply: Callable[[Commands, int], Commands]


def expand(e: SExpr, env: dict[str, SExpr]) -> SExpr:
    """``e`` with the names of ``env`` (operand positions only: a constant may share an
    operator's name) and its ``let`` variables replaced by their expressions, which are
    shared by reference, not copied. A chain of ``let`` in body position is a loop."""
    while isinstance(e, tuple) and len(e) == 3 and e[0] == "let":
        inner = dict(env)
        inner.update({unquoted(b[0]): expand(b[1], env) for b in e[1]})
        env, e = inner, e[2]
    if isinstance(e, str):
        return env.get(unquoted(e), e)
    return (e[0], *(expand(a, env) for a in e[1:]))


def _expanded(commands: Commands, inline_names: bool) -> tuple[Commands, Scope]:
    """The commands with ``let`` expanded, and with named constants inlined (their
    definitions dropped) when ``inline_names``; the scope of the original commands."""
    scope = Scope.of(commands)
    env: dict[str, SExpr] = {}
    out: Commands = []
    for c in commands:
        if is_definition(c):
            body = expand(c[4], env)
            if inline_names:
                if c[3] == "Real" and scope.sort_of(body) == "Int":
                    body = ("to_real", body)
                env[unquoted(c[1])] = body
                continue
            c = (*c[:4], body)
        elif isinstance(c, tuple) and len(c) == 2 and c[0] == "assert":
            c = ("assert", expand(c[1], env))
        out.append(c)
    return out, scope


def inline(commands: Commands, max_tokens: int = MAX_TOKENS) -> Commands:
    out, _ = _expanded(commands, inline_names=True)
    size = tree_size([c for c in out if isinstance(c, tuple) and c[:1] == ("assert",)], max_tokens)
    if size > max_tokens:
        raise TooLarge(f"inlined, the asserts are over {max_tokens:,} tokens")
    return out


def name_shared(commands: Commands, max_tokens: int = MAX_TOKENS) -> Commands:
    out, scope = _expanded(commands, inline_names=True)
    namer = _SharedNames(scope, out)
    result: Commands = []
    for c in out:
        if isinstance(c, tuple) and c[:1] == ("assert",):
            c = ("assert", namer.written(c[1], result))
        result.append(c)
    return result


class _SharedNames:
    """Every application used more than once, named: applications equal as text are one
    (a key), used once per use by a distinct parent (the program as one shared structure)
    and once per assert."""

    def __init__(self, scope: Scope, commands: Commands):
        self.scope = scope
        self.names = scope.fresh("shared!")
        self.keys: dict[int, int] = {}  # id(application) -> its key
        self.table: dict[tuple, int] = {}  # (head, each operand's key or token) -> key
        self.uses: list[int] = []  # key -> uses
        self.sorts: list[str] = []  # key -> sort
        self.written_as: dict[int, SExpr] = {}  # key -> its name, or its text when used once
        self.alive: list[tuple] = []  # the keyed applications, so their ids stay theirs
        seen: set[int] = set()
        for c in commands:
            if isinstance(c, tuple) and c[:1] == ("assert",) and isinstance(c[1], tuple):
                for x in postorder(c[1], seen):
                    self._key(x)
                self.uses[self.keys[id(c[1])]] += 1

    def _key(self, x: tuple) -> None:
        operands = tuple(self.keys[id(a)] if isinstance(a, tuple) else a for a in x)  # keys: ints, tokens: str
        k = self.table.get(operands)
        if k is None:
            k = self.table[operands] = len(self.uses)
            self.uses.append(0)
            self.sorts.append(self.scope.sort_of(x))
            for a in x:
                if isinstance(a, tuple):
                    self.uses[self.keys[id(a)]] += 1
        self.keys[id(x)] = k
        self.alive.append(x)

    def written(self, e: SExpr, into: Commands) -> SExpr:
        """``e`` as written after the definitions it needs, which are appended to ``into``."""
        if isinstance(e, str):
            return e
        for x in postorder(e):
            k = self.keys[id(x)]
            if k in self.written_as:
                continue
            text = tuple(self.written_as[self.keys[id(a)]] if isinstance(a, tuple) else a for a in x)
            if self.uses[k] > 1:
                name = next(self.names)
                into.append(("define-fun", name, (), self.sorts[k], text))
                text = name
            self.written_as[k] = text
        return self.written_as[self.keys[id(e)]]


def chain(commands: Commands, max_tokens: int = MAX_TOKENS) -> Commands:
    expanded, scope = _expanded(commands, inline_names=False)
    names = scope.fresh("link!")
    out: Commands = []
    memo: dict[int, tuple[SExpr, SExpr]] = {}

    def linked(x: tuple) -> SExpr:
        if len(x) < 4 or x[0] not in ("+", "*"):
            return x
        acc = x[1]
        for operand in x[2:]:
            link = next(names)
            sort = "Real" if "Real" in (scope.sort_of(acc), scope.sort_of(operand)) else "Int"
            out.append(("define-fun", link, (), sort, (x[0], acc, operand)))
            scope.sorts[link] = sort
            acc = link
        return acc

    for c in expanded:
        if is_definition(c):
            c = (*c[:4], bottom_up(c[4], linked, memo))
        elif isinstance(c, tuple) and c[:1] == ("assert",):
            c = ("assert", bottom_up(c[1], linked, memo))
        out.append(c)
    return out


def reorder(commands: Commands, max_tokens: int = MAX_TOKENS) -> Commands:
    memo: dict[int, tuple[SExpr, SExpr]] = {}

    def reversed_operands(x: tuple) -> tuple:
        return (x[0], *reversed(x[1:])) if x and x[0] in ("+", "*") else x

    return [bottom_up(c, reversed_operands, memo) for c in commands]


def rename(commands: Commands, max_tokens: int = MAX_TOKENS) -> Commands:
    scope = Scope.of(commands)
    old = sorted(_bound_names(commands))
    stem = next(s for s in ("r", "renamed_", "renamed!") if not any(n.startswith(s) for n in scope.used))
    new = {name: f"{stem}{len(old) - i:06d}" for i, name in enumerate(old)}
    memo: dict[int, tuple[SExpr, SExpr]] = {}

    def operands(x: tuple) -> tuple:
        if not x:
            return x
        head = x[0]
        if isinstance(head, tuple):  # a let's bindings ((x e) ...) or a parameter list ((x Int) ...)
            return tuple((new.get(unquoted(b[0]), b[0]), *b[1:]) if isinstance(b, tuple) and b
                         and isinstance(b[0], str) else b for b in x)
        return (head, *(new.get(unquoted(a), a) if isinstance(a, str) else a for a in x[1:]))

    def expression(e: SExpr) -> SExpr:
        return new.get(unquoted(e), e) if isinstance(e, str) else bottom_up(e, operands, memo)

    return [_renamed_command(c, new, expression) for c in commands]


def _renamed_command(c: SExpr, new: dict[str, str], expression: Callable[[SExpr], SExpr]) -> SExpr:
    if not isinstance(c, tuple) or len(c) < 2:
        return c
    head = c[0]
    if head == "assert":
        return ("assert", expression(c[1]))
    if head in ("declare-const", "declare-fun") and isinstance(c[1], str):
        return (head, new.get(unquoted(c[1]), c[1]), *c[2:])
    if head == "define-fun" and len(c) == 5:
        name = new.get(unquoted(c[1]), c[1]) if c[2] == () else c[1]  # a function keeps its name
        return ("define-fun", name, expression(c[2]) if c[2] else (), c[3], expression(c[4]))
    if head == "set-info" and isinstance(c[1], str) and c[1].startswith(":example-"):
        name = unquoted(c[1][len(":example-"):])
        return (head, ":example-" + new.get(name, name), *c[2:])
    return c


def _bound_names(commands: Commands) -> set[str]:
    """Every name a program binds to a value: declared and named constants, the parameters of
    its functions, its ``let`` variables."""
    names: set[str] = set()
    for c in commands:
        if not isinstance(c, tuple) or len(c) < 3:
            continue
        if c[0] in ("declare-const", "declare-fun", "define-fun") and (c[0] == "declare-const" or c[2] == ()):
            names.add(unquoted(c[1]))
        if c[0] == "define-fun" and c[2]:
            names.update(unquoted(p[0]) for p in c[2])
        stack = list(c[1:])
        while stack:
            x = stack.pop()
            if isinstance(x, tuple) and x:
                if x[0] == "let" and len(x) == 3:
                    names.update(unquoted(b[0]) for b in x[1])
                stack.extend(x)
    return names


REWRITES: dict[str, TextRewrite] = {r.name: r for r in (
    TextRewrite("inline", "every named constant replaced by its body", inline),
    TextRewrite("name-shared", "every application used more than once named by a define-fun", name_shared),
    TextRewrite("chain", "sums and products of 3+ operands as chains of named two-operand links", chain),
    TextRewrite("reorder", "the operands of every + and * reversed", reorder),
    TextRewrite("rename", "every constant, let variable and parameter renamed", rename),
    TextRewrite("sympy", "each assert through sympy and back (readers/sympy_bridge.py)", sympy_trip.round_trip),
)}
