"""SMT-LIB 2 reader for shape programs: text -> :class:`Program`.

One regex pass tokenizes the file (no per-character loop); a recursive-descent
parser over the token list builds interned terms directly. Every problem is an
:class:`SmtLibError` whose text is ``file:line:column: what was expected``.
"""

from __future__ import annotations

import os
import re
from fractions import Fraction
from typing import Callable

from absint.lang import terms as T
from absint.lang.numerals import brief, parse_decimal, parse_int
from absint.lang.ops import OPS, Op
from absint.lang.program import Fact, Position, Program, Source, Symbol
from absint.lang.sorts import SORTS
from absint.lang.terms import BOOL, INT, REAL, Sort, Term

TOKEN = re.compile(r'[()]|[^\s()|";]+|\|[^|]*\||"(?:[^"]|"")*"|[|"]')
_COMMENT = re.compile(r'"(?:[^"]|"")*"|\|[^|]*\||;[^\n]*')
_INT = re.compile(r"-?[0-9]+")  # a leading '-' is Z3's extension, used by the corpus
_DEC = re.compile(r"-?[0-9]+\.[0-9]+")
_OUTPUT = re.compile(r"output\d+_")
#: messages name a position; what they quote of the file is cut to stay readable
MAX_MESSAGE = 300


class SmtLibError(Exception):
    """A malformed shape program; ``str(err)`` is ``file:line:column: message``."""

    def __init__(self, position: Position, message: str):
        super().__init__(f"{position}: {message}")
        self.position = position
        self.message = message


class _Fail(Exception):
    """Internal: a message and a token index, turned into a position once, at the top."""

    def __init__(self, token: int, message: str):
        self.token = token
        self.message = message


def read_file(path: str | os.PathLike[str]) -> Program:
    """Read and parse one ``.smt2`` file."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    return parse_bytes(data, os.path.basename(path))


def parse_bytes(data: bytes, name: str = "<input>") -> Program:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        # in characters, like every other position (the bytes before e.start are valid UTF-8)
        col = len(data[data.rfind(b"\n", 0, e.start) + 1:e.start].decode("utf-8")) + 1
        raise SmtLibError(Position(name, line, col), "invalid UTF-8 byte; expected UTF-8 text") from None
    return parse(text, name)


def parse(text: str, name: str = "<input>") -> Program:
    """Parse SMT-LIB text; ``name`` is used in positions and as the program's name."""
    return parse_with_definitions(text, name)[0]


def parse_with_definitions(text: str, name: str = "<input>") -> tuple[Program, dict[str, Term]]:
    """The program and its named constants (``(define-fun NAME () Sort EXPR)``, in order):
    ``absint validate`` reads its ``source<k>``/``target<k>`` pairs from them."""
    if ";" in text:
        text = _COMMENT.sub(lambda m: m.group() if m.group()[0] != ";" else " " * len(m.group()), text)
    source = Source(name, text, TOKEN)
    reader = _Reader(TOKEN.findall(text), source)
    try:
        return reader.program(), reader.consts
    except _Fail as f:
        raise SmtLibError(source.position(f.token), f.message) from None
    except IndexError:
        raise SmtLibError(source.position(len(reader.toks)), "unexpected end of file; expected ')'") from None
    except RecursionError:
        raise SmtLibError(source.position(reader.i), "expression nested too deeply") from None


class _Macro:
    __slots__ = ("name", "params", "sort", "start")

    def __init__(self, name: str, params: list[tuple[str, Sort]], sort: Sort, start: int):
        self.name, self.params, self.sort, self.start = name, params, sort, start


def _unquote(tok: str) -> str:
    return tok[1:-1] if tok[0] == "|" else tok


