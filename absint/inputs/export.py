"""A description of valid inputs as ``torch.export`` takes it: ``Dim``s, ``dynamic_shapes``, a check.

The text is a module that runs (``python out.py``), in three parts:

* **Dims.** Each backed size symbol that is not a constant is a ``Dim`` with its range's
  ``min``/``max``; a symbol an equality defines as ``a*y + b`` of such a ``Dim`` is a derived
  dim; a residue set with one residue ``r`` of ``m`` is ``m*k + r`` of a fresh ``Dim``; a
  specialised symbol is an int (static). Strides, storage offsets (``<t>_stride<d>``,
  ``<t>_storage_offset``) and unbacked symbols are not dimensions of an input: no ``Dim``.
* **dynamic_shapes**, in the form ``torch.export.export(..., dynamic_shapes=)`` takes:
  ``{tensor: {dimension: Dim or int}}`` read from the ``<tensor>_size<d>`` names (empty where
  the names say no tensor: ``dims`` then maps every size symbol to its ``Dim`` for the user
  to place).
* **check_inputs(...)**: every constraint of the description as ``torch._check`` on the
  symbols' values (keyword arguments), so it passes exactly where every assert holds. It is
  for an input's concrete sizes, before the exported program is called: inside ``forward``
  under ``torch.export`` a check on a backed size that narrows its ``Dim`` (``H % 8 in {0,
  7}``) is a guard, and export refuses it ("Constraints violated"), as it should.

Names that are not Python identifiers are rewritten (``_`` for each other character, a
trailing ``_`` after a keyword). SMT-LIB's Euclidean ``div``/``mod``, ``ite`` and the other
functions the infix printer writes are defined in the module where a check uses them.
"""

from __future__ import annotations

import keyword
import re

from absint.inputs.description import Item, ValidInputs
from absint.lang import terms as T
from absint.lang.dag import subterms
from absint.lang.kinds import VAR
from absint.lang.printer import to_infix
from absint.lang.terms import INT, Term
from absint.presets.facts import is_layout_name, size_dimension

#: the functions :func:`absint.lang.printer.to_infix` may write, as Python on ints
HELPERS = {
    "div": "def div(a, b):  # SMT-LIB's Euclidean division\n    return a // b if b > 0 else -(a // -b)",
    "mod": "def mod(a, b):  # SMT-LIB's Euclidean remainder (never negative)\n    return a - b * div(a, b)",
    "ite": "def ite(c, a, b):\n    return a if c else b",
    "floor": "from math import floor",
    "ceil": "from math import ceil",
    "to_real": "from fractions import Fraction as to_real",
}


def python_name(name: str) -> str:
    s = re.sub(r"\W", "_", name)
    if not s or s[0].isdigit():
        s = "_" + s
    return s + "_" if keyword.iskeyword(s) else s


def renamed(t: Term) -> Term:
    """``t`` over variables with Python names."""
    done: dict[int, Term] = {}
    for s in subterms(t):
        if s.kind == VAR:
            done[s.id] = T.var(python_name(s.data), s.sort)
        else:
            done[s.id] = T.rebuild(s, tuple(done[a.id] for a in s.args))
    return done[t.id]


def export_text(d: ValidInputs, file: str, unbacked: frozenset[str] = frozenset()) -> str:
    """The description as a Python module for ``torch.export`` (see the module docstring);
    ``unbacked``: the symbols that are no input's size (``.item()`` values)."""
    lines = [f"# valid inputs of {file} (absint inputs --export), for torch.export",
             "import torch", "from torch.export import Dim", ""]
    if d.contradiction is not None:
        return "\n".join(lines + [f"# no input passes the asserts (contradiction at assert {d.contradiction})",
                                  "dims = {}", "dynamic_shapes = {}", "", "",
                                  "def check_inputs(**values):", "    torch._check(False)", ""])
    dims = [x.data for x in d.symbols if x.sort is INT and x.data not in unbacked and not is_layout_name(x.data)]
    lines += _dim_lines(d, dims)
    lines += ["", "#: every size symbol: its Dim, derived dim or int (static)",
              "dims = {" + ", ".join(f'"{n}": {python_name(n)}' for n in dims) + "}",
              "#: torch.export.export(model, args, dynamic_shapes=dynamic_shapes), from the <tensor>_size<d> names",
              f"dynamic_shapes = {_dynamic_shapes(dims)}"]
    lines += _check_function(d)
    return "\n".join(lines + [""])


