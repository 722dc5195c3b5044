"""The facts of a preset, for one program, and their check at the example point.

A preset is a family of facts a compiler may be willing to assume about its inputs
before the program's own asserts (PyTorch's ``ShapeEnv`` assumes several of them:
sizes are non-negative, 0/1 are specialised, equal example sizes are one symbol).
Assuming them closes guards the asserts alone leave open; ``absint presets`` measures
how many, and shows an input each preset excludes that the program would accept.

Sizes, strides and tensors are recognised from the corpus naming of the declared
symbols: ``<tensor>_size<d>``, ``<tensor>_stride<d>``, ``<tensor>_storage_offset``
(``docs/presets.md``). Symbols named otherwise are not touched by any preset.

Presets:

* ``nonneg``: every size symbol ``>= 0``;
* ``ge1``: every size symbol ``>= 1``;
* ``ge2``: every *dynamic* size symbol ``>= 2``: PyTorch specialises sizes 0 and 1, so a
  size traced at 0 or 1 is static for its guards and is left out; unbacked sizes (no
  example value) are dynamic and included;
* each of the three also: every stride and storage offset symbol ``>= 0`` (PyTorch has no
  negative strides or offsets: ``as_strided`` refuses them);
* ``contiguous``: per tensor whose every size is a symbol, what ``Tensor.is_contiguous``
  checks: ``stride[d] = size[d+1]*...*size[last]`` for every dimension whose size is not 1,
  unless the tensor has no element (``is_contiguous`` ignores a size-1 dimension's stride
  and every stride of an empty tensor): ``size[d] == 1 or numel == 0 or stride[d] == ...``;
* ``dense``: a freshly allocated tensor (``torch.empty(sizes)``): every stride of its
  contiguous layout, size-1 dimensions included, ``stride[d] = max(size[d+1], 1)*...``
  (PyTorch's layout of an empty tensor), and storage offset 0;
* ``duck``: backed size symbols whose example values are equal and at least 2 are one
  symbol (``a = b`` for each later one against the first); PyTorch specialises 0 and 1
  instead, so sizes traced there are no symbols to unify.

A fact that is false at the example point is refused (:class:`PresetRefused`): the
program was traced there, so the preset does not describe it.
"""

from __future__ import annotations

import re
from typing import Callable, Collection, Iterable, Sequence

import attrs

from absint.lang import terms as T
from absint.lang.evaluator import truth_at
from absint.lang.printer import to_infix
from absint.lang.program import Program, Symbol
from absint.lang.terms import INT, Term

_SIZE = re.compile(r"^(?P<tensor>.+)_size(?P<dim>\d+)$")
_STRIDE = re.compile(r"^(?P<tensor>.+)_stride(?P<dim>\d+)$")
_OFFSET = re.compile(r"^(?P<tensor>.+)_storage_offset$")


@attrs.frozen(slots=True)
class Tensor:
    """One input tensor as its symbols name it: dimension -> symbol (absent: not a symbol)."""

    name: str
    sizes: tuple[tuple[int, Symbol], ...] = ()
    strides: tuple[tuple[int, Symbol], ...] = ()
    offset: Symbol | None = None

    @property
    def rank(self) -> int:
        """One more than the largest dimension any of its symbols names."""
        dims = [d for d, _ in self.sizes] + [d for d, _ in self.strides]
        return max(dims) + 1 if dims else 0


def tensors(program: Program) -> list[Tensor]:
    """The program's tensors, in the order their first symbol was declared (Int symbols only)."""
    found: dict[str, dict] = {}
    for s in program.symbols:
        if s.sort is not INT:
            continue
        for pattern, slot in ((_SIZE, "sizes"), (_STRIDE, "strides"), (_OFFSET, "offset")):
            m = pattern.match(s.name)
            if m is None:
                continue
            entry = found.setdefault(m["tensor"], {"sizes": {}, "strides": {}, "offset": None})
            if slot == "offset":
                entry["offset"] = s
            else:
                entry[slot][int(m["dim"])] = s
            break
    return [Tensor(name, tuple(sorted(e["sizes"].items())), tuple(sorted(e["strides"].items())), e["offset"])
            for name, e in found.items()]


def size_symbols(program: Program) -> list[Symbol]:
    """Every ``<tensor>_size<d>`` Int symbol, in declaration order."""
    return [s for s in program.symbols if s.sort is INT and _SIZE.match(s.name)]


@attrs.frozen(slots=True)
class PresetFact:
    """One assumed fact: the preset it comes from, the term, and how it reads (as written,
    ``x_size0 >= 2``, not as normalised, ``0 <= x_size0 - 2``)."""

    preset: str
    term: Term
    text: str


def _fact(op: str, a: Term, b: Term) -> tuple[Term, str]:
    build = T.ge if op == ">=" else T.eq
    return build(a, b), f"{to_infix(a)} {op} {to_infix(b)}"