class _Reader:
    def __init__(self, toks: list[str], source: Source):
        self.toks = toks
        self.n = len(toks)
        self.source = source
        self.i = 0
        self.consts: dict[str, Term] = {}
        self.macros: dict[str, _Macro] = {}
        self.scope: dict[str, Term] = {}
        self.symbols: dict[str, tuple[Sort, Term]] = {}
        self.hints: dict[str, tuple[str, int]] = {}
        self.facts: list[Fact] = []
        self.outputs: list[tuple[str, Term]] = []
        self.expanded: dict[tuple, Term] = {}
        self.functions: dict[str, int] = {}  # opaque functions declared: name -> arity

    # ------------------------------------------------------------ token helpers

    def fail(self, message: str, token: int | None = None) -> None:
        if len(message) > MAX_MESSAGE:  # a token can be long (a stray '|' swallows the file)
            message = message[:MAX_MESSAGE - 3] + "..."
        raise _Fail(self.i if token is None else token, message)

    def tok(self) -> str:
        if self.i >= self.n:
            self.fail("unexpected end of file; expected ')'")
        return self.toks[self.i]

    def expect(self, what: str) -> None:
        t = self.tok()
        if t != what:
            self.fail(f"expected '{what}', found '{t}'")
        self.i += 1

    def symbol_token(self, what: str) -> str:
        t = self.tok()
        if t in ("(", ")") or t[0] in '"' or _INT.fullmatch(t) or _DEC.fullmatch(t) or t[0] == ":":
            self.fail(f"expected {what}, found '{t}'")
        if t in ("|", '"'):
            self.fail("unterminated quoted symbol or string")
        self.i += 1
        return _unquote(t)

    def sort_token(self) -> Sort:
        t = self.tok()
        s = SORTS.get(t)
        if s is None:
            self.fail(f"expected a sort (Int, Real or Bool), found '{t}'")
        self.i += 1
        return s

    def skip_sexpr(self) -> None:
        t = self.tok()
        self.i += 1
        if t == ")":
            self.fail("unexpected ')'", self.i - 1)
        if t != "(":
            return
        depth = 1
        toks, i, n = self.toks, self.i, self.n
        while depth:
            if i >= n:
                self.i = i
                self.fail("unexpected end of file; expected ')'")
            t = toks[i]
            if t == "(":
                depth += 1
            elif t == ")":
                depth -= 1
            i += 1
        self.i = i

    # ------------------------------------------------------------ commands

    def program(self) -> Program:
        toks = self.toks
        while self.i < self.n:
            if toks[self.i] != "(":
                self.fail(f"expected '(' to start a command, found '{toks[self.i]}'")
            start = self.i
            self.i += 1
            cmd = self.tok()
            handler = self.COMMANDS.get(cmd)
            if handler is None:
                self.fail(f"unsupported command '{cmd}'")
            self.i += 1
            handler(self, start)
            if toks[self.i] != ")":
                self.fail(f"expected ')' to end the command, found '{toks[self.i]}'")
            self.i += 1
        return self.finish()

    def finish(self) -> Program:
        for name, (value, token) in self.hints.items():
            if name not in self.symbols:
                self.fail(f"example value for undeclared symbol '{name}'", token)
        symbols = []
        for name, (sort, term) in self.symbols.items():
            hint = None
            if name in self.hints:
                hint = self.hint_value(name, sort, *self.hints[name])
            symbols.append(Symbol(name, sort, hint, term))
        return Program(self.source.name, tuple(symbols), tuple(self.facts), tuple(self.outputs))

    def hint_value(self, name: str, sort: Sort, value: object, token: int):
        if sort is BOOL:
            if isinstance(value, bool):
                return value
        elif not isinstance(value, bool):
            if sort is REAL:
                return Fraction(value)
            if Fraction(value).denominator == 1:
                return int(value)
        self.fail(f"example value {brief(value)} does not fit the sort {sort.value} of '{name}'", token)

    def cmd_ignore(self, start: int) -> None:
        while self.tok() != ")":
            self.skip_sexpr()

    def cmd_set_info(self, start: int) -> None:
        key = self.tok()
        if not key.startswith(":"):
            self.fail(f"expected a keyword such as ':example-NAME', found '{key}'")
        self.i += 1
        if key.startswith(":example-"):
            token = self.i
            self.hints[_unquote(key[len(":example-"):])] = (self.literal_value(), token)
        while self.tok() != ")":
            self.skip_sexpr()

    def literal_value(self):
        t = self.tok()
        if t == "(":
            self.i += 1
            if self.tok() != "-":
                self.fail(f"expected a number, found '{self.tok()}'")
            self.i += 1
            v = self.literal_value()
            self.expect(")")
            if isinstance(v, bool):
                self.fail("expected a number")
            return -v
        self.i += 1
        if _INT.fullmatch(t):
            return parse_int(t)
        if _DEC.fullmatch(t):
            return parse_decimal(t)
        if t in ("true", "false"):
            return t == "true"
        self.fail(f"expected a literal value, found '{t}'", self.i - 1)

    def not_reserved(self, name: str, token: int, function: bool = False) -> None:
        """SMT-LIB's reserved words, and as a function its operators, cannot be redefined
        (Z3 refuses too): a redefined ``+`` would change the meaning of the rest of the file.
        A constant may share an operator's name (PyTorch writes ``(define-fun mod () Int ...)``):
        it is read where an operand stands, the operator only at the head of an application."""
        if name in RESERVED or (function and name in _BUILTINS):
            self.fail(f"'{name}' is a builtin name of SMT-LIB and cannot be redefined", token)

    def declare(self, name: str, sort: Sort, token: int) -> None:
        self.not_reserved(name, token)
        if name in self.consts or name in self.symbols:
            self.fail(f"'{name}' is already defined", token)
        v = T.var(name, sort)
        self.symbols[name] = (sort, v)
        self.consts[name] = v

    def cmd_declare_const(self, start: int) -> None:
        token = self.i
        name = self.symbol_token("a symbol name")
        self.declare(name, self.sort_token(), token)

    def cmd_declare_fun(self, start: int) -> None:
        token = self.i
        name = self.symbol_token("a symbol name")
        self.expect("(")
        params = []
        while self.tok() != ")":
            params.append(self.sort_token())
        self.i += 1
        sort = self.sort_token()
        if not params:
            self.declare(name, sort, token)
            return
        self.not_reserved(name, token, function=True)
        if sort is not REAL or BOOL in params or name in self.macros or name in self.functions:
            self.fail(f"'{name}': only a new opaque function of numbers to Real can be declared "
                      "(as PyTorch's OpaqueUnaryFn_*)", token)
        self.functions[name] = len(params)

    def cmd_define_fun(self, start: int) -> None:
        toks, i = self.toks, self.i
        name = toks[i]
        sort = SORTS.get(toks[i + 3]) if i + 3 < self.n else None
        if toks[i + 1] == "(" and toks[i + 2] == ")" and sort is not None and name not in self.consts \
                and name[0] not in '()|":-0123456789' and name not in RESERVED:
            # the common case: a named intermediate, `(define-fun NAME () Sort EXPR)`
            self.i = i + 4
            body = self.expr()
            if body.sort is not sort:
                body = self.coerce(body, sort, i + 4, f"the body of '{name}'")
            self.consts[name] = body = T.name_long(name, body)
            if name[0] == "o" and _OUTPUT.match(name):
                self.outputs.append((name, body))
            return
        token = self.i
        name = self.symbol_token("a function name")
        self.expect("(")
        self.not_reserved(name, token, function=self.tok() != ")")
        params: list[tuple[str, Sort]] = []
        while self.tok() != ")":
            self.expect("(")
            pname = self.symbol_token("a parameter name")
            params.append((pname, self.sort_token()))
            self.expect(")")
        self.i += 1
        sort = self.sort_token()
        if params:
            if name in self.macros:
                self.fail(f"function '{name}' is already defined", token)
            macro = _Macro(name, params, sort, self.i)
            # check the body once, with placeholder arguments
            self.apply_macro(macro, [T.var(f"{name}.{p}", s) for p, s in params], token)
            self.macros[name] = macro
            self.skip_sexpr()
            return
        if name in self.consts:
            self.fail(f"'{name}' is already defined", token)
        body_token = self.i
        body = self.coerce(self.expr(), sort, body_token, f"the body of '{name}'")
        self.consts[name] = body = T.name_long(name, body)
        if _OUTPUT.match(name):
            self.outputs.append((name, body))

    def cmd_assert(self, start: int) -> None:
        token = self.i
        t = self.expr()
        if t.sort is not BOOL:
            self.fail(f"sort error: assert expects a Bool term, got {t.sort.value}", token)
        self.facts.append(Fact(t, len(self.facts), self.source, start))

    COMMANDS: dict[str, Callable[["_Reader", int], None]] = {
        "set-option": cmd_ignore,
        "set-logic": cmd_ignore,
        "set-info": cmd_set_info,
        "declare-const": cmd_declare_const,
        "declare-fun": cmd_declare_fun,
        "define-fun": cmd_define_fun,
        "assert": cmd_assert,
        "check-sat": cmd_ignore,
        "get-value": cmd_ignore,
        "get-model": cmd_ignore,
        "exit": cmd_ignore,
    }

    # ------------------------------------------------------------ expressions

    def coerce(self, t: Term, sort: Sort, token: int, what: str) -> Term:
        if t.sort is sort:
            return t
        if sort is REAL and t.sort is INT:
            return T.to_real(t)
        self.fail(f"sort error: {what} should be {sort.value}, got {t.sort.value}", token)

    def expr(self) -> Term:
        """One expression starting at ``self.i``; an IndexError means the file ended early."""
        toks = self.toks
        i = self.i
        t = toks[i]
        if t != "(":
            self.i = i + 1
            if not self.scope:
                v = self.consts.get(t)
                if v is not None:
                    return v
            return self.atom(t, i)
        head = toks[i + 1]
        if head == "(" or head == ")":
            self.fail(f"expected an operator, found '{head}'", i + 1)
        if head == "let":
            self.i = i + 2
            return self.let(i)
        self.i = i + 2
        args = []
        while toks[self.i] != ")":
            args.append(self.expr())
        self.i += 1
        return self.apply(head if head[0] != "|" else _unquote(head), args, i + 1)

    def atom(self, t: str, token: int) -> Term:
        if self.scope:
            v = self.scope.get(t)
            if v is not None:
                return v
        v = self.consts.get(t)
        if v is not None:
            return v
        c = t[0]
        if "0" <= c <= "9" or (c == "-" and len(t) > 1 and "0" <= t[1] <= "9"):
            if _INT.fullmatch(t):
                return T.const(parse_int(t))
            if _DEC.fullmatch(t):
                return T.const(parse_decimal(t), REAL)
            self.fail(f"malformed number '{t}'", token)
        if t == "true":
            return T.TRUE
        if t == "false":
            return T.FALSE
        if c == "|":
            if len(t) == 1:
                self.fail("unterminated quoted symbol", token)
            return self.atom(t[1:-1], token) if len(t) > 2 else self.fail("empty quoted symbol", token)
        if c == '"':
            self.fail("unterminated string" if len(t) == 1 else "expected an expression, found a string", token)
        if t == ")":
            self.fail("unexpected ')'; expected an expression", token)
        if t in self.macros:
            self.fail(f"function '{t}' needs arguments", token)
        self.fail(f"undefined name '{t}'", token)

    def let(self, start: int) -> Term:
        self.expect("(")
        bindings = {}
        while self.tok() != ")":
            self.expect("(")
            name = self.symbol_token("a variable name")
            bindings[name] = self.expr()
            self.expect(")")
        self.i += 1
        saved = self.scope
        self.scope = {**saved, **bindings}
        try:
            body = self.expr()
        finally:
            self.scope = saved
        self.expect(")")
        return body

    def apply_macro(self, macro: _Macro, args: list[Term], token: int) -> Term:
        """The body of ``macro`` over ``args``; each distinct application is expanded once
        (terms are interned, so the same arguments give the same body): a macro that calls
        another twice costs twice, not twice per level."""
        key = (macro.name, tuple(args))
        done = self.expanded.get(key)
        if done is None:
            done = self.expanded[key] = self._expand(macro, args, token)
        return done

    def _expand(self, macro: _Macro, args: list[Term], token: int) -> Term:
        if len(args) != len(macro.params):
            self.fail(f"'{macro.name}' takes {len(macro.params)} arguments, got {len(args)}", token)
        scope = {}
        for (p, s), a in zip(macro.params, args):
            scope[p] = self.coerce(a, s, token, f"argument '{p}' of '{macro.name}'")
        saved_scope, saved_i = self.scope, self.i
        self.scope, self.i = scope, macro.start
        try:
            body = self.expr()
        finally:
            self.scope, self.i = saved_scope, saved_i
        return self.coerce(body, macro.sort, token, f"the result of '{macro.name}'")

    def apply_function(self, name: str, args: list[Term], token: int) -> Term:
        if len(args) != self.functions[name]:
            self.fail(f"'{name}' takes {self.functions[name]} argument(s), got {len(args)}", token)
        if any(a.sort is BOOL for a in args):
            self.fail(f"sort error in '{name}': expected numbers, got Bool", token)
        return T.apply(name, *args)

    def apply(self, op: str, args: list[Term], token: int) -> Term:
        macro = self.macros.get(op)
        if macro is not None:
            return self.apply_macro(macro, args, token)
        if op in self.functions:
            return self.apply_function(op, args, token)
        spec = _BUILTINS.get(op)
        if spec is None:
            self.fail(f"unknown operator '{op}'", token)
        arity, build = spec
        n = len(args)
        if n < arity[0] or (arity[1] is not None and n > arity[1]):
            want = str(arity[0]) if arity[0] == arity[1] else f"at least {arity[0]}"
            self.fail(f"'{op}' takes {want} argument(s), got {n}", token)
        try:
            return build(args)
        except (TypeError, ValueError) as e:
            self.fail(f"sort error in '{op}': {e}", token)


