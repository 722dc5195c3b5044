"""Terms back to SMT-LIB text: for messages, reports and files other tools read."""

from __future__ import annotations

from fractions import Fraction

from absint.terms import INT, Term

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
