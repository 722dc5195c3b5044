"""Synthetic shape programs in the corpus dialect, with known answers.

Each generator writes the SMT-LIB 2 text PyTorch would record for a small,
typical piece of model code (a jagged split, a chain of ``<=`` facts, view /
reshape chains, a conv stack, an attention block), and knows for every assert
whether it is *implied* by the asserts before it (``T``) or a *real* guard that
is not (``?``), in the letters of ``../shared/reference/z3_dev.txt``. The
letter is also written as a comment after each ``(assert ...)``.

Backed symbols are declared with an example value (``set-info :example-NAME``);
unbacked ones (``.tolist()`` values, ``u0 u1 ...``) have none, and the generator
keeps a *witness*: values for them that, with the examples, make every assert
true. :class:`Generated` carries the text, the hints, the witness and the
letters; the plain functions (:func:`jagged_split`, ...) return only the text.

Everything is a pure function of the parameters and the seed (``random.Random``).

Command line::

    python -m benchmarks.generators KIND [--n N] [--seed S] [--out FILE]
    python -m benchmarks.generators examples [--out-dir examples]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from dataclasses import dataclass, field
from typing import Callable

PRELUDE = (
    "(set-option :produce-models true)",
    "(define-fun ceil ((x Real)) Int (ite (= (to_int x) x) (to_int x) (+ (to_int x) 1)))",
    "(define-fun min2 ((x Int) (y Int)) Int (ite (< x y) x y))",
    "(define-fun max2 ((x Int) (y Int)) Int (ite (> x y) x y))",
    "(define-fun sqrt ((x Real)) Real (^ x 0.5))",
    "",
)
#: the corpus prelude as one text, for hand-written programs (tests, examples)
PRELUDE_TEXT = "\n".join(PRELUDE)

IMPLIED = "T"  # follows from the asserts before it
REAL = "?"  # does not: a real guard (it holds at the example point)

INT64_MAX = 2**63 - 1


@dataclass
class Generated:
    """A generated program and what is known about it."""

    kind: str
    text: str
    hints: dict[str, int] = field(default_factory=dict)
    witness: dict[str, int] = field(default_factory=dict)
    claims: list[str] = field(default_factory=list)  # one of IMPLIED / REAL per assert, in order

    @property
    def point(self) -> dict[str, int]:
        """The example point extended by the witness: every assert is true here."""
        return {**self.hints, **self.witness}


def sx(op: str, *args: object) -> str:
    """An s-expression ``(op a b ...)``."""
    return "(" + " ".join([op, *map(str, args)]) + ")"


class _Builder:
    def __init__(self, kind: str, header: str):
        self.kind = kind
        self.lines: list[str] = list(PRELUDE)
        self.lines.append(f"; {header}")
        self.used: dict[str, int] = {}
        self.hints: dict[str, int] = {}
        self.witness: dict[str, int] = {}
        self.claims: list[str] = []

    def fresh(self, base: str) -> str:
        """``base``, then ``base_1``, ``base_2`` ... as in the corpus."""
        k = self.used.get(base)
        self.used[base] = 0 if k is None else k + 1
        return base if k is None else f"{base}_{k + 1}"

    def backed(self, name: str, value: int) -> str:
        assert name not in self.used, name
        self.used[name] = 0
        self.lines.append(f"(declare-const {name} Int)")
        self.lines.append(f"(set-info :example-{name} {value})")
        self.hints[name] = value
        return name

    def unbacked(self, name: str, witness: int) -> str:
        assert name not in self.used, name
        self.used[name] = 0
        self.lines.append(f"(declare-const {name} Int)")
        self.witness[name] = witness
        return name

    def define(self, base: str, sort: str, expr: object, *, exact: bool = False) -> str:
        name = base if exact else self.fresh(base)
        if exact:
            assert name not in self.used, name
            self.used[name] = 0
        self.lines.append(f"(define-fun {name} () {sort} {expr})")
        return name

    def guard(self, expr: str, claim: str, base: str | None = None) -> str:
        """Name a Bool ``expr`` (``base`` defaults to its operator) and assert it."""
        assert claim in (IMPLIED, REAL), claim
        if base is None:
            base = _BOOL_NAMES.get(expr[1:].split(" ", 1)[0], "guard") if expr.startswith("(") else "guard"
        name = self.define(base, "Bool", expr)
        self.lines.append(f"(assert {name}) ; {claim}")
        self.claims.append(claim)
        return name

    def output(self, name: str, expr: object) -> None:
        self.define(name, "Int", expr, exact=True)

    def done(self) -> Generated:
        self.lines.append("(check-sat)")
        return Generated(self.kind, "\n".join(self.lines) + "\n", self.hints, self.witness, self.claims)


_BOOL_NAMES = {"<=": "le", "<": "lt", ">=": "ge", ">": "gt", "=": "eq", "not": "not_", "distinct": "ne"}


def _not_eq(b: _Builder, x: str, v: int, claim: str) -> None:
    """``(not (= x v))`` the way the corpus writes it: a named ``eq`` then a named ``not_``."""
    eq = b.define("eq", "Bool", sx("=", x, v))
    b.guard(sx("not", eq), claim)


# ---------------------------------------------------------------- jagged split


def _lengths(n: int, rng: random.Random) -> list[int]:
    """Row lengths of a jagged tensor: some empty, many short, a few huge (up to 2**40)."""
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.1:
            out.append(0)
        elif r < 0.5:
            out.append(rng.randint(1, 64))
        elif r < 0.9:
            out.append(rng.randint(65, 1 << 20))
        else:
            out.append(rng.randint(1 << 20, 1 << 40))
    if sum(out) > INT64_MAX:  # only for n in the millions; keep the total an int64
        out = [x >> 20 for x in out]
    return out


#: how a jagged split states its total: one n-ary sum (``flat``, as the scaling benchmark
#: always did), a chain of named two-term sums ``add_k = add_{k-1} + u_{k+1}`` (``links``), or
#: over the prefix sums themselves, ``end_{n-1} = values_size0`` (``chain``); the same meaning
TOTALS = ("flat", "links", "chain")


def build_jagged_split(n: int, seed: int = 0, sum_first: bool = False, total: str = "flat") -> Generated:
    """``values.split(lengths.tolist())``: unbacked lengths summing to a backed size.

    Facts (real guards): ``u_i >= 0`` and ``u0 + ... + u{n-1} = values_size0``
    (with ``sum_first``, the sum before the lengths' signs: each ``u_i >= 0`` then
    narrows an atom of a sum already known), the sum written as :data:`TOTALS` says. Then
    for each split its start (prefix sum, built incrementally) and end, and three guards
    per split, all implied: ``0 <= start``, ``start <= end``, ``end <= values_size0``.
    With ``total="chain"`` every start and end is defined before the facts (the total names
    the last end), the same define-funs in the same order.
    """
    if n < 1:
        raise ValueError("jagged_split needs n >= 1")
    if total not in TOTALS:
        raise ValueError(f"jagged_split: total is one of {', '.join(TOTALS)}")
    rng = random.Random(f"jagged:{n}:{seed}")
    lengths = _lengths(n, rng)
    kind = "jagged" if total == "flat" else f"jagged_{total}"
    b = _Builder(kind, f"generated by: python -m benchmarks.generators {kind} --n {n} --seed {seed}")
    size = b.backed("values_size0", sum(lengths))
    us = [b.unbacked(f"u{i}", v) for i, v in enumerate(lengths)]
    bounds = _split_bounds(b, us) if total == "chain" else []
    if not sum_first:
        for u in us:
            b.guard(sx(">=", u, 0), REAL)
    b.guard(sx("=", _total(b, us, bounds, total), size), REAL)
    if sum_first:
        for u in us:
            b.guard(sx(">=", u, 0), REAL)
    if bounds:
        for start, end in bounds:
            _split_guards(b, start, end, size)
    else:
        bounds = _split_bounds(b, us, size)
    for i, (start, end) in enumerate(bounds):
        b.output(f"output{i}_size0", sx("-", end, start))
        b.output(f"output{i}_stride0", 1)
        b.output(f"output{i}_storage_offset", start)
    return b.done()


def _total(b: _Builder, us: list[str], bounds: list[tuple[str, str]], total: str) -> str:
    """The name of ``u0 + ... + u{n-1}`` as :data:`TOTALS` writes it."""
    if total == "chain":
        return bounds[-1][1]
    if total == "flat" or len(us) == 1:
        return b.define("add", "Int", sx("+", *us))
    s = us[0]
    for u in us[1:]:
        s = b.define("add", "Int", sx("+", s, u))
    return s


def _split_bounds(b: _Builder, us: list[str], size: str | None = None) -> list[tuple[str, str]]:
    """Each split's start (``start_{k+1} = start_k + u_k``) and end, defined in order, with
    the three split guards after each when ``size`` is given."""
    start = b.define("split0_start", "Int", 0, exact=True)
    out = []
    for i, u in enumerate(us):
        if i:
            start = b.define(f"split{i}_start", "Int", sx("+", start, us[i - 1]), exact=True)
        end = b.define(f"split{i}_end", "Int", sx("+", start, u), exact=True)
        if size is not None:
            _split_guards(b, start, end, size)
        out.append((start, end))
    return out


def _split_guards(b: _Builder, start: str, end: str, size: str) -> None:
    b.guard(sx("<=", 0, start), IMPLIED)
    b.guard(sx("<=", start, end), IMPLIED)
    b.guard(sx("<=", end, size), IMPLIED)


def jagged_split(n: int, seed: int = 0) -> str:
    return build_jagged_split(n, seed).text


def jagged_split_witness(n: int, seed: int = 0) -> dict[str, int]:
    return build_jagged_split(n, seed).witness


# ---------------------------------------------------------------- <= chain


def build_le_chain(n: int, seed: int = 0) -> Generated:
    """Unbacked ``u0 <= u1 <= ... <= u{n-1}`` with ``u0 >= 0`` (real guards), then
    implied guards ``u0 <= u_k``, ``u_k <= u{n-1}`` and ``u_k >= 0`` for several ``k``
    (the ends, evenly spaced ones and a few seeded ones)."""
    if n < 1:
        raise ValueError("le_chain needs n >= 1")
    rng = random.Random(f"chain:{n}:{seed}")
    values = [rng.randint(0, 16)]
    for _ in range(n - 1):
        values.append(values[-1] + rng.choice((0, 0, 1, rng.randint(1, 1 << 20))))
    b = _Builder("chain", f"generated by: python -m benchmarks.generators chain --n {n} --seed {seed}")
    us = [b.unbacked(f"u{i}", v) for i, v in enumerate(values)]
    b.guard(sx(">=", us[0], 0), REAL)
    for x, y in zip(us, us[1:]):
        b.guard(sx("<=", x, y), REAL)
    m = min(n - 1, 8)
    ks = {0, n - 1} | {round(j * (n - 1) / m) for j in range(1, m)} if m else {0}
    ks |= set(rng.sample(range(n), min(n, 3)))
    for k in sorted(ks):
        b.guard(sx("<=", us[0], us[k]), IMPLIED)
        b.guard(sx("<=", us[k], us[-1]), IMPLIED)
        b.guard(sx(">=", us[k], 0), IMPLIED)
    return b.done()


def le_chain(n: int, seed: int = 0) -> str:
    return build_le_chain(n, seed).text


def le_chain_witness(n: int, seed: int = 0) -> dict[str, int]:
    return build_le_chain(n, seed).witness


# ---------------------------------------------------------------- reshape chain


def build_reshape_chain(depth: int, seed: int = 0) -> Generated:
    """A 4-d tensor ``(s0, s1, s2, s3)`` viewed and reshaped ``depth`` times.

    Real guards first: ``s_i >= 0``, ``s_i != 0``, ``s_i != 1`` (not for ``s0``),
    ``s1 mod 8 = 0``, ``s3 mod 8 = 0``. Each level ``j`` (factor ``f`` cycling
    through 2, 4, 8) flattens ``s0*s1`` and checks the numel (implied), splits
    ``s1`` into ``(s1 div f, f)`` (``s1 mod f = 0``, ``(s1 div f)*f = s1``, numel:
    implied), views the flattened ``s0*s1`` as ``(s0*s1 div f, f)`` (implied, a
    nonlinear ``mod``) and adds one real guard: ``4 + j < s2`` on even levels,
    ``s0 + j <= s3`` on odd ones (each holds at the example; none follows from
    the guards before it).
    """
    if depth < 0:
        raise ValueError("reshape_chain needs depth >= 0")
    rng = random.Random(f"reshape:{depth}:{seed}")
    v0 = rng.randint(2, 32)
    v1 = 8 * rng.randint(1, 128)
    v2 = rng.randint(5 + depth, 5 + depth + 512)
    v3 = 8 * ((v0 + depth + 7) // 8 + rng.randint(0, 64))
    b = _Builder("reshape", f"generated by: python -m benchmarks.generators reshape --n {depth} --seed {seed}")
    s = [b.backed(f"s{i}", v) for i, v in enumerate((v0, v1, v2, v3))]
    for i, x in enumerate(s):
        b.guard(sx(">=", x, 0), REAL)
        _not_eq(b, x, 0, REAL)
        if i:
            _not_eq(b, x, 1, REAL)
    b.guard(sx("=", b.define("mod", "Int", sx("mod", s[1], 8)), 0), REAL)
    b.guard(sx("=", b.define("mod", "Int", sx("mod", s[3], 8)), 0), REAL)
    s0, s1, s2, s3 = s
    for j in range(depth):
        f = (2, 4, 8)[j % 3]
        # x.view(s0 * s1, s2, s3)
        flat = b.define("mul", "Int", sx("*", s0, s1))
        numel = b.define("mul", "Int", sx("*", flat, s2, s3))
        b.guard(sx("=", numel, sx("*", s0, sx("*", s1, s2), s3)), IMPLIED)
        # x.view(s0, s1 // f, f, s2, s3)
        b.guard(sx("=", b.define("mod", "Int", sx("mod", s1, f)), 0), IMPLIED)
        split = b.define("floordiv", "Int", sx("div", s1, f))
        b.guard(sx("=", sx("*", split, f), s1), IMPLIED)
        b.guard(sx("=", sx("*", s0, split, f, s2, s3), numel), IMPLIED)
        # x.view(s0 * s1 // f, f, s2, s3)
        rows = b.define("floordiv", "Int", sx("div", flat, f))
        b.guard(sx("=", b.define("mod", "Int", sx("mod", flat, f)), 0), IMPLIED)
        b.guard(sx("=", sx("*", rows, f), flat), IMPLIED)
        if j % 2 == 0:
            b.guard(sx("<", 4 + j, s2), REAL)
        else:
            b.guard(sx("<=", b.define("add", "Int", sx("+", s0, j)), s3), REAL)
    b.output("output0_size0", b.define("mul", "Int", sx("*", s0, s1)))
    b.output("output0_size1", s2)
    b.output("output0_size2", s3)
    b.output("output0_stride0", b.define("mul", "Int", sx("*", s2, s3)))
    b.output("output0_stride1", s3)
    b.output("output0_stride2", 1)
    b.output("output0_storage_offset", 0)
    return b.done()


def reshape_chain(depth: int, seed: int = 0) -> str:
    return build_reshape_chain(depth, seed).text


# ---------------------------------------------------------------- conv stack

#: (kernel, stride, padding); all have 2*padding + 1 <= kernel, so sizes never grow
CONV_LAYERS = ((3, 1, 1), (3, 2, 1), (1, 1, 0), (5, 1, 2), (7, 2, 3), (2, 2, 0), (3, 2, 0))
MAX_STRIDED = 5


def _conv_out(h: int, k: int, st: int, p: int) -> int:
    return (h + 2 * p - k) // st + 1


def _conv_chain(h: int, specs) -> list[int]:
    out = [h]
    for k, st, p in specs:
        out.append(_conv_out(out[-1], k, st, p))
    return out


def build_conv_stack(layers: int, seed: int = 0) -> Generated:
    """``layers`` convolutions / pools over a backed ``(N, C, H, W)`` input.

    Each layer (kernel ``k``, stride ``st``, padding ``p``) computes
    ``H' = (H + 2p - k) div st + 1`` (and ``W'``), then torch's check ``H' >= 1``:
    a real guard or an implied one, depending on what the earlier checks already
    force (worked out exactly: each check on ``H`` is a lower bound on the input
    ``H``, since ``H'`` is monotone in it). Implied guards per layer: ``H' <= H``
    and ``W' <= W`` and a nonlinear ``N*H'*W' >= 1``. Some layers, and the last,
    add a real lower bound ``H' >= c`` (an adaptive pool's minimum size).
    """
    if layers < 0:
        raise ValueError("conv_stack needs layers >= 0")
    rng = random.Random(f"conv:{layers}:{seed}")
    specs = []
    strided = 0
    for l in range(layers):
        choices = [s for s in CONV_LAYERS if strided < MAX_STRIDED or s[1] == 1]
        spec = (7, 2, 3) if l == 0 and layers > 2 else rng.choice(choices)
        strided += spec[1] > 1
        specs.append(spec)
    bounds_at = {l for l in range(layers) if rng.random() < 0.3} | ({layers - 1} if layers else set())
    sizes = (32, 64, 96, 128, 224, 256, 299, 384, 512)

    def example_size() -> int:
        h = rng.choice(sizes)
        while _conv_chain(h, specs)[-1] < 4 or min(_conv_chain(h, specs)) < 1:
            h *= 2
        return h

    vn, vc, vh, vw = rng.randint(1, 64), rng.choice((1, 3, 4, 16)), example_size(), example_size()
    b = _Builder("conv", f"generated by: python -m benchmarks.generators conv --n {layers} --seed {seed}")
    n, c, h, w = (b.backed(name, v) for name, v in (("N", vn), ("C", vc), ("H", vh), ("W", vw)))
    for x in (n, c, h, w):
        b.guard(sx(">=", x, 0), REAL)
        _not_eq(b, x, 0, REAL)
    for x in (h, w):
        _not_eq(b, x, 1, REAL)
    b.guard(sx("not", b.define("eq", "Bool", sx("=", sx("*", n, c, h, w), 0))), IMPLIED)

    # the guards on each spatial size are equivalent to `input >= bound`
    bound = {h: 2, w: 2}
    example = {h: vh, w: vw}

    def lower_bound(x: str, l: int, at_least: int) -> str:
        """Claim for ``size after l layers >= at_least``; updates the bound when real."""
        lo, hi = bound[x], example[x]
        if _conv_chain(lo, specs[:l])[-1] >= at_least:
            return IMPLIED
        assert _conv_chain(hi, specs[:l])[-1] >= at_least
        while hi - lo > 1:  # smallest input meeting it: monotone, so bisect
            mid = (lo + hi) // 2
            if _conv_chain(mid, specs[:l])[-1] >= at_least:
                hi = mid
            else:
                lo = mid
        bound[x] = hi
        return REAL

    cur = {h: h, w: w}
    channels = c
    for l, (k, st, p) in enumerate(specs):
        nxt = {}
        for x in (h, w):
            a = b.define("add", "Int", sx("+", cur[x], sx("*", 2, p), sx("-", k)))
            q = b.define("floordiv", "Int", sx("div", a, st))
            y = b.define("add", "Int", sx("+", q, 1))
            b.guard(sx(">=", y, 1), lower_bound(x, l + 1, 1))
            b.guard(sx("<=", y, cur[x]), IMPLIED)
            nxt[x] = y
        cur = nxt
        b.guard(sx(">=", sx("*", n, cur[h], cur[w]), 1), IMPLIED)
        if l in bounds_at:
            for x in (h, w):
                at_least = max(2, _conv_chain(example[x], specs[: l + 1])[-1] // 2)
                b.guard(sx(">=", cur[x], at_least), lower_bound(x, l + 1, at_least))
        channels = rng.choice((16, 32, 64, 128, 256))
    hw = b.define("mul", "Int", sx("*", cur[h], cur[w]))
    b.output("output0_size0", n)
    b.output("output0_size1", channels)
    b.output("output0_size2", cur[h])
    b.output("output0_size3", cur[w])
    b.output("output0_stride0", sx("*", channels, hw))
    b.output("output0_stride1", hw)
    b.output("output0_stride2", cur[w])
    b.output("output0_stride3", 1)
    b.output("output0_storage_offset", 0)
    return b.done()


def conv_stack(layers: int, seed: int = 0) -> str:
    return build_conv_stack(layers, seed).text


# ---------------------------------------------------------------- attention block


def build_attention_block(seed: int = 0, layers: int = 1) -> Generated:
    """The reshapes of ``layers`` multi-head attention blocks over a backed ``(B, S, D)``.

    Real guards: ``B, S, D >= 0``, ``!= 0``, ``S != 1``, ``S <= max_positions``,
    and in the first block ``D mod heads = 0`` and ``(D div heads) mod 8 = 0``
    (later blocks repeat them: implied). Implied: the numel checks of
    ``view(B, S, heads, D/heads)``, of ``flatten(0, 1)``, the reshape back
    ``heads*(D div heads) = D``, ``floor(S/2) <= ceil(S/2)`` and
    ``floor(S/2) + ceil(S/2) = S`` (a Real ``/`` with ``to_int`` and ``ceil``), the
    chunk count ``ceil(S/64)`` bounds and a corpus-style ``(not (< S S))``.
    """
    if layers < 1:
        raise ValueError("attention_block needs layers >= 1")
    rng = random.Random(f"attention:{layers}:{seed}")
    heads = rng.choice((4, 8, 12, 16))
    max_pos = rng.choice((512, 1024, 2048, 4096))
    vb, vs, vd = rng.randint(1, 32), rng.randint(2, max_pos), heads * 64 * rng.choice((1, 2))
    b = _Builder("attention", f"generated by: python -m benchmarks.generators attention --n {layers} --seed {seed}")
    bb, s, d = b.backed("B", vb), b.backed("S", vs), b.backed("D", vd)
    for x in (bb, s, d):
        b.guard(sx(">=", x, 0), REAL)
        _not_eq(b, x, 0, REAL)
    _not_eq(b, s, 1, REAL)
    b.guard(sx("<=", s, max_pos), REAL)
    for layer in range(layers):
        first = REAL if layer == 0 else IMPLIED
        b.guard(sx("=", b.define("mod", "Int", sx("mod", d, heads)), 0), first)
        hd = b.define("floordiv", "Int", sx("div", d, heads))
        bs = b.define("mul", "Int", sx("*", bb, s))
        numel = b.define("mul", "Int", sx("*", bs, d))
        # q.view(B, S, heads, D // heads).transpose(1, 2)
        b.guard(sx("=", sx("*", bb, s, d), sx("*", bb, s, heads, hd)), IMPLIED)
        b.guard(sx("=", b.define("mod", "Int", sx("mod", hd, 8)), 0), first)
        # attn.transpose(1, 2).reshape(B, S, D), then x.flatten(0, 1)
        b.guard(sx("=", sx("*", heads, hd), d), IMPLIED)
        b.guard(sx("=", sx("*", bb, s, d), numel), IMPLIED)
        b.guard(sx("not", sx("<", s, s)), IMPLIED)
        # a strided / pooled length: S / 2 as a Real, rounded both ways
        half = b.define("truediv", "Real", sx("/", s, 2))
        lo = b.define("floor", "Int", sx("to_int", half))
        hi = b.define("ceiling", "Int", sx("ceil", half))
        b.guard(sx("<=", lo, hi), IMPLIED)
        b.guard(sx("=", b.define("add", "Int", sx("+", lo, hi)), s), IMPLIED)
        b.guard(sx(">=", hi, 1), IMPLIED)
        # chunked attention: ceil(S / 64) chunks of 64
        chunks = b.define("floordiv", "Int", sx("div", sx("+", s, 63), 64))
        b.guard(sx(">=", sx("*", chunks, 64), s), IMPLIED)
        b.guard(sx("<", sx("*", chunks, 64), sx("+", s, 64)), IMPLIED)
    b.output("output0_size0", bb)
    b.output("output0_size1", s)
    b.output("output0_size2", d)
    b.output("output0_stride0", sx("*", s, d))
    b.output("output0_stride1", d)
    b.output("output0_stride2", 1)
    b.output("output0_storage_offset", 0)
    return b.done()


def attention_block(seed: int = 0, layers: int = 1) -> str:
    return build_attention_block(seed, layers).text


# ---------------------------------------------------------------- pooled encoder with skip connections


def build_pool_skip(levels: int, seed: int = 0) -> Generated:
    """A U-Net style encoder over a backed RGB ``(B, C, H, W)`` input with stride
    ``x_stride0``: ``levels`` ceil-mode 2x pools of ``H`` (``h_k = (h_{k-1} + 1) div 2``,
    implied ``h_k >= 1``), and on the way back each upsampled ``2*h_{k+1}`` concatenated
    with its skip ``h_k``, which torch checks equal (real guards: together they say
    ``H mod 2**levels`` is in a residue set, ``{0, 3}`` mod 4 for two levels). ``W`` is
    only pooled once, by an exact ``W mod 2 = 0`` check. Also real: ``B >= 1``, ``C = 3``
    (the model specialises on RGB), the input's stride, ``H, W >= 2`` and int32 numel.
    """
    if levels < 1:
        raise ValueError("pool_skip needs levels >= 1")
    rng = random.Random(f"pool_skip:{levels}:{seed}")
    period = 2 ** levels
    vh = period * rng.randint(4, 64) - rng.choice((0, 1))  # h_k even for k < levels
    vb, vw = rng.randint(1, 32), 2 * rng.randint(8, 256)
    b = _Builder("pool_skip", f"generated by: python -m benchmarks.generators pool_skip --n {levels} --seed {seed}")
    n, c, h, w = (b.backed(name, v) for name, v in (("B", vb), ("C", 3), ("H", vh), ("W", vw)))
    stride = b.backed("x_stride0", 3 * vh * vw)
    b.guard(sx(">=", n, 1), REAL)
    b.guard(sx("=", c, 3), REAL)
    b.guard(sx("=", stride, sx("*", c, h, w)), REAL)
    b.guard(sx(">=", h, 2), REAL)
    b.guard(sx(">=", w, 2), REAL)
    b.guard(sx("<=", sx("*", n, c, h, w), 2**31 - 1), REAL)
    b.guard(sx("=", b.define("mod", "Int", sx("mod", w, 2)), 0), REAL)
    sizes = [h]
    for _ in range(levels):
        a = b.define("add", "Int", sx("+", sizes[-1], 1))
        sizes.append(b.define("floordiv", "Int", sx("div", a, 2)))
        b.guard(sx(">=", sizes[-1], 1), IMPLIED)
    for k in range(levels - 1, 0, -1):  # decoder: cat(upsample(h_{k+1}), skip h_k)
        b.guard(sx("=", b.define("mul", "Int", sx("*", 2, sizes[k + 1])), sizes[k]), REAL)
    b.guard(sx(">=", sx("*", n, sizes[-1]), 1), IMPLIED)
    b.output("output0_size0", n)
    b.output("output0_size1", 64)
    b.output("output0_size2", sizes[1])
    b.output("output0_size3", b.define("floordiv", "Int", sx("div", w, 2)))
    return b.done()


def pool_skip(levels: int, seed: int = 0) -> str:
    return build_pool_skip(levels, seed).text




# ---------------------------------------------------------------- pooled input (presets demo)


def build_pooled_input(layers: int, seed: int = 0) -> Generated:
    """A contiguous NCHW input ``x`` and a ``bias`` of its channels, named as the corpus
    names inputs (``x_size0``, ``x_stride2``, ``bias_size0``), pooled ``layers`` times
    (kernel 2, stride 2: ``H' = (H - 2) div 2 + 1``).

    Real guards, as PyTorch records them: sizes ``>= 0``, ``x_size2 != 1``, ``x_size3 != 1``,
    the layout ``x_stride3 = 1`` and ``x_stride2 = x_size3``, ``bias_size0 = x_size1``, and
    ``x_size1 mod 64 = 0``, ``x_size1 <= 64``, ``x_size1 != 0``, which together fix
    ``x_size1 = 64`` (then ``x_size1 >= 1`` is implied); each pool's ``H' >= 1`` is real
    (``H >= 2**k``); after the last, ``H' <= H`` is implied. The presets close some real
    ones: ``ge2`` the ``!= 1`` guards and the first pool's, ``contiguous`` the layout,
    ``duck`` the bias's. The outputs (the pooled tensor, contiguous) are nested quotients
    and ``x_size1``, which the facts fix.
    """
    if not 1 <= layers <= 4:
        raise ValueError("pooled_input needs 1 <= layers <= 4")
    rng = random.Random(f"pool:{layers}:{seed}")
    n_, c_, h_, w_ = rng.randint(1, 16), 64, 16 * rng.randint(2, 8), 16 * rng.randint(2, 8)
    b = _Builder("pool", f"generated by: python -m benchmarks.generators pool --n {layers} --seed {seed}")
    size = [b.backed(f"x_size{d}", v) for d, v in enumerate((n_, c_, h_, w_))]
    stride = [b.backed(f"x_stride{d}", v) for d, v in enumerate((c_ * h_ * w_, h_ * w_, w_, 1))]
    b.backed("x_storage_offset", 0)
    bias = b.backed("bias_size0", c_)
    b.backed("bias_stride0", 1)
    for x in size:
        b.guard(sx(">=", x, 0), REAL)
    for x in size[2:]:
        _not_eq(b, x, 1, REAL)
    b.guard(sx("=", stride[3], 1), REAL)
    b.guard(sx("=", stride[2], size[3]), REAL)
    b.guard(sx(">=", bias, 0), REAL)
    b.guard(sx("=", bias, size[1]), REAL)
    b.guard(sx("=", b.define("mod", "Int", sx("mod", size[1], 64)), 0), REAL)
    b.guard(sx("<=", size[1], 64), REAL)
    _not_eq(b, size[1], 0, REAL)
    b.guard(sx(">=", size[1], 1), IMPLIED)
    cur = {2: size[2], 3: size[3]}
    for _ in range(layers):
        for d in (2, 3):
            q = b.define("floordiv", "Int", sx("div", sx("-", cur[d], 2), 2))
            cur[d] = b.define("add", "Int", sx("+", q, 1))
            b.guard(sx(">=", cur[d], 1), REAL)
    for d in (2, 3):
        b.guard(sx("<=", cur[d], size[d]), IMPLIED)
    b.output("output0_size0", size[0])
    b.output("output0_size1", size[1])
    b.output("output0_size2", cur[2])
    b.output("output0_size3", cur[3])
    b.output("output0_stride0", sx("*", size[1], cur[2], cur[3]))
    b.output("output0_stride1", sx("*", cur[2], cur[3]))
    b.output("output0_stride2", cur[3])
    b.output("output0_stride3", 1)
    b.output("output0_storage_offset", 0)
    return b.done()


# ---------------------------------------------------------------- registry and CLI

#: KIND -> (builder taking (n, seed), default n, meaning of n)
BUILDERS: dict[str, tuple[Callable[[int, int], Generated], int, str]] = {
    "jagged": (build_jagged_split, 8, "number of unbacked lengths"),
    "jagged_links": (lambda n, seed: build_jagged_split(n, seed, total="links"), 8,
                     "number of unbacked lengths; the total a chain of named two-term sums"),
    "jagged_chain": (lambda n, seed: build_jagged_split(n, seed, total="chain"), 8,
                     "number of unbacked lengths; the total the last split's end"),
    "chain": (build_le_chain, 16, "length of the <= chain"),
    "reshape": (build_reshape_chain, 3, "depth of the view/reshape chain"),
    "conv": (build_conv_stack, 4, "number of conv/pool layers"),
    "attention": (lambda n, seed: build_attention_block(seed, n), 1, "number of attention blocks"),
    "pool_skip": (build_pool_skip, 3, "number of ceil-mode 2x pools with skip connections"),
    "pool": (build_pooled_input, 2, "number of 2x2 pools over a contiguous NCHW input"),
}


def build(kind: str, n: int | None = None, seed: int = 0) -> Generated:
    fn, default, _ = BUILDERS[kind]
    return fn(default if n is None else n, seed)


#: file name -> (kind, n, seed) of the demo programs in examples/
EXAMPLES = {
    "conv_stack.smt2": ("conv", 4, 0),
    "attention_block.smt2": ("attention", 1, 0),
    "jagged_split.smt2": ("jagged", 8, 0),
    "le_chain.smt2": ("chain", 16, 0),
    "reshape_chain.smt2": ("reshape", 3, 0),
    "pool_skip.smt2": ("pool_skip", 3, 0),
    "pooled_input.smt2": ("pool", 2, 0),
}


def write_examples(out_dir: str) -> list[str]:
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for name, (kind, n, seed) in EXAMPLES.items():
        path = os.path.join(out_dir, name)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(build(kind, n, seed).text)
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    kinds = "\n".join(f"  {k:<12} --n: {meaning} (default {default})" for k, (_, default, meaning) in BUILDERS.items())
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.generators",
        description="Write a synthetic shape program (SMT-LIB 2, corpus dialect) with known "
        "answers: each assert is followed by '; T' (implied by the asserts before it) or "
        "'; ?' (a real guard).",
        epilog=f"kinds:\n{kinds}\n  examples   write every demo program into --out-dir",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("kind", choices=[*BUILDERS, "examples"], metavar="KIND",
                        help="one of: " + ", ".join([*BUILDERS, "examples"]))
    parser.add_argument("--n", type=int, default=None, help="size parameter of KIND (see below)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--out", metavar="FILE", help="write to FILE instead of stdout")
    parser.add_argument("--out-dir", metavar="DIR", default="examples",
                        help="directory for 'examples' (default: examples)")
    args = parser.parse_args(argv)
    if args.kind == "examples":
        for path in write_examples(args.out_dir):
            print(path)
        return 0
    try:
        text = build(args.kind, args.n, args.seed).text
    except ValueError as e:
        parser.error(str(e))
    if args.out:
        with open(args.out, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