def _chain(build: Callable[[Term, Term], Term]) -> Callable[[list[Term]], Term]:
    def chained(args: list[Term]) -> Term:
        if len(args) == 2:
            return build(args[0], args[1])
        return T.and_(*(build(a, b) for a, b in zip(args, args[1:])))

    return chained


def _fold(build: Callable[[Term, Term], Term]) -> Callable[[list[Term]], Term]:
    def folded(args: list[Term]) -> Term:
        out = args[0]
        for a in args[1:]:
            out = build(out, a)
        return out

    return folded


def _numeric(build: Callable[[list[Term]], Term]) -> Callable[[list[Term]], Term]:
    def checked(args: list[Term]) -> Term:
        for a in args:
            if a.sort is BOOL:
                raise TypeError("expected a numeric argument, got Bool")
        return build(args)

    return checked


def _reading(op: Op) -> tuple[tuple[int, int | None], Callable[[list[Term]], Term]]:
    """How an application of ``op``'s SMT-LIB spelling combines its operands (its row's
    ``reading``): n-ary, a chain of comparisons, a left fold, or its own fixed arity."""
    build = getattr(T, op.constructor)
    if op.reading == "nary":
        return (1, None), lambda a: build(*a)
    if op.reading == "chain":
        return (2, None), _chain(build)
    if op.reading == "fold":
        return (2, None), _fold(build)
    return op.arity, lambda a: build(*a)


