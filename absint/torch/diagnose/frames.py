"""Where a question comes from in the user's code, and what its values are called there.

The *user's files* are the script's directory, less the interpreter's own and installed
packages. The innermost frame in them is the user's frame: a live Python frame under
``torch.export`` (non-strict: the user's code runs on fake tensors), or the frame Dynamo is
translating under ``torch.compile`` and strict export (its symbolic locals). Its locals name
the question's parts (:class:`~.pytext.Names`): a SymInt local by its name, a tensor's size as
``t.size(i)``, a list element as ``ls[i]`` (``ls[k + 1]`` when a local ``k`` the statement
uses is one less), a list of unbacked sizes as a family (``sum(ls)``).
"""

from __future__ import annotations

import functools
import os
import re
import sys
from typing import Any, Callable

import attrs

from absint.torch.diagnose import source
from absint.torch.diagnose.pytext import Names

#: rank of a name's kind: a local, a tensor's size, an element of a list
LOCAL, SIZE, ELEMENT = 0, 1, 2
MAX_LIST = 4096
_SOURCE_SIZE = re.compile(r"^L\['(\w+)'\]\.size\(\)\[(\d+)\]$")


@attrs.frozen(slots=True)
class UserFiles:
    """The files that are the user's: under ``root`` (the script's directory), not in the
    interpreter's prefixes, an installed package or absint itself."""

    root: str
    excluded: tuple[str, ...]

    @classmethod
    def of_script(cls, script: str) -> "UserFiles":
        import absint

        prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
        prefixes.add(os.path.realpath(os.path.dirname(absint.__file__)))
        return cls(os.path.dirname(os.path.realpath(script)), tuple(sorted(prefixes)))

    def __contains__(self, path: str) -> bool:
        return _is_user_file(path, self.root, self.excluded)


@functools.lru_cache(maxsize=4096)
def _is_user_file(path: str, root: str, excluded: tuple[str, ...]) -> bool:
    if not path or path.startswith("<"):
        return False
    p = os.path.realpath(path)
    if "site-packages" in p or "dist-packages" in p or not p.startswith(root + os.sep):
        return False
    return not any(p.startswith(e + os.sep) for e in excluded if not root.startswith(e + os.sep))


@attrs.define(slots=True)
class Frame:
    """A user frame: where, its locals (Python values: SymInts, tensors, lists, ints), and
    for a comprehension the frame it runs in."""

    file: str
    line: int
    function: str
    first_line: int
    values: dict
    outer: "Frame | None" = None
    free: frozenset = frozenset()  # the code's free variables (a comprehension's: the enclosing frame's)

    @property
    def comprehension(self) -> bool:
        return self.function in source.COMPREHENSIONS


def user_frame(files: UserFiles) -> Frame | None:
    """The innermost user frame: Dynamo's when it is translating user code, else the live one."""
    found = _dynamo_frame(files)
    return found if found is not None else _live_frame(files)


def _live_frame(files: UserFiles) -> Frame | None:
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename not in files:
        f = f.f_back
    if f is None:
        return None
    frame = _frame_of(f.f_code, f.f_lineno, dict(f.f_locals))
    outer = f.f_back
    if frame.comprehension and outer is not None and outer.f_code.co_filename in files:
        frame.outer = _frame_of(outer.f_code, outer.f_lineno, dict(outer.f_locals))
    return frame


def _frame_of(code, line: int, values: dict) -> Frame:
    return Frame(code.co_filename, line or code.co_firstlineno, code.co_name, code.co_firstlineno, values,
                 None, frozenset(code.co_freevars))


def _dynamo_frame(files: UserFiles) -> Frame | None:
    tx = _current_tx()
    while tx is not None and tx.f_code.co_filename not in files:
        tx = getattr(tx, "parent", None)
    if tx is None:
        return None
    frame = _frame_of(tx.f_code, getattr(tx, "lineno", 0), _dynamo_values(tx))
    parent = getattr(tx, "parent", None)
    if frame.comprehension and parent is not None and parent.f_code.co_filename in files:
        frame.outer = _frame_of(parent.f_code, getattr(parent, "lineno", 0), _dynamo_values(parent))
    return frame


def _current_tx():
    if "torch._dynamo.symbolic_convert" not in sys.modules:
        return None
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslator

        return InstructionTranslator.current_tx()
    except Exception:  # noqa: BLE001 - not translating
        return None


def _dynamo_values(tx) -> dict:
    out = {}
    for name, vt in getattr(tx, "symbolic_locals", {}).items():
        v = _dynamo_value(vt, 0)
        if v is not None:
            out[name] = v
    return out


