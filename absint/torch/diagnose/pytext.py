"""absint terms written as Python over the user's own variables, for ``torch._check(...)``.

:class:`Names` says what each term is called in a frame (``n`` for the SymInt ``u3``,
``values.size(0)`` for ``s0``, ``ls[2]``, ``start`` for ``u0 + u1``) and which lists hold a
family of unbacked sizes (``ls``: ``sum(ls)``). :func:`python_text` writes a Boolean term with
them, or None when some part has no name or no Python spelling that means the same (a
quotient by something not a positive constant: SMT-LIB's ``div`` is Euclidean, Python's ``//``
floors). Torch-free.
"""

from __future__ import annotations

import attrs

from absint.lang import terms as T
from absint.lang.kinds import AND, CONST, DIV, EQ, LE, LIN, LT, MAX, MIN, MOD, MUL, NE, NOT, POW
from absint.lang.terms import Term


@attrs.define(slots=True)
class Names:
    """Texts for terms (by term id, best first) and the families of a frame."""

    texts: dict = attrs.Factory(dict)  # term id -> list of (rank, text)
    terms: dict = attrs.Factory(dict)  # term id -> term
    families: list = attrs.Factory(list)  # (rank, text, members) of lists of unbacked symbols
    loop_names: frozenset = frozenset()  # a comprehension's own names (then the check needs its `for`)
    shadowing: bool = False  # some of them are also the enclosing frame's

    def add(self, t: Term, text: str, rank: tuple) -> None:
        self.texts.setdefault(t.id, []).append((rank, text))
        self.terms[t.id] = t

    def best(self, t: Term) -> str | None:
        found = self.texts.get(t.id)
        return min(found)[1] if found else None

    def named_sums(self) -> list[tuple[dict, str]]:
        """Sums of two or more atoms that have a name, as linear parts: names the statement
        uses first (a loop's ``start + n`` must read the same at every pass), the largest first."""
        out = []
        for tid, t in self.terms.items():
            if t.kind == LIN and len(t.args) >= 2 and t.data[1] == 0 and all(v > 0 for v in t.data[0]):
                rank, text = min(self.texts[tid])
                out.append((rank, T.linear_parts(t)[0], text))
        for rank, text, members in self.families:
            out.append((rank, {m: 1 for m in members}, f"sum({text})"))
        out.sort(key=lambda p: (p[0][0], -len(p[1]), p[0]))
        return [(parts, text) for _, parts, text in out]


def python_text(t: Term, names: Names) -> str | None:
    """A Boolean term as a Python expression over ``names`` (None if it cannot be written)."""
    k = t.kind
    if k in (LE, LT, EQ, NE):
        return _relation(t, names)
    if k == NOT:
        inner = python_text(t.args[0], names)
        return None if inner is None else f"torch.sym_not({inner})"
    return None


def conjuncts(t: Term) -> list[Term]:
    return list(t.args) if t.kind == AND else [t]


_SIGN = {LE: "<=", LT: "<", EQ: "==", NE: "!="}


_FLIPPED = {LE: ">=", LT: ">", EQ: "==", NE: "!="}


def _relation(t: Term, names: Names) -> str | None:
    """``t <op> 0`` written as ``positive part <op> negative part``, or ``d <op> k`` when the
    non-constant part (or its negation) has a name ``d``."""
    coefs, c = T.linear_parts(t.args[0])
    if len(coefs) >= 2:
        for sign, ops in ((1, _SIGN), (-1, _FLIPPED)):
            named = names.best(T.make_linear(t.args[0].sort, {a: sign * v for a, v in coefs.items()}, 0))
            if named is not None:
                return f"{named} {ops[t.kind]} {_number(-sign * c) if -sign * c >= 0 else '-' + _number(sign * c)}"
    left = {a: v for a, v in coefs.items() if v > 0}
    right = {a: -v for a, v in coefs.items() if v < 0}
    if c > 0:
        left_c, right_c = c, 0
    else:
        left_c, right_c = 0, -c
    lhs, rhs = _sum(left, left_c, names), _sum(right, right_c, names)
    if lhs is None or rhs is None:
        return None
    if not left and right:  # a constant on the left reads better on the right: n >= 1
        return f"{rhs} {_FLIPPED[t.kind]} {lhs}"
    return f"{lhs} {_SIGN[t.kind]} {rhs}"


def _sum(coefs: dict, c, names: Names) -> str | None:
    """A sum of positive multiples of atoms and a non-negative constant, with named
    sub-sums (``start + n``, ``sum(ls)``) taken first."""
    pieces: list[str] = []
    rest = dict(coefs)
    for parts, text in names.named_sums():
        while parts and all(rest.get(a, 0) >= v for a, v in parts.items()):
            pieces.append(text)
            for a, v in parts.items():
                rest[a] -= v
    for a, v in rest.items():
        if v == 0:
            continue
        text = _term(a, names)
        if text is None:
            return None
        pieces.append(text if v == 1 else f"{_number(v)}*{_wrapped(a, text)}")
    if c or not pieces:
        pieces.append(_number(c))
    return " + ".join(pieces)


def _number(v) -> str:
    if isinstance(v, int) or getattr(v, "denominator", 2) == 1:
        return str(int(v))
    return f"({v.numerator}/{v.denominator})"


def _wrapped(a: Term, text: str) -> str:
    return text if a.kind not in (LIN,) and " " not in text else f"({text})"


def _term(t: Term, names: Names) -> str | None:
    """A numeric term: its name, else built from its parts."""
    named = names.best(t)
    if named is not None:
        return named
    k = t.kind
    if k == CONST:
        return _number(t.data)
    if k == LIN:
        coefs, c = T.linear_parts(t)
        pos = _sum({a: v for a, v in coefs.items() if v > 0}, c if c > 0 else 0, names)
        neg = _sum({a: -v for a, v in coefs.items() if v < 0}, -c if c < 0 else 0, names)
        return None if pos is None or neg is None else (pos if neg == "0" else f"({pos} - ({neg}))")
    args = [_term(a, names) for a in t.args]
    if any(a is None for a in args):
        return None
    return _operation(t, args)


def _operation(t: Term, args: list[str]) -> str | None:
    k = t.kind
    if k == MUL:
        return "*".join(f"({a})" if " " in a else a for a in args)
    if k == POW and t.args[1].kind == CONST and isinstance(t.args[1].data, int) and t.args[1].data >= 0:
        return f"({args[0]})**{t.args[1].data}"
    if k in (DIV, MOD):
        d = t.args[1]
        if d.kind != CONST or not isinstance(d.data, int) or d.data <= 0:
            return None  # Euclidean and floor division differ on a negative divisor
        return f"({args[0]}) {'//' if k == DIV else '%'} {d.data}"
    if k in (MIN, MAX):
        fn = "torch.sym_min" if k == MIN else "torch.sym_max"
        text = args[0]
        for a in args[1:]:
            text = f"{fn}({text}, {a})"
        return text
    return None