def _implies(args: list[Term]) -> Term:
    out = args[-1]
    for a in reversed(args[:-1]):
        out = T.implies(a, out)
    return out


#: words SMT-LIB reserves (beside the operators): no definition may take them
RESERVED = frozenset({"let", "true", "false", "forall", "exists", "!", "_", "as", "par", "NUMERAL",
                      "DECIMAL", "STRING", "Int", "Real", "Bool"})

#: operators SMT-LIB spells that are no kind of term: each is built from the kinds
_SUGAR: dict[str, tuple[tuple[int, int | None], Callable[[list[Term]], Term]]] = {
    "-": ((1, None), lambda a: T.sub(*a)),
    ">=": ((2, None), _chain(T.ge)),
    ">": ((2, None), _chain(T.gt)),
    "=>": ((2, None), _implies),
    "xor": ((2, None), _fold(T.xor)),
    "abs": ((1, 1), lambda a: T.maximum(a[0], T.neg(a[0]))),
}

#: arithmetic that also accepts Int and Real operands mixed: a Bool operand is a sort error
_NUMERIC = frozenset({"+", "-", "*", "/"})

#: every operator the reader knows: the operator table's spellings, then the sugar
_BUILTINS = {op.smtlib: _reading(op) for op in OPS.values() if op.reading is not None}
_BUILTINS.update(_SUGAR)
_BUILTINS = {name: (arity, _numeric(build) if name in _NUMERIC else build)
             for name, (arity, build) in _BUILTINS.items()}
