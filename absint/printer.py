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
    """Render ``t`` as one SMT-LIB expression (shared sub-terms are repeated)."""
    k = t.kind
    if k == "const":
        return number(t.data, t.sort)
    if k == "var":
        name = t.data
        return name if _simple(name) else f"|{name}|"
    if k == "lin":
        coefs, c = t.data
        parts = []
        for a, v in zip(t.args, coefs):
            s = to_smtlib(a)
            parts.append(s if v == 1 else f"(* {number(v, t.sort)} {s})")
        if c != 0:
            parts.append(number(c, t.sort))
        return parts[0] if len(parts) == 1 else "(+ " + " ".join(parts) + ")"
    if k in ("le", "lt", "eq"):
        op = {"le": "<=", "lt": "<", "eq": "="}[k]
        x = t.args[0]
        return f"({op} {to_smtlib(x)} {number(0, x.sort)})"
    if k == "ne":
        x = t.args[0]
        return f"(not (= {to_smtlib(x)} {number(0, x.sort)}))"
    return "(" + _OPS[k] + " " + " ".join(to_smtlib(a) for a in t.args) + ")"


def _simple(name: str) -> bool:
    return bool(name) and not any(ch in name for ch in " ()|;\"'\t\n") and not name[0].isdigit()