def _dynamo_value(vt, depth: int) -> Any:
    """A variable tracker's value as the user's code would see it (a SymInt, a fake tensor, a
    list, an int), or None. Lazy trackers are read only when already realized: realizing
    one installs guards."""
    kind = type(vt).__name__
    if kind == "LazyVariableTracker":
        return _dynamo_value(vt.unwrap(), depth) if vt.is_realized() else None
    if kind == "SymNodeVariable":
        return vt.sym_num
    if kind == "ConstantVariable":
        return vt.value if isinstance(vt.value, int) else None
    if kind == "TensorVariable":
        return vt.proxy.node.meta.get("example_value")
    if depth == 0 and hasattr(vt, "items") and isinstance(getattr(vt, "items"), list):
        return [_dynamo_value(i, 1) for i in vt.items[:MAX_LIST]]
    return None


def names_of(frame: Frame, used: frozenset[str], read: Callable) -> Names:
    """What the frame calls each term (:class:`Names`); ``used``: the names the statement
    uses (ranked first); ``read``: sympy -> term, or None when absint cannot read it."""
    names = Names()
    ints = {n: v for n, v in frame.values.items() if type(v) is int}
    for level, f in enumerate([frame] + ([frame.outer] if frame.outer is not None else [])):
        for name, value in f.values.items():
            if name.startswith((".", "__")) or (level and name in frame.values):
                continue
            _add_value(names, name, value, (0 if name in used else 1 + level), ints, used, read)
    if frame.comprehension:
        names.loop_names = frozenset(n for n in frame.values if not n.startswith(".") and n not in frame.free)
        if frame.outer is not None and names.loop_names & set(frame.outer.values):
            names.shadowing = True  # a `for` pasted outside would overwrite the enclosing frame's
    return names


def _add_value(names: Names, name: str, value, used_rank: int, ints: dict, used, read) -> None:
    import torch

    if _symbolic(value):
        t = read(value.node.expr)
        if t is not None:
            names.add(t, name, (used_rank, LOCAL, len(name)))
    elif isinstance(value, torch.Tensor):
        for i, d in enumerate(value.shape):
            t = read(d.node.expr) if _symbolic(d) else None
            if t is not None:
                names.add(t, f"{name}.size({i})", (used_rank, SIZE, len(name)))
    elif isinstance(value, (list, tuple)) and len(value) <= MAX_LIST:
        members = []
        for i, v in enumerate(value):
            t = read(v.node.expr) if _symbolic(v) else None
            if t is not None:
                names.add(t, f"{name}[{_index(i, ints, used)}]", (used_rank, ELEMENT, len(name)))
                members.append(t if getattr(v.node.expr, "is_Symbol", False) else None)
        if len(members) >= 2 and len(members) == len(value) and all(m is not None for m in members):
            names.families.append(((used_rank, ELEMENT, len(name)), name, tuple(members)))


def _symbolic(v) -> bool:
    node = getattr(v, "node", None)
    return node is not None and hasattr(node, "expr") and type(v).__name__ in ("SymInt", "SymBool")


def _index(i: int, ints: dict, used) -> str:
    """An index as the statement would write it: a local it uses with that value, or one off."""
    for n, v in sorted(ints.items()):
        if n in used and v == i:
            return n
    for n, v in sorted(ints.items()):
        if n in used and v == i - 1:
            return f"{n} + 1"
        if n in used and v == i + 1:
            return f"{n} - 1"
    return str(i)


def add_sources(names: Names, frame: Frame, se, read) -> None:
    """Backed sizes Dynamo names by source (``L['x'].size()[0]``) for a local ``x`` the
    frame holds unrealized: ``x.size(0)``."""
    for s, sources in getattr(se, "var_to_sources", {}).items():
        for src in sources[:1]:
            m = _SOURCE_SIZE.match(src.name)
            if m and (m.group(1) in frame.values or _dynamo_frame_has(m.group(1))):
                t = read(s)
                if t is not None and names.best(t) is None:
                    names.add(t, f"{m.group(1)}.size({m.group(2)})", (1, SIZE, len(m.group(1))))


def _dynamo_frame_has(name: str) -> bool:
    tx = _current_tx()
    return tx is not None and name in getattr(tx, "symbolic_locals", {})


def origins(se, symbols, files: UserFiles) -> list[str]:
    """Where each symbol comes from: a backed one's source, an unbacked one's creation in the
    user's files (``u3: lengths.tolist() at model.py:12``)."""
    out = []
    for s in sorted(symbols, key=str):
        sources = getattr(se, "var_to_sources", {}).get(s) or []
        if sources:
            out.append(f"{s} = {sources[0].name}")
            continue
        where = _creation(getattr(se, "var_to_stack", {}).get(s), files)
        out.append(f"{s}: {where}" if where else f"{s}: an unbacked size")
    return out


def _creation(stack, files: UserFiles) -> str | None:
    try:
        frames = stack.summary()
    except Exception:  # noqa: BLE001 - no stack kept
        return None
    for fs in reversed(frames):
        if fs.filename in files:
            return f"{(fs.line or '').strip()} at {fs.filename}:{fs.lineno}"
    return None
