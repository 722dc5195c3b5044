"""Terms back to text: SMT-LIB for messages, reports and files other tools read, and a
readable infix form (``s0*s1 - 1``, ``(s0 + 1) // 2``) for people.

Both are driven by the operator table (:mod:`absint.lang.ops`): a kind's SMT-LIB
spelling and its infix style come from its row. Printing walks the DAG bottom-up over
its distinct sub-terms, so deep terms print without recursion.
"""

from __future__ import annotations

from fractions import Fraction

from absint.lang.dag import Node, subterms
from absint.lang.kinds import CONST, DEF, FN, LIN, MAX, MIN, NOT, VAR
from absint.lang.numerals import int_text
from absint.lang.ops import ATOM, COMPARE, DIVMOD, OPS, POWER, PRODUCT, SUM

_Text = tuple[str, int]  # rendered text and how tightly it binds


def number(v: object, real: bool = False) -> str:
    """A numeral in SMT-LIB syntax (a Real one with a decimal point); negative as ``(- n)``."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Fraction) or real:
        f = Fraction(v)
        num = int_text(abs(f.numerator))
        body = f"{num}.0" if f.denominator == 1 else f"(/ {num}.0 {int_text(f.denominator)}.0)"
        return f"(- {body})" if f < 0 else body
    return f"(- {int_text(-v)})" if v < 0 else int_text(v)


def symbol(name: str) -> str:
    """A symbol as SMT-LIB reads it back: quoted with ``|...|`` when it needs to be."""
    simple = bool(name) and not any(ch in name for ch in " ()|;\"'\t\n") and not name[0].isdigit()
    return name if simple else f"|{name}|"


# ---------------------------------------------------------------- SMT-LIB


#: a term whose tree has more nodes than this (and many times its distinct sub-terms) is
#: printed with ``let`` for its shared sub-terms, so the text stays the size of the DAG
LET_THRESHOLD = 2000


def to_smtlib(t: Node, limit: int | None = None) -> str:
    """``t`` as one SMT-LIB expression; with ``limit``, at most about that many characters
    (then ``...``), for messages: their cost is bounded by the limit, not by the term."""
    if limit is None and _tree_size(t, LET_THRESHOLD) > LET_THRESHOLD:
        return _with_lets(t)
    return _render(t, {}, limit)


def brief(t: Node, limit: int = 160) -> str:
    """``t`` for a message: its SMT-LIB text, cut after about ``limit`` characters."""
    return to_smtlib(t, limit)


def brief_infix(t: Node, limit: int = 160) -> str:
    """``t`` for a person: its infix text (:func:`to_infix`), cut at ``limit`` characters (a
    guard over a thousand-term sum)."""
    text = to_infix(t)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _render(t: Node, names: dict[int, str], limit: int | None) -> str:
    out: list[str] = []
    size = 0
    stack: list[str | Node] = [t]
    while stack:
        piece = stack.pop()
        if isinstance(piece, str):
            out.append(piece)
            size += len(piece)
            if limit is not None and size > limit:
                return "".join(out)[:limit] + "..."
        elif piece.id in names and piece is not t:
            stack.append(names[piece.id])
        else:
            stack.extend(reversed(_pieces(piece)))
    return "".join(out)


def _tree_size(t: Node, cap: int) -> int:
    """Nodes of ``t`` counted as a tree (shared sub-terms once per use), capped at ``cap + 1``."""
    size: dict[int, int] = {}
    for s in subterms(t):
        size[s.id] = min(cap + 1, 1 + sum(size[a.id] for a in s.args))
    return size[t.id]


def _with_lets(t: Node) -> str:
    """``(let ((@t1 e1)) (let ((@t2 e2)) ... body))``: each sub-term used more than once is
    printed once, under a name SMT-LIB reserves for tools (``@``), children before parents."""
    uses: dict[int, int] = {}
    order = subterms(t)
    for s in order:
        for a in s.args:
            uses[a.id] = uses.get(a.id, 0) + 1
    names: dict[int, str] = {}
    bindings = []
    for s in order:
        if uses.get(s.id, 0) > 1 and s.args and s is not t:
            bindings.append(f"(let ((@t{len(names) + 1} {_render(s, names, None)})) ")
            names[s.id] = f"@t{len(names) + 1}"
    return "".join(bindings) + _render(t, names, None) + ")" * len(bindings)


def _pieces(t: Node) -> list[str | Node]:
    """The text of ``t`` as strings and sub-terms still to render, in order."""
    k = t.kind
    if k == CONST:
        return [number(t.data, t.sort.real)]
    if k == VAR:
        return [symbol(t.data)]
    if k == DEF:  # a named sum is its definition: printed as it, so the text means the same
        return [t.args[0]]
    if k in (MIN, MAX) and t.sort.real:  # the prelude's min2/max2 are Int: a Real one as its ite
        a, b = t.args
        return ["(ite (" + ("<" if k == MIN else ">") + " ", a, " ", b, ") ", a, " ", b, ")"]
    spelling = OPS[k].smtlib if k != FN else symbol(t.data)
    if k == LIN:
        return _sum_pieces(t, spelling)
    if OPS[k].infix.style == "compare":
        x = t.args[0]
        return [f"({spelling} ", x, f" {number(0, x.sort.real)})"]
    out: list[str | Node] = ["(" + spelling]
    for a in t.args:
        out += [" ", a]
    out.append(")")
    return out


def _sum_pieces(t: Node, spelling: str) -> list[str | Node]:
    coefs, c = t.data
    parts: list[list[str | Node]] = [[a] if v == 1 else [f"(* {number(v, t.sort.real)} ", a, ")"]
                                     for a, v in zip(t.args, coefs)]
    if c != 0:
        parts.append([number(c, t.sort.real)])
    if len(parts) == 1:
        return parts[0]
    out: list[str | Node] = ["(" + spelling]
    for part in parts:
        out.append(" ")
        out.extend(part)
    out.append(")")
    return out


# ---------------------------------------------------------------- readable infix


def to_infix(t: Node) -> str:
    """Render ``t`` readably, in Python's operator syntax: ``s0*s1 - 2*u0 + 1``, ``(s0 + 1) // 2``.

    ``//`` and ``%`` are written only for a positive constant divisor, where SMT-LIB's
    Euclidean ``div``/``mod`` agree with Python's; any other divisor is written
    ``div(x, y)`` / ``mod(x, y)`` (Euclidean). ``to_int`` is ``floor``; ``ceil``, ``min``,
    ``max``, ``to_real`` and ``ite(c, a, b)`` are functions. Not through sympy, whose
    constructors rewrite what they are given.
    """
    done: dict[int, _Text] = {}
    for s in subterms(t):
        done[s.id] = _INFIX[OPS[s.kind].infix.style](s, [done[a.id] for a in s.args], done)
    return done[t.id][0]


def _wrap(text: _Text, at_least: int) -> str:
    return text[0] if text[1] >= at_least else f"({text[0]})"


def _infix_number(v: object) -> _Text:
    if isinstance(v, bool):
        return ("true" if v else "false"), ATOM
    if isinstance(v, Fraction) and v.denominator != 1:
        return f"{int_text(v.numerator)}/{int_text(v.denominator)}", DIVMOD  # 3/2 is a quotient: (3/2)*x
    n = int(v)
    return int_text(n), (ATOM if n >= 0 else SUM)


def _infix_sum(parts: list[tuple[object, _Text]], c: object) -> _Text:
    """``sum k*a + c`` as ``a + 2*b - d - 3``: positive terms first, the constant last."""
    ordered = [p for p in parts if p[0] > 0] + [p for p in parts if p[0] < 0]
    out: list[str] = []
    prec = ATOM
    for k, atom in ordered:
        mag = abs(k)
        if mag == 1:
            body, prec = _wrap(atom, PRODUCT), max(min(atom[1], ATOM), PRODUCT)
        else:
            body, prec = f"{_wrap(_infix_number(mag), POWER)}*{_wrap(atom, PRODUCT)}", PRODUCT
        if out:
            out.append(f" + {body}" if k > 0 else f" - {body}")
        else:
            out.append(body if k > 0 else f"-{body}")
    if c != 0 or not out:
        text, prec = _infix_number(abs(c) if out else c)
        out.append(text if len(out) == 0 else (f" + {text}" if c > 0 else f" - {text}"))
    if len(out) > 1 or out[0].startswith("-"):
        prec = SUM
    return "".join(out), prec


def _linear_parts(x: Node, done: dict[int, _Text]) -> tuple[list[tuple[object, _Text]], object]:
    if x.kind == LIN:
        coefs, c = x.data
        return list(zip(coefs, (done[a.id] for a in x.args))), c
    if x.kind == CONST:
        return [], x.data
    return [(1, done[x.id])], 0


def _compare(t: Node, args: list[_Text], done: dict[int, _Text]) -> _Text:
    parts, c = _linear_parts(t.args[0], done)  # the comparison is x <op> 0
    pos = [(k, a) for k, a in parts if k > 0]
    neg = [(-k, a) for k, a in parts if k < 0]
    # sum(pos) - sum(neg) + c <op> 0  <=>  sum(pos) <op> sum(neg) - c
    left = _infix_sum(pos, 0)[0] if pos else "0"
    return f"{left} {OPS[t.kind].infix.symbol} {_infix_sum(neg, -c)[0]}", COMPARE


def _divmod(t: Node, args: list[_Text], done) -> _Text:
    d = t.args[1]
    if d.kind == CONST and d.data > 0:
        return f"{_wrap(args[0], DIVMOD)} {OPS[t.kind].infix.symbol} {_wrap(args[1], POWER)}", DIVMOD
    return f"{t.kind}({args[0][0]}, {args[1][0]})", ATOM


def _binary(t: Node, args: list[_Text], done) -> _Text:
    """``a / b`` (left-associative: a quotient may stand left) or ``a**b`` (operands atomic)."""
    infix = OPS[t.kind].infix
    if infix.binds == POWER:
        return f"{_wrap(args[0], ATOM)}{infix.symbol}{_wrap(args[1], ATOM)}", POWER
    return f"{_wrap(args[0], infix.binds)} {infix.symbol} {_wrap(args[1], POWER)}", infix.binds


def _junction(t: Node, args: list[_Text], done) -> _Text:
    infix = OPS[t.kind].infix
    return f" {infix.symbol} ".join(_wrap(a, infix.binds + 1) for a in args), infix.binds


_INFIX = {
    "number": lambda t, args, done: _infix_number(t.data),
    "name": lambda t, args, done: (t.data, ATOM),
    "sum": lambda t, args, done: _infix_sum(list(zip(t.data[0], args)), t.data[1]),
    "product": lambda t, args, done: ("*".join(_wrap(a, PRODUCT) for a in args), PRODUCT),
    "divmod": _divmod,
    "binary": _binary,
    "call": lambda t, args, done: (f"{OPS[t.kind].infix.symbol or t.data}({', '.join(a[0] for a in args)})", ATOM),
    "compare": _compare,
    "not": lambda t, args, done: (f"not {_wrap(args[0], OPS[NOT].infix.binds)}", OPS[NOT].infix.binds),
    "junction": _junction,
    "definition": lambda t, args, done: args[0],  # a named sum reads as its definition
}
