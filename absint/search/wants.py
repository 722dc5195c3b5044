"""Reading a *want* (``output0_size0 == 8``, or ``(= output0_size0 8)``) in a program's scope.

A want names the program's symbols and its ``define-fun`` intermediates (outputs
included), which the reader knows only while it reads the file. So a want is read
*with* the file: its SMT-LIB text is appended as one more ``(assert ...)`` and the
whole is parsed once, by the one reader the project has (no second grammar, no second
meaning). An infix want is first translated to SMT-LIB text from Python's own parse of
it (``ast``); the spelling is the one :func:`absint.lang.printer.to_infix` writes:
``//`` and ``%`` are SMT-LIB's Euclidean ``div`` and ``mod`` (Python's for a positive
divisor), ``/`` is exact division, ``**`` a power, ``min``/``max``/``floor``/``ceil``/
``to_real``/``ite``/``div``/``mod`` calls.

Which syntax: text that Python parses as an expression is infix; otherwise text that
starts with ``(`` (or is one token) is SMT-LIB, and anything else an infix syntax error. Text valid in both (``x``, ``(not b)``, ``(- x)``) means the same in both.
"""

from __future__ import annotations

import ast

import attrs

from absint.lang.program import Fact, Program
from absint.lang.printer import symbol
from absint.readers.smtlib import SmtLibError, parse, parse_bytes


class WantError(ValueError):
    """A want that cannot be read: its syntax (``column`` from 1), before any file."""

    def __init__(self, want: str, message: str, column: int | None = None):
        where = f" at column {column}" if column is not None else ""
        super().__init__(f"--want {want!r}: {message}{where}")
        self.want = want
        self.message = message
        self.column = column


_COMPARE = {ast.Eq: "=", ast.NotEq: "distinct", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "div", ast.Mod: "mod", ast.Div: "/",
           ast.Pow: "^"}
#: calls an infix want may make: name -> (arity, SMT-LIB text over the operands {0}, {1}, ...)
_CALLS = {
    "div": (2, "(div {0} {1})"), "mod": (2, "(mod {0} {1})"),
    "min": (2, "(ite (< {0} {1}) {0} {1})"), "max": (2, "(ite (> {0} {1}) {0} {1})"),
    "floor": (1, "(to_int {0})"), "ceil": (1, "(- (to_int (- {0})))"),
    "to_real": (1, "(to_real {0})"), "ite": (3, "(ite {0} {1} {2})"),
    "Eq": (2, "(= {0} {1})"), "Ne": (2, "(distinct {0} {1})"),
}


def to_smtlib_text(want: str) -> str:
    """The want as SMT-LIB text: infix translated, SMT-LIB returned as written.
    Raises :class:`WantError` for an empty want or unsupported infix."""
    text = want.strip()
    if not text:
        raise WantError(want, "empty want")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as e:
        if text.startswith("(") or len(text.split()) == 1:
            return text  # SMT-LIB, which the reader checks with the file
        raise WantError(want, f"invalid infix syntax ({e.msg})", e.offset or None) from None
    return _Infix(want).text(tree.body)


class _Infix:
    """Python's parse of an infix want -> SMT-LIB text."""

    def __init__(self, want: str):
        self.want = want

    def fail(self, node: ast.AST, message: str) -> None:
        raise WantError(self.want, message, getattr(node, "col_offset", -1) + 1)

    def text(self, node: ast.AST) -> str:
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.BoolOp):
            op = "and" if isinstance(node.op, ast.And) else "or"
            return f"({op} {' '.join(self.text(v) for v in node.values)})"
        if isinstance(node, ast.UnaryOp):
            return self.unary(node)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return f"({_BINARY[type(node.op)]} {self.text(node.left)} {self.text(node.right)})"
        if isinstance(node, ast.Name):
            return symbol(node.id)
        if isinstance(node, ast.Constant):
            return self.constant(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        self.fail(node, f"unsupported infix syntax ({type(node).__name__})")

    def compare(self, node: ast.Compare) -> str:
        operands = [node.left, *node.comparators]
        parts = []
        for op, a, b in zip(node.ops, operands, operands[1:]):
            spelling = _COMPARE.get(type(op))
            if spelling is None:
                self.fail(node, f"unsupported comparison {type(op).__name__}")
            parts.append(f"({spelling} {self.text(a)} {self.text(b)})")
        return parts[0] if len(parts) == 1 else f"(and {' '.join(parts)})"

    def unary(self, node: ast.UnaryOp) -> str:
        operand = self.text(node.operand)
        if isinstance(node.op, ast.Not):
            return f"(not {operand})"
        if isinstance(node.op, ast.USub):
            return f"(- {operand})"
        if isinstance(node.op, ast.UAdd):
            return operand
        self.fail(node, "unsupported operator ~")

    def constant(self, node: ast.Constant) -> str:
        v = node.value
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return str(v)
        self.fail(node, f"only integers and true/false are constants here, not {v!r}")

    def call(self, node: ast.Call) -> str:
        name = node.func.id if isinstance(node.func, ast.Name) else None
        spec = _CALLS.get(name)
        if spec is None or node.keywords:
            self.fail(node, f"unknown function {name or '?'}; known: {', '.join(sorted(_CALLS))}")
        arity, pattern = spec
        if len(node.args) != arity:
            self.fail(node, f"{name} takes {arity} argument(s), got {len(node.args)}")
        return pattern.format(*(self.text(a) for a in node.args))


class WantNotRead(Exception):
    """A want the reader refused in one file's scope (a name the file does not define, a
    sort error): the user's error, reported for that file alone."""

    def __init__(self, file: str, index: int, want: str, message: str, column: int | None):
        where = f" (column {column})" if column else ""
        super().__init__(f"{file}: --want {index + 1} {want!r}: {message}{where}")
        self.index = index


@attrs.frozen(slots=True, eq=False)
class ProgramWithWants:
    """A program and its wants, read together: ``wants[i]`` is want ``i`` as a fact."""

    program: Program
    wants: tuple[Fact, ...]


_PREFIX = "(assert "


def read_with_wants(data: bytes, wants: list[str], name: str) -> ProgramWithWants:
    """Parse a file's bytes with the wants appended as asserts, each on two lines of its own;
    the program keeps only the file's own asserts. The file's errors are
    :class:`SmtLibError` (``FILE:LINE:COLUMN``); a want's, :class:`WantNotRead`."""
    texts = [" ".join(to_smtlib_text(w).splitlines()) for w in wants]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        parse_bytes(data, name)  # raises the positioned error
        raise
    lines = text.count("\n") + 1
    try:
        whole = parse(text + "".join(f"\n{_PREFIX}{t}\n)" for t in texts), name)
    except SmtLibError as e:
        if e.position.line <= lines:
            raise
        parse(text, name)  # a file that ends badly is the file's error, not the want's
        k = min((e.position.line - lines - 1) // 2, len(wants) - 1)
        first_line = (e.position.line - lines) % 2 == 1
        column = e.position.column - len(_PREFIX) if first_line and e.position.column > len(_PREFIX) else None
        if texts[k] != wants[k].strip():  # an infix want: a column in its translation would mislead
            column = None
        raise WantNotRead(name, k, wants[k], e.message, column) from None
    n = len(whole.facts) - len(texts)
    return ProgramWithWants(attrs.evolve(whole, facts=whole.facts[:n]), whole.facts[n:])
