"""A description of valid inputs as ``torch.export`` takes it: ``Dim``s, derived dims, checks.

Each symbol that is not a constant becomes a ``Dim`` with its range's ``min``/``max``; a
symbol an equality defines as ``a*y + b`` of such a ``Dim`` becomes a derived dim; a
residue set with one residue ``r`` of ``m`` becomes ``m*k + r`` of a fresh ``Dim``; a
specialised symbol is a constant (static). What ``Dim`` cannot say (other relations,
several residues, a range of a derived dim) is a ``torch._check`` line, so the text says
everything the description does. Names that are not Python identifiers are rewritten
(``_`` for each other character, a trailing ``_`` after a keyword).
"""

from __future__ import annotations

import keyword
import re

from absint.inputs.description import Item, ValidInputs
from absint.lang import terms as T
from absint.lang.dag import subterms
from absint.lang.printer import to_infix
from absint.lang.terms import INT, Term


def python_name(name: str) -> str:
    s = re.sub(r"\W", "_", name)
    if not s or s[0].isdigit():
        s = "_" + s
    return s + "_" if keyword.iskeyword(s) else s


def renamed(t: Term) -> Term:
    """``t`` over variables with Python names."""
    done: dict[int, Term] = {}
    for s in subterms(t):
        if s.kind == "var":
            done[s.id] = T.var(python_name(s.data), s.sort)
        else:
            done[s.id] = T.rebuild(s, tuple(done[a.id] for a in s.args))
    return done[t.id]


def export_text(d: ValidInputs, file: str) -> str:
    """The description as Python for ``torch.export`` (see the module docstring)."""
    lines = [f"# valid inputs of {file} (absint inputs --export), for torch.export",
             "import torch", "from torch.export import Dim", ""]
    if d.contradiction is not None:
        return "\n".join(lines + [f"# no input passes the asserts (contradiction at assert {d.contradiction})",
                                  "torch._check(False)", ""])
    constant = d.specialized
    derived = {i.symbol.data: i for i in d.items if i.kind == "equality" and _linear_root(i) is not None}
    derived = {n: i for n, i in derived.items() if _linear_root(i) not in derived and _linear_root(i) not in constant}
    ranges = {r.symbol: r for r in d.ranges}
    checks: list[str] = []
    for n, v in constant.items():
        lines.append(f"{python_name(n)} = {v}  # static")
    for x in d.symbols:
        if x.data not in constant and x.data not in derived and x.sort is INT:
            lines += _dim(x.data, ranges.get(x.data), checks)
    for n, item in derived.items():
        lines.append(f"{python_name(n)} = {to_infix(renamed(item.value))}  # derived")
        if n in ranges:
            checks += _range_checks(n, ranges[n])
    for i in d.items:
        if i.kind == "relation" or (i.kind == "equality" and i.symbol.data not in derived):
            checks.append(f"torch._check({to_infix(renamed(i.term))})")
    if checks:
        lines += ["", "# what Dim cannot say: checked at run time"] + checks
    return "\n".join(lines + [""])


def _linear_root(item: Item) -> str | None:
    """The one variable ``y`` of an equality's right-hand side ``a*y + b`` (ints)."""
    coefs, _ = T.linear_parts(item.value)
    if len(coefs) == 1:
        (y, a), = coefs.items()
        if y.kind == "var" and y.sort is INT and isinstance(a, int):
            return y.data
    return None


def _bounds(lo, hi) -> str:
    parts = ([f"min={lo}"] if lo is not None else []) + ([f"max={hi}"] if hi is not None else [])
    return "".join(", " + p for p in parts)


def _dim(name: str, r, checks: list[str]) -> list[str]:
    """``Dim`` lines of a root symbol; a single residue as ``m*k + r``, several as a check."""
    py = python_name(name)
    if r is None:
        return [f'{py} = Dim("{py}")']
    if r.modulus > 1 and len(r.residues) == 1:
        m, res = r.modulus, r.residues[0]
        lo = None if r.lo is None else -((res - r.lo) // m)  # ceil((lo - res) / m)
        hi = None if r.hi is None else (r.hi - res) // m
        tail = f" + {res}" if res else ""
        return [f'_{py}_k = Dim("_{py}_k"{_bounds(lo, hi)})', f"{py} = {m} * _{py}_k{tail}"]
    if r.modulus > 1:
        options = " or ".join(f"{py} % {r.modulus} == {res}" for res in r.residues)
        checks.append(f"torch._check({options})")
    return [f'{py} = Dim("{py}"{_bounds(r.lo, r.hi)})']


def _range_checks(name: str, r) -> list[str]:
    py = python_name(name)
    out = [f"torch._check({py} >= {r.lo})"] if r.lo is not None else []
    out += [f"torch._check({py} <= {r.hi})"] if r.hi is not None else []
    if r.modulus > 1:
        out.append("torch._check(" + " or ".join(f"{py} % {r.modulus} == {res}" for res in r.residues) + ")")
    return out