def _at_least(k: int, dynamic_only: bool = False) -> Callable[[Program], list[tuple[Term, str]]]:
    """``size >= k`` for every size symbol (with ``dynamic_only``, not those traced at 0 or 1),
    and ``>= 0`` for every stride and storage offset symbol."""
    def build(program: Program) -> list[tuple[Term, str]]:
        sizes = [_fact(">=", s.term, T.const(k)) for s in size_symbols(program)
                 if not (dynamic_only and s.hint in (0, 1))]
        return sizes + [_fact(">=", s.term, T.ZERO) for s in layout_symbols(program)]

    return build


def layout_symbols(program: Program) -> list[Symbol]:
    """Every ``<tensor>_stride<d>`` and ``<tensor>_storage_offset`` Int symbol, in declaration order."""
    return [s for s in program.symbols if s.sort is INT and is_layout_name(s.name)]


def is_layout_name(name: str) -> bool:
    """Whether ``name`` is a ``<tensor>_stride<d>`` or ``<tensor>_storage_offset`` (no dimension)."""
    return bool(_STRIDE.match(name) or _OFFSET.match(name))


def size_dimension(name: str) -> tuple[str, int] | None:
    """``(tensor, d)`` of a ``<tensor>_size<d>`` name; None for any other name."""
    m = _SIZE.match(name)
    return None if m is None else (m["tensor"], int(m["dim"]))


def _strides_of_a_layout(t: Tensor, at_least_one: bool = False) -> list[tuple[int, Term, Term]] | None:
    """``(d, stride[d], size[d+1]*...*size[last])`` for each stride symbol of a tensor whose
    every size is a symbol (None otherwise: a constant size is unknown here); with
    ``at_least_one``, each size as ``max(size, 1)``, as PyTorch allocates an empty tensor."""
    sizes, rank = dict(t.sizes), t.rank
    if any(d not in sizes for d in range(rank)):
        return None

    def size(k: int) -> Term:
        return T.maximum(sizes[k].term, T.ONE) if at_least_one else sizes[k].term

    return [(d, s.term, T.mul(*(size(k) for k in range(d + 1, rank))) if d + 1 < rank else T.ONE)
            for d, s in t.strides]


def _contiguous(program: Program) -> list[tuple[Term, str]]:
    """What ``Tensor.is_contiguous`` checks, per dimension (see the module docstring)."""
    out: list[tuple[Term, str]] = []
    for t in tensors(program):
        layout = _strides_of_a_layout(t)
        sizes = dict(t.sizes)
        empty = T.or_(*(T.eq(s.term, T.ZERO) for _, s in t.sizes)) if t.sizes else T.FALSE
        for d, stride, expected in reversed(layout or ()):  # the innermost first, as a reader checks
            one = T.eq(sizes[d].term, T.ONE)
            out.append((T.or_(one, empty, T.eq(stride, expected)),
                        f"{sizes[d].name} == 1 or numel({t.name}) == 0 or {to_infix(stride)} == {to_infix(expected)}"))
    return out


def _dense(program: Program) -> list[tuple[Term, str]]:
    """A freshly allocated tensor: every stride of the contiguous layout, storage offset 0."""
    out: list[tuple[Term, str]] = []
    for t in tensors(program):
        layout = _strides_of_a_layout(t, at_least_one=True)
        out += [_fact("==", stride, expected) for _, stride, expected in reversed(layout or ())]
        if t.offset is not None:
            out.append(_fact("==", t.offset.term, T.ZERO))
    return out


def _duck(program: Program) -> list[tuple[Term, str]]:
    """Backed sizes with equal example values of at least 2: each later one equals the first."""
    first: dict[object, Symbol] = {}
    out: list[tuple[Term, str]] = []
    for s in size_symbols(program):
        if not s.backed or not isinstance(s.hint, int) or s.hint < 2:
            continue
        f = first.setdefault(s.hint, s)
        if f is not s:
            out.append(_fact("==", s.term, f.term))
    return out


#: name -> (what it assumes, how its facts are built)
PRESETS: dict[str, tuple[str, Callable[[Program], list[tuple[Term, str]]]]] = {
    "nonneg": ("every size symbol >= 0; every stride and storage offset >= 0", _at_least(0)),
    "ge1": ("every size symbol >= 1; every stride and storage offset >= 0", _at_least(1)),
    "ge2": ("every dynamic size symbol >= 2 (those traced at 0 or 1 are static: left out); "
            "every stride and storage offset >= 0", _at_least(2, dynamic_only=True)),
    "contiguous": ("as Tensor.is_contiguous: stride[d] = size[d+1]*...*size[last] for each "
                   "dimension of size other than 1, unless the tensor is empty", _contiguous),
    "dense": ("a freshly allocated tensor: stride[d] = size[d+1]*...*size[last] for every "
              "dimension, storage offset 0", _dense),
    "duck": ("sizes equal at the example point, and at least 2, are one symbol (a = b)", _duck),
}


