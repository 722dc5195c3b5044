"""The project's data-dependent programs with their ``torch._check`` lines removed, as scripts
that export, for ``python -m absint.torch diagnose``.

Each program of :mod:`torch_programs` with a ``torch._check`` is read back from its source
(``ast``): the checks are dropped (a ``for`` loop left empty by it goes too), and a script is
written with the helpers, the function, its example input and dynamic dimensions and a
``torch.export.export`` call. ``removed`` counts the checks dropped, a loop of checks once.
The originals in :mod:`torch_programs` are unchanged. The loop programs below (:data:`LOOPS`)
add splits over many unbacked lengths, written with their checks, made check-free the same
way, for any number of lengths.

Importing this module imports torch (through :mod:`torch_programs`).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass

import torch_programs as tp

HEAD = "import torch\nimport torch.nn.functional as F\n\n\n"
TAIL = """

class Wrapper(torch.nn.Module):
    def forward(self, *args):
        return {name}(*args)


EXAMPLE = {example}
DIMS = {dims}
dynamic = tuple({{d: torch.export.Dim.DYNAMIC for d in ds}} if ds else None for ds in DIMS)
torch.export.export(Wrapper(), EXAMPLE, dynamic_shapes=(dynamic,))
"""


@dataclass(frozen=True)
class Script:
    """A check-free program as a script: ``text``, and ``removed`` (checks dropped; a loop once)."""

    name: str
    text: str
    removed: int


def _is_check(st: ast.stmt) -> bool:
    return isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and ast.unparse(st.value.func) == "torch._check"


def _strip(body: list[ast.stmt]) -> tuple[list[ast.stmt], int]:
    """``body`` without its checks, and how many were removed (a loop emptied by it: one)."""
    out, removed = [], 0
    for st in body:
        if _is_check(st):
            removed += 1
            continue
        if isinstance(st, ast.For):
            st.body, inner = _strip(st.body)
            if not st.body:
                removed += 1
                continue
            removed += inner
        out.append(st)
    return out, removed


def _helpers(module: ast.Module) -> str:
    return "\n\n\n".join(ast.unparse(n) for n in module.body if isinstance(n, ast.FunctionDef) and n.name in ("t", "ar"))


def script_of(fn: ast.FunctionDef, example: str, dims: str, helpers: str) -> Script:
    fn.decorator_list = []
    fn.body, removed = _strip(fn.body)
    text = HEAD + helpers + "\n\n\n" + ast.unparse(fn) + TAIL.format(name=fn.name, example=example, dims=dims)
    return Script(fn.name, text, removed)


def unchecked_programs() -> list[Script]:
    """Every program of :mod:`torch_programs` that has a ``torch._check``, without them."""
    module = ast.parse(inspect.getsource(tp))
    helpers = _helpers(module)
    out = []
    for node in module.body:
        if not (isinstance(node, ast.FunctionDef) and node.decorator_list):
            continue
        dec = node.decorator_list[0]
        if not (isinstance(dec, ast.Call) and ast.unparse(dec.func) == "program"):
            continue
        s = script_of(node, ast.unparse(dec.args[1]), ast.unparse(dec.args[2]), helpers)
        if s.removed:
            out.append(s)
    return out


# ---------------------------------------------------------------- loops over many unbacked lengths

LOOP_SOURCES = {
    # a split over N lengths; each piece used only if it fits (with its checks, absint decides that)
    "split_if_fits": '''
def split_if_fits(values, lengths):
    ls = lengths.tolist()
    for n in ls:
        torch._check(n >= 0)
    torch._check(sum(ls) == values.size(0))
    out = []
    for p, n in zip(values.split(ls), ls):
        out.append(p.sum() if n <= values.size(0) else p.mean())
    return out
''',
    # prefix sums of N lengths, each slice end compared with the size
    "prefix_ends": '''
def prefix_ends(values, lengths):
    ls = lengths.tolist()
    for n in ls:
        torch._check(n >= 0)
    torch._check(sum(ls) <= values.size(0))
    out, start = [], 0
    for n in ls:
        end = start + n
        out.append(values[start:end].sum() if end <= values.size(0) else values.sum())
        start = end
    return out
''',
    # N + 1 offsets, each slice end compared with the size inside a comprehension
    "offsets_in_comprehension": '''
def offsets_in_comprehension(values, lengths):
    o = [0]
    for n in lengths.tolist():
        torch._check(n >= 0)
        o.append(o[-1] + n)
    torch._check(o[-1] <= values.size(0))
    return [values[a:b].sum() if b <= values.size(0) else values.sum() for a, b in zip(o, o[1:])]
''',
    # N pieces, each viewed in pairs (divisibility, in a comprehension)
    "pieces_in_pairs": '''
def pieces_in_pairs(values, lengths):
    ls = lengths.tolist()
    for n in ls:
        torch._check(n >= 0)
        torch._check(n % 2 == 0)
    torch._check(sum(ls) == values.size(0))
    return [p.view(-1, 2).sum(0) for p in values.split(ls)]
''',
}


def loop_lengths(n: int) -> list[int]:
    """N even lengths, not all equal (2, 4, 6, 2, 4, 6, ...)."""
    return [2 * (1 + i % 3) for i in range(n)]


def loop_program(name: str, n: int) -> Script:
    """The loop program ``name`` over ``n`` unbacked lengths, its checks removed."""
    fn = ast.parse(textwrap.dedent(LOOP_SOURCES[name])).body[0]
    lengths = loop_lengths(n)
    example = f"(torch.arange({sum(lengths)}, dtype=torch.float32), torch.tensor({lengths}))"
    module = ast.parse(inspect.getsource(tp))
    return script_of(fn, example, "((0,), ())", _helpers(module))


def checked_loop_program(name: str, n: int) -> str:
    """The same program with its checks (exports with absint and without: the reference)."""
    lengths = loop_lengths(n)
    example = f"(torch.arange({sum(lengths)}, dtype=torch.float32), torch.tensor({lengths}))"
    body = textwrap.dedent(LOOP_SOURCES[name]).strip()
    module = ast.parse(inspect.getsource(tp))
    return HEAD + _helpers(module) + "\n\n\n" + body + "\n" + TAIL.format(name=name, example=example, dims="((0,), ())")
