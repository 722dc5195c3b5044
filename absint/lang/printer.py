"""Terms back to SMT-LIB text: for messages, reports and files other tools read."""

from __future__ import annotations

from fractions import Fraction

from absint.lang.terms import INT, Term, subterms

_OPS = {
    "mul": "*", "div": "div", "mod": "mod", "to_int": "to_int", "to_real": "to_real",
    "rdiv": "/", "pow": "^", "ceil": "ceil", "min": "min2", "max": "max2", "ite": "ite",
    "and": "and", "or": "or", "not": "not",
}


def number(v: object, sort: object = None) -> str:
    """A numeral in SMT-LIB syntax; negative values as ``(- n)``."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Fraction) or sort is not INT and sort is not None:
        f = Fraction(v)
        if f.denominator == 1:
            body = f"{abs(f.numerator)}.0"
        else:
            body = f"(/ {abs(f.numerator)}.0 {f.denominator}.0)"
        return f"(- {body})" if f < 0 else body
    return f"(- {-v})" if v < 0 else str(v)


def to_smtlib(t: Term) -> str:
    """Render ``t`` as one SMT-LIB expression (shared sub-terms are repeated).

    Iterative (an explicit stack of pieces), so arbitrarily deep terms print without
    a RecursionError: error messages render terms thousands of levels deep.
    """
    out: list[str] = []
    stack: list[str | Term] = [t]
    while stack:
        piece = stack.pop()
        if isinstance(piece, str):
            out.append(piece)
        else:
            stack.extend(reversed(_pieces(piece)))
    return "".join(out)


def _pieces(t: Term) -> list[str | Term]:
    """The text of ``t`` as strings and sub-terms still to render, in order."""
    k = t.kind
    if k == "const":
        return [number(t.data, t.sort)]
    if k == "var":
        name = t.data
        return [name if _simple(name) else f"|{name}|"]
    if k == "lin":
        coefs, c = t.data
        parts: list[list[str | Term]] = []
        for a, v in zip(t.args, coefs):
            parts.append([a] if v == 1 else [f"(* {number(v, t.sort)} ", a, ")"])
        if c != 0:
            parts.append([number(c, t.sort)])
        if len(parts) == 1:
            return parts[0]
        out: list[str | Term] = ["(+"]
        for part in parts:
            out.append(" ")
            out.extend(part)
        out.append(")")
        return out
    if k in ("le", "lt", "eq"):
        op = {"le": "<=", "lt": "<", "eq": "="}[k]
        x = t.args[0]
        return [f"({op} ", x, f" {number(0, x.sort)})"]
    if k == "ne":
        x = t.args[0]
        return ["(not (= ", x, f" {number(0, x.sort)}))"]
    out = ["(" + _OPS[k]]
    for a in t.args:
        out.append(" ")
        out.append(a)
    out.append(")")
    return out


def _simple(name: str) -> bool:
    return bool(name) and not any(ch in name for ch in " ()|;\"'\t\n") and not name[0].isdigit()


# ---------------------------------------------------------------- readable infix

# how tightly a rendered term binds: an operand looser than its place needs parentheses
_OR, _AND, _NOT, _COMPARE, _SUM, _DIVMOD, _PRODUCT, _POWER, _ATOM = range(9)
_Text = tuple[str, int]  # rendered text and how tightly it binds


def to_infix(t: Term) -> str:
    """Render ``t`` readably, in Python's operator syntax: ``s0*s1 - 2*u0 + 1``, ``(s0 + 1) // 2``.

    ``//`` and ``%`` are written only for a positive constant divisor, where SMT-LIB's
    Euclidean ``div``/``mod`` agree with Python's; any other divisor is written
    ``div(x, y)`` / ``mod(x, y)`` (Euclidean). ``to_int`` is ``floor``; ``ceil``, ``min``,
    ``max``, ``to_real`` and ``ite(c, a, b)`` are functions. Built bottom-up over the
    distinct sub-terms (no recursion, so deep terms print), and not through sympy,
    whose constructors rewrite what they are given.
    """
    done: dict[int, _Text] = {}
    for s in subterms(t):
        done[s.id] = _infix_node(s, done)
    return done[t.id][0]


def _wrap(text: _Text, at_least: int) -> str:
    return text[0] if text[1] >= at_least else f"({text[0]})"


def _infix_number(v: object) -> _Text:
    if isinstance(v, bool):
        return ("true" if v else "false"), _ATOM
    if isinstance(v, Fraction) and v.denominator != 1:
        return str(v), _DIVMOD  # 3/2 is a quotient: (3/2)*x
    n = int(v)
    return str(n), (_ATOM if n >= 0 else _SUM)


def _infix_sum(parts: list[tuple[object, _Text]], c: object) -> _Text:
    """``sum k*a + c`` as ``a + 2*b - d - 3``: positive terms first, the constant last."""
    ordered = [p for p in parts if p[0] > 0] + [p for p in parts if p[0] < 0]
    out: list[str] = []
    prec = _ATOM
    for k, atom in ordered:
        mag = abs(k)
        if mag == 1:
            body, prec = _wrap(atom, _PRODUCT), max(min(atom[1], _ATOM), _PRODUCT)
        else:
            body, prec = f"{_wrap(_infix_number(mag), _POWER)}*{_wrap(atom, _PRODUCT)}", _PRODUCT
        if out:
            out.append(f" + {body}" if k > 0 else f" - {body}")
        else:
            out.append(body if k > 0 else f"-{body}")
    if c != 0 or not out:
        text, prec = _infix_number(abs(c) if out else c)
        out.append(text if len(out) == 0 else (f" + {text}" if c > 0 else f" - {text}"))
    if len(out) > 1 or out[0].startswith("-"):
        prec = _SUM
    return "".join(out), prec


def _infix_compare(t: Term, done: dict[int, _Text]) -> _Text:
    x = t.args[0]  # the comparison is x <op> 0
    if x.kind == "lin":
        coefs, c = x.data
        parts = list(zip(coefs, (done[a.id] for a in x.args)))
    elif x.kind == "const":
        parts, c = [], x.data
    else:
        parts, c = [(1, done[x.id])], 0
    pos = [(k, a) for k, a in parts if k > 0]
    neg = [(-k, a) for k, a in parts if k < 0]
    op = {"le": "<=", "lt": "<", "eq": "==", "ne": "!="}[t.kind]
    # sum(pos) - sum(neg) + c <op> 0  <=>  sum(pos) <op> sum(neg) - c
    left = _infix_sum(pos, 0)[0] if pos else "0"
    return f"{left} {op} {_infix_sum(neg, -c)[0]}", _COMPARE


def _infix_node(t: Term, done: dict[int, _Text]) -> _Text:
    k = t.kind
    args = [done[a.id] for a in t.args]
    if k == "const":
        return _infix_number(t.data)
    if k == "var":
        return t.data, _ATOM
    if k == "lin":
        coefs, c = t.data
        return _infix_sum(list(zip(coefs, args)), c)
    if k == "mul":
        return "*".join(_wrap(a, _PRODUCT) for a in args), _PRODUCT
    if k in ("div", "mod"):
        d = t.args[1]
        if d.kind == "const" and d.data > 0:
            return f"{_wrap(args[0], _DIVMOD)} {'//' if k == 'div' else '%'} {_wrap(args[1], _POWER)}", _DIVMOD
        return f"{k}({args[0][0]}, {args[1][0]})", _ATOM
    if k == "rdiv":
        return f"{_wrap(args[0], _DIVMOD)} / {_wrap(args[1], _POWER)}", _DIVMOD
    if k == "pow":
        return f"{_wrap(args[0], _ATOM)}**{_wrap(args[1], _ATOM)}", _POWER
    if k in ("to_int", "ceil", "to_real", "min", "max", "ite"):
        return f"{'floor' if k == 'to_int' else k}({', '.join(a[0] for a in args)})", _ATOM
    if k in ("le", "lt", "eq", "ne"):
        return _infix_compare(t, done)
    if k == "not":
        return f"not {_wrap(args[0], _NOT)}", _NOT
    if k in ("and", "or"):
        prec = _AND if k == "and" else _OR
        return f" {k} ".join(_wrap(a, prec + 1) for a in args), prec
    raise ValueError(f"no infix form for a term of kind {k!r}")