def _dim_lines(d: ValidInputs, dims: list[str]) -> list[str]:
    """Constants, then ``Dim``s, then derived dims (whose root is a ``Dim`` already)."""
    constant = d.specialized
    derived = {i.symbol.data: i for i in d.items if i.kind == "equality" and i.symbol.data in dims
               and _linear_root(i) in dims}
    derived = {n: i for n, i in derived.items() if _linear_root(i) not in derived and _linear_root(i) not in constant}
    ranges = {r.symbol: r for r in d.ranges}
    out = [f"{python_name(n)} = {v}  # static" for n, v in constant.items() if n in dims]
    for n in dims:
        if n not in constant and n not in derived:
            out += _dim(n, ranges.get(n))
    out += [f"{python_name(n)} = {to_infix(renamed(i.value))}  # derived" for n, i in derived.items()]
    return out


def _linear_root(item: Item) -> str | None:
    """The one variable ``y`` of an equality's right-hand side ``a*y + b`` (ints)."""
    coefs, _ = T.linear_parts(item.value)
    if len(coefs) == 1:
        (y, a), = coefs.items()
        if y.kind == VAR and y.sort is INT and isinstance(a, int):
            return y.data
    return None


def _bounds(lo, hi) -> str:
    parts = ([f"min={lo}"] if lo is not None else []) + ([f"max={hi}"] if hi is not None else [])
    return "".join(", " + p for p in parts)


def _dim(name: str, r) -> list[str]:
    """``Dim`` lines of a root symbol; a single residue as ``m*k + r`` (the other residue
    sets are left to ``check_inputs``)."""
    py = python_name(name)
    if r is None:
        return [f'{py} = Dim("{py}")']
    if r.modulus > 1 and len(r.residues) == 1:
        m, res = r.modulus, r.residues[0]
        lo = None if r.lo is None else -((res - r.lo) // m)  # ceil((lo - res) / m)
        hi = None if r.hi is None else (r.hi - res) // m
        tail = f" + {res}" if res else ""
        if lo is not None and lo == hi:  # one value: Dim refuses min == max
            return [f"{py} = {m * lo + res}  # static"]
        return [f'_{py}_k = Dim("_{py}_k"{_bounds(lo, hi)})', f"{py} = {m} * _{py}_k{tail}"]
    return [f'{py} = Dim("{py}"{_bounds(r.lo, r.hi)})']


def _dynamic_shapes(dims: list[str]) -> str:
    """``{"x": {0: x_size0, 1: 3, ...}}`` from the ``<tensor>_size<d>`` names (a static size
    as its int, which torch.export takes as static)."""
    tensors: dict[str, list[str]] = {}
    for n in dims:
        named = size_dimension(n)
        if named is not None:
            tensors.setdefault(named[0], []).append(f"{named[1]}: {python_name(n)}")
    return "{" + ", ".join(f'"{t}": {{{", ".join(parts)}}}' for t, parts in tensors.items()) + "}"


def _check_function(d: ValidInputs) -> list[str]:
    """``check_inputs`` with one ``torch._check`` per constraint, and the helpers they use."""
    checks = [to_infix(renamed(c)) for c in d.constraints()]
    used = [h for h in HELPERS if any(re.search(rf"\b{h}\(", c) for c in checks)]
    if "mod" in used and "div" not in used:
        used.insert(0, "div")
    out = [text for h in used for text in ("", "", HELPERS[h])]
    params = ", ".join(python_name(x.data) for x in d.symbols)
    out += ["", "", f"def check_inputs(*, {params}):" if params else "def check_inputs():",
            '    """Every constraint of the description, on one input\'s values (ints): it passes',
            '    exactly when every assert does. Call it before the exported program, not in forward."""']
    out += [f"    torch._check({c}, lambda: {c!r})" for c in checks] or ["    pass"]
    return out