def _layout_followers(dense: bool) -> Callable[[Program, Collection[str]], list[tuple[str, Term]]]:
    """Each stride symbol of a tensor whose every size is a symbol, as its layout's value
    (``max(size, 1)`` with ``dense``, which also puts the storage offset at 0)."""
    def build(program: Program, declared: Collection[str]) -> list[tuple[str, Term]]:
        out: list[tuple[str, Term]] = []
        for t in tensors(program):
            out += [(stride.data, expected) for _, stride, expected in _strides_of_a_layout(t, dense) or ()]
            if dense and t.offset is not None:
                out.append((t.offset.name, T.ZERO))
        return out

    return build


def _duck_followers(program: Program, declared: Collection[str]) -> list[tuple[str, Term]]:
    """Each size ``duck`` makes one with others follows the first of them the declaration
    names (the first of them when it names none)."""
    groups: dict[object, list[Symbol]] = {}
    for s in size_symbols(program):
        if s.backed and isinstance(s.hint, int) and s.hint >= 2:
            groups.setdefault(s.hint, []).append(s)
    out = []
    for group in groups.values():
        leader = next((s for s in group if s.name in declared), group[0])
        out += [(s.name, leader.term) for s in group if s is not leader]
    return out


#: preset -> the symbols its facts determine from others: a stride follows its tensor's sizes
#: (under ``contiguous`` the layout's value satisfies the fact whatever the sizes; a size-1
#: dimension's stride, free there, takes it too), a size ``duck`` unifies follows the one
#: declared. ``inputs --within`` recomputes them at each point instead of keeping them at
#: their example values, which through the facts would pin the declared sizes
FOLLOWERS: dict[str, Callable[[Program, Collection[str]], list[tuple[str, Term]]]] = {
    "contiguous": _layout_followers(dense=False),
    "dense": _layout_followers(dense=True),
    "duck": _duck_followers,
}


def followers(program: Program, names: Iterable[str], declared: Collection[str] = ()) -> list[tuple[str, Term]]:
    """``(symbol name, its value over other symbols)`` for each symbol the named presets'
    facts determine (:data:`FOLLOWERS`) and ``declared`` does not name, the first preset's
    value when two say it."""
    out: dict[str, Term] = {}
    for name in names:
        for symbol, value in FOLLOWERS[name](program, declared) if name in FOLLOWERS else ():
            if symbol not in declared:
                out.setdefault(symbol, value)
    return list(out.items())


class PresetError(ValueError):
    """A preset option that names no preset (a usage error)."""


class PresetRefused(Exception):
    """A preset fact that is false at the program's example point."""

    def __init__(self, fact: PresetFact, values: dict[str, object]):
        shown = ", ".join(f"{n} = {v}" for n, v in values.items())
        super().__init__(f"preset {fact.preset} refused: {fact.text} is false at the example point ({shown})")
        self.fact = fact


def parse(text: str | Sequence[str] | None) -> tuple[str, ...]:
    """``"ge2,contiguous"`` (or several such strings) -> the preset names, in table order, once
    each; raises :class:`PresetError` naming an unknown one."""
    if text is None:
        return ()
    pieces = [text] if isinstance(text, str) else list(text)
    names = [n.strip() for p in pieces for n in p.split(",") if n.strip()]
    unknown = [n for n in names if n not in PRESETS]
    if unknown:
        raise PresetError(f"unknown preset {', '.join(map(repr, unknown))} (known: {', '.join(PRESETS)})")
    return tuple(n for n in PRESETS if n in names)


def preset_facts(program: Program, names: Iterable[str]) -> list[PresetFact]:
    """The facts of the named presets for ``program``, preset by preset, each once."""
    out: list[PresetFact] = []
    seen: set[Term] = set()
    for name in names:
        for term, text in PRESETS[name][1](program):
            if term not in seen and term is not T.TRUE:
                seen.add(term)
                out.append(PresetFact(name, term, text))
    return out


def refused_fact(program: Program, facts: Iterable[PresetFact]) -> PresetRefused | None:
    """The first fact false at the example point, as the error to report; None if all hold.
    A fact over an unbacked symbol has no value there and is not refused."""
    point = program.hints()
    memo: dict = {}
    for f in facts:
        if truth_at(f.term, point, memo) is False:
            values = {v.data: point.get(v.data) for v in T.free_vars(f.term)}
            return PresetRefused(f, values)
    return None


def checked_facts(program: Program, names: Iterable[str]) -> list[PresetFact]:
    """The presets' facts for ``program``; raises :class:`PresetRefused` if one fails at the
    example point. What a command calls before assuming the program's asserts."""
    facts = preset_facts(program, names)
    refused = refused_fact(program, facts)
    if refused is not None:
        raise refused
    return facts


def assume(reasoner, program: Program, names: Iterable[str]) -> list[PresetFact]:
    """Check the presets' facts at the example point, then assume them (ahead of the
    program's asserts). ``reasoner``: anything with ``assume(term)``. Returns the facts."""
    facts = checked_facts(program, names)
    for f in facts:
        reasoner.assume(f.term)
    return facts
