"""Tiny PyTorch programs whose shape reasoning absint.torch is meant to help, and the harness
that runs each with ``torch.export.export`` and ``torch.compile`` with absint off and on.

Used by ``tests/torch/test_torch_programs.py`` (soundness: nothing that works off fails on, no
guard or runtime assert gained, the artifacts agree with eager on valid inputs and reject
every bad input the artifact without absint rejects) and by ``benchmarks/torch_client.py``
(the table in ``docs/torch.md``). Each program is a function of tensors, with an example
input, the dimensions export treats as dynamic, more valid inputs, and *bad* inputs that
break its ``torch._check``s (eager raises on each).

Importing this module imports torch.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import torch
import torch.nn.functional as F

import absint.torch as absint_torch


@dataclass(frozen=True)
class Program:
    """One program: ``fn(*inputs)``; ``dims[i]``: the dynamic dimensions of input ``i`` in export."""

    name: str
    kind: str
    fn: Callable
    example: tuple
    dims: tuple
    valid: tuple = ()
    bad: tuple = ()


PROGRAMS: list[Program] = []


def program(kind: str, example, dims, valid=(), bad=()):
    """Register the decorated function as a program."""
    def register(fn):
        PROGRAMS.append(Program(fn.__name__, kind, fn, example, dims, tuple(valid), tuple(bad)))
        return fn
    return register


def t(*values):
    return torch.tensor(values)


def ar(n, *shape):
    """An exact float tensor (sums compare exactly)."""
    return torch.arange(n, dtype=torch.float32).reshape(*shape) if shape else torch.arange(n, dtype=torch.float32)


# ---------------------------------------------------------------- jagged splits

@program("jagged", (ar(10), t(3, 3, 4)), ((0,), ()), valid=[(ar(7), t(0, 5, 2))], bad=[(ar(9), t(3, 3, 4))])
def split_tolist(values, lengths):
    ls = lengths.tolist()
    for n in ls:
        torch._check(n >= 0)
    torch._check(sum(ls) == values.size(0))
    return [p.sum() for p in values.split(ls)]


@program("jagged", (ar(10), t(0, 3, 6, 10)), ((0,), ()), valid=[(ar(5), t(0, 0, 2, 5))],
         bad=[(ar(10), t(0, 4, 3, 10)), (ar(10), t(0, 3, 6, 11))])
def narrow_offsets(values, offsets):
    o = offsets.tolist()
    torch._check(o[0] == 0)
    for a, b in zip(o, o[1:]):
        torch._check(a <= b)
    torch._check(o[-1] <= values.size(0))
    return [values.narrow(0, a, b - a).sum() for a, b in zip(o, o[1:])]


@program("jagged", (ar(10), t(2, 7)), ((0,), ()), valid=[(ar(6), t(0, 6))], bad=[(ar(6), t(4, 2)), (ar(6), t(1, 9))])
def slice_between_items(values, ab):
    a, b = ab.tolist()
    torch._check(0 <= a)
    torch._check(a <= b)
    torch._check(b <= values.size(0))
    return values[a:b] * 2


@program("jagged", (ar(12), t(3, 4, 5)), ((0,), ()), valid=[(ar(3), t(1, 1, 1))], bad=[(ar(12), t(3, 4, 4))])
def split_then_cat(values, lengths):
    ls = lengths.tolist()
    for n in ls:
        torch._check(n >= 1)
    torch._check(sum(ls) == values.size(0))
    parts = values.split(ls)
    return torch.cat([p[:1] for p in parts])


@program("jagged", (ar(10), t(0, 3, 6, 10)), ((0,), ()), valid=[(ar(4), t(0, 1, 2, 4))],
         bad=[(ar(10), t(0, 6, 3, 10)), (ar(10), t(0, 3, 6, 9))])
def split_from_offsets(values, offsets):
    o = offsets.tolist()
    torch._check(o[0] == 0)
    for a, b in zip(o, o[1:]):
        torch._check(a <= b)
    torch._check(o[-1] == values.size(0))
    return [p.sum() for p in values.split([b - a for a, b in zip(o, o[1:])])]


@program("jagged", (ar(10), t(4, 6)), ((0,), ()), valid=[(ar(3), t(1, 2))], bad=[(ar(10), t(4, 5))])
def jagged_pad_first(values, lengths):
    a, b = lengths.tolist()
    torch._check(a >= 0)
    torch._check(b >= 0)
    torch._check(a + b == values.size(0))
    first, second = values.split([a, b])
    return F.pad(first, (0, b)) if a <= values.size(0) else second


@program("jagged", (ar(10), t(0, 3, 6, 10), ar(12)), ((0,), (), (0,)),
         valid=[(ar(10), t(0, 3, 6, 10), ar(4)), (ar(5), t(0, 0, 2, 5), ar(9))],
         bad=[(ar(10), t(0, 3, 6, 9), ar(12)), (ar(10), t(0, 6, 3, 10), ar(12))])
def offsets_last_is_size(values, offsets, other):
    """``torch._check(o[-1] == values.size(0))`` becomes a replacement under compile (its runtime
    assert can fold away); the user ``if`` after it is a backed question once replaced."""
    o = offsets.tolist()
    torch._check(o[0] == 0)
    for a, b in zip(o, o[1:]):
        torch._check(a <= b)
    torch._check(o[-1] == values.size(0))
    out = sum(values[a:b].sum() for a, b in zip(o, o[1:]))
    if o[-1] <= other.size(0):
        return out + other[: o[-1]].sum()
    return out


# ---------------------------------------------------------------- masks and nonzero

@program("mask", (ar(8) - 3,), ((0,),), valid=[(ar(5) - 4,)])
def nonzero_gather(x):
    idx = (x > 0).nonzero().squeeze(1)
    return x[idx].sum() + idx.size(0)


@program("mask", (ar(8) - 4,), ((0,),), valid=[(ar(12) - 4,)], bad=[(ar(7) - 4,)])
def masked_view_by_four(x):
    m = x[x >= 0]
    torch._check(m.size(0) % 4 == 0)
    return m.view(-1, 4).sum(1)


@program("mask", (ar(8) - 2,), ((0,),), valid=[(ar(3),)])
def nonzero_within_numel(x):
    n = x.nonzero().size(0)
    torch._check(n <= x.size(0))
    return x[:n].sum()


@program("mask", (ar(6, 2, 3) - 2,), ((0,),), valid=[(ar(12, 4, 3) - 5,)])
def mask_rows(x):
    keep = x.sum(1) > 0
    rows = x[keep]
    return rows.sum() + rows.size(0)


# ---------------------------------------------------------------- .item() as a size

@program("item", (t(5), ar(8)), ((), (0,)), valid=[(t(0), ar(3))], bad=[(t(9), ar(8)), (t(-1), ar(8))])
def item_prefix(n_t, v):
    n = n_t.item()
    torch._check(n >= 0)
    torch._check(n <= v.size(0))
    return v[:n].sum() + v[n:].sum()


@program("item", (t(16),), ((),), valid=[(t(8),)], bad=[(t(12),), (t(0),)])
def item_view_by_eight(n_t):
    n = n_t.item()
    torch._check(n >= 8)
    torch._check(n % 8 == 0)
    return torch.arange(n).view(-1, 8).sum(0)


@program("item", (t(3), t(4)), ((), ()), valid=[(t(1), t(1))], bad=[(t(0), t(2))])
def item_product_zeros(a_t, b_t):
    a, b = a_t.item(), b_t.item()
    torch._check(a >= 1)
    torch._check(b >= 1)
    z = torch.ones(a * b)
    return z.view(a, b).sum(1)


@program("item", (t(4), ar(10)), ((), (0,)), valid=[(t(1), ar(2))], bad=[(t(6), ar(10))])
def item_two_halves(n_t, v):
    n = n_t.item()
    torch._check(n >= 0)
    torch._check(2 * n <= v.size(0))
    return v[:n] + v[n:2 * n]


# ---------------------------------------------------------------- chains of torch._check(a <= b)

@program("chain", (t(1, 2, 3),), ((),), valid=[(t(2, 2, 2),)], bad=[(t(3, 2, 1),)])
def chain_if(abc):
    a, b, c = abc.tolist()
    torch._check(a <= b)
    torch._check(b <= c)
    return torch.ones(3) if a <= c else torch.zeros(3)


@program("chain", (t(1, 2, 3, 4, 5),), ((),), valid=[(t(0, 0, 1, 1, 9),)], bad=[(t(1, 2, 3, 5, 4),)])
def chain5_if(xs):
    a = xs.tolist()
    for x, y in zip(a, a[1:]):
        torch._check(x <= y)
    return torch.ones(2) if a[0] <= a[-1] else torch.zeros(2)


@program("chain", (t(1, 3), ar(6)), ((), (0,)), valid=[(t(0, 6), ar(6))], bad=[(t(3, 1), ar(6)), (t(1, 7), ar(6))])
def chain_slice_sizes(ab, v):
    a, b = ab.tolist()
    torch._check(a >= 0)
    torch._check(a <= b)
    torch._check(b <= v.size(0))
    out = v[a:b]
    return out.new_zeros(v.size(0) - out.size(0))


@program("chain", (t(2, 5),), ((),), valid=[(t(0, 1),)], bad=[(t(5, 5),)])
def strict_then_nonstrict(ab):
    a, b = ab.tolist()
    torch._check(a < b)
    return torch.ones(1) if b >= a + 1 else torch.zeros(1)


@program("chain", (t(1, 2, 4),), ((),), valid=[(t(0, 3, 3),)], bad=[(t(2, 1, 4),)])
def chain_zeros_difference(abc):
    a, b, c = abc.tolist()
    torch._check(a >= 0)
    torch._check(a <= b)
    torch._check(b <= c)
    return torch.zeros(c - a).sum() + torch.zeros(c - b).numel()


# ---------------------------------------------------------------- modulo

@program("modulo", (ar(16),), ((0,),), valid=[(ar(24),)], bad=[(ar(12),)])
def backed_view_after_mod(x):
    torch._check(x.size(0) % 8 == 0)
    return x.view(-1, 8).sum(0)


@program("modulo", (t(24),), ((),), valid=[(t(8),)], bad=[(t(10),)])
def unbacked_view_by_four_after_mod8(n_t):
    n = n_t.item()
    torch._check(n >= 0)
    torch._check(n % 8 == 0)
    return torch.ones(n).view(-1, 4).sum(1)


@program("modulo", (ar(12),), ((0,),), valid=[(ar(24),)], bad=[(ar(9),)])
def reshape_two_ways(x):
    torch._check(x.size(0) % 6 == 0)
    return x.view(-1, 3).sum() + x.view(2, -1).sum()


# ---------------------------------------------------------------- backed relations

@program("backed", (ar(5), ar(3)), ((0,), (0,)), valid=[(ar(2), ar(7))])
def cat_then_split(x, y):
    z = torch.cat([x, y])
    return z[:x.size(0)] - x, z[x.size(0):] - y


@program("backed", (ar(6),), ((0,),), valid=[(ar(3),)])
def pad_then_narrow(x):
    p = F.pad(x, (2, 1))
    return p.narrow(0, 2, x.size(0)) - x


@program("backed", (ar(2 * 3 * 9, 2, 3, 9),), ((2,),), valid=[(ar(2 * 3 * 12, 2, 3, 12),)])
def conv_output(x):
    w = torch.ones(4, 3, 3)
    y = F.conv1d(x, w)
    return y[..., : x.size(2) - 2].sum()


@program("backed", (ar(64, 4, 1, 16),), ((2,),), valid=[(ar(40, 4, 1, 10),), (ar(44, 4, 1, 11),)])
def pool_output(x):
    y = F.avg_pool1d(x, 2)
    return y.sum() + (x.size(2) // 2 - y.size(2))


@program("backed", (ar(5), ar(3)), ((0,), (0,)), valid=[(ar(3), ar(5)), (ar(4), ar(4))])
def if_sizes(x, y):
    if x.size(0) > y.size(0):
        return x[: y.size(0)] + y
    return y[: x.size(0)] - x


# ---------------------------------------------------------------- user ifs on data-dependent values

@program("if", (t(3, 4), ar(7)), ((), (0,)), valid=[(t(0, 2), ar(2))], bad=[(t(3, 3), ar(7))])
def if_part_le_total(lengths, v):
    a, b = lengths.tolist()
    torch._check(a >= 0)
    torch._check(b >= 0)
    torch._check(a + b == v.size(0))
    return v[:a].sum() if a <= v.size(0) else v.sum()


@program("if", (t(4),), ((),), valid=[(t(9),)], bad=[(t(2),)])
def if_after_range(n_t):
    n = n_t.item()
    torch._check(n >= 3)
    return torch.ones(n) if n > 2 else torch.zeros(1)


@program("if", (t(2, 6),), ((),), valid=[(t(0, 3),)], bad=[(t(3, 3),)])
def if_difference_positive(ab):
    a, b = ab.tolist()
    torch._check(a >= 0)
    torch._check(a < b)
    d = b - a
    return torch.ones(d) if d > 0 else torch.zeros(1)


@program("if", (t(3, 5), ar(8)), ((), (0,)), valid=[(t(1, 1), ar(2))], bad=[(t(3, 6), ar(8))])
def if_max_fits(ab, v):
    a, b = ab.tolist()
    torch._check(a >= 0)
    torch._check(b >= 0)
    torch._check(a + b <= v.size(0))
    return v[: max(a, b)].sum() if max(a, b) <= v.size(0) else v.sum()


@program("if", (t(2, 3), ar(6)), ((), (0,)), valid=[(t(1, 4), ar(4))], bad=[(t(2, 2), ar(6))])
def if_factor_le_product(ab, v):
    """``a <= a*b`` for ``b >= 1``: a product over a sum (absint's reasoning is being extended)."""
    a, b = ab.tolist()
    torch._check(a >= 1)
    torch._check(b >= 1)
    torch._check(a * b == v.size(0))
    return v.view(a, b).sum(1) if a <= v.size(0) else v


@program("chain", (torch.arange(12),), ((),), valid=[(torch.arange(12) // 3,)], bad=[(torch.arange(12).flip(0),)])
def chain12_if(xs):
    a = xs.tolist()
    for x, y in zip(a, a[1:]):
        torch._check(x <= y)
    return torch.ones(2) if a[0] <= a[-1] else torch.zeros(2)


# ---------------------------------------------------------------- other shapes PyTorch derives (coverage)

@program("other", (ar(2 * 3 * 5, 2, 3, 5),), ((2,),), valid=[(ar(2 * 3 * 7, 2, 3, 7),)])
def interpolate_nearest(x):
    return F.interpolate(x, scale_factor=2.0, mode="nearest").sum()


@program("other", (ar(4), t(1, 2, 0, 3)), ((0,), (0,)), valid=[(ar(3), t(0, 0, 5))])
def repeat_interleave_sizes(x, r):
    y = torch.repeat_interleave(x, r)
    return y.sum() + y.size(0)


@program("other", (t(1, 1, 2, 3, 3, 3),), ((0,),), valid=[(t(5, 4, 4),)])
def unique_count(x):
    u = torch.unique(x)
    return u.sum() + u.size(0)


@program("other", (ar(7) - 3,), ((0,),), valid=[(ar(10) - 8,)])
def index_select_half(x):
    idx = x.nonzero().squeeze(1)
    y = x.index_select(0, idx)
    return y[: (idx.size(0) + 1) // 2].sum()


@program("other", (ar(8),), ((0,),), valid=[(ar(5),)])
def float_size(x):
    n = int(x.size(0) * 0.5)
    return x[:n].sum()


# ---------------------------------------------------------------- the harness

@dataclass
class RunOutcome:
    """One run of one program in one mode (export/compile) with absint off or on."""

    ok: bool
    error: str | None = None
    data_dependent: bool = False
    guards: int = 0
    asserts: int = 0
    seconds: float = 0.0
    cpu: float = 0.0  # process CPU seconds of the traced call
    stats: dict = field(default_factory=dict)
    artifact: Callable | None = None


def _is_data_dependent(e: BaseException) -> bool:
    text = f"{type(e).__name__} {e}".lower()
    return "data-dependent" in text or "datadependent" in text or "data dependent" in text


def _assert_nodes(gm) -> int:
    n = 0
    for node in gm.graph.nodes:
        name = str(node.target)
        if node.op == "call_function" and ("assert" in name or "constrain_range" in name):
            n += 1
    return n


def _export(p: Program) -> RunOutcome:
    dyn = tuple({d: torch.export.Dim.DYNAMIC for d in dims} if dims else None for dims in p.dims)

    class Wrapper(torch.nn.Module):
        def forward(self, *args):
            return p.fn(*args)

    ep = torch.export.export(Wrapper(), p.example, dynamic_shapes=(dyn,))
    return RunOutcome(True, asserts=_assert_nodes(ep.graph_module), artifact=ep.module())


def _compile(p: Program) -> RunOutcome:
    import torch._dynamo
    from torch._guards import TracingContext

    seen = {}

    def backend(gm, example_inputs):
        seen["shape_env"] = TracingContext.get().fake_mode.shape_env
        seen["asserts"] = seen.get("asserts", 0) + _assert_nodes(gm)
        return gm.forward

    torch._dynamo.reset()
    f = torch.compile(p.fn, dynamic=True, backend=backend, fullgraph=True)
    f(*p.example)
    se = seen["shape_env"]
    return RunOutcome(True, guards=len(se.guards), asserts=seen["asserts"], artifact=f)


RUNNERS = {"export": _export, "compile": _compile}


def run(p: Program, how: str, absint: bool, check: bool = False, mode: str = "fallback",
        real: bool = False, unknown: str = "final") -> RunOutcome:
    """Trace ``p`` (export or compile) with absint installed (``mode``) or not; the artifact,
    the counts, the error if tracing failed. absint stays installed only while tracing: a
    compiled function that recompiles is called under :func:`call`. ``real``: fake tensors
    also carry real values (``fake_tensor_propagate_real_tensors``), so PyTorch knows the
    real value of each unbacked symbol and the check mode checks absint against them."""
    import torch._dynamo.config as dynamo_config
    import torch._functorch.config as functorch_config

    with dynamo_config.patch(capture_scalar_outputs=True, capture_dynamic_output_shape_ops=True), \
            functorch_config.patch(fake_tensor_propagate_real_tensors=real):
        start, cpu = time.perf_counter(), time.process_time()
        try:
            if absint:
                with absint_torch.enabled(mode, check=check, unknown=unknown):
                    out = RUNNERS[how](p)
                    out.stats = absint_torch.stats()
            else:
                out = RUNNERS[how](p)
        except Exception as e:  # noqa: BLE001 - the outcome is what is measured
            out = RunOutcome(False, type(e).__name__, _is_data_dependent(e),
                             stats=absint_torch.stats() if absint else {})
        out.seconds = time.perf_counter() - start
        out.cpu = time.process_time() - cpu
    return out


def call(artifact: Callable, inputs: tuple, absint: bool):
    """Call an artifact (a compiled function may retrace: under absint when it was traced so)."""
    import torch._dynamo.config as dynamo_config

    with dynamo_config.patch(capture_scalar_outputs=True, capture_dynamic_output_shape_ops=True):
        if absint:
            with absint_torch.enabled("fallback"):
                return artifact(*inputs)
        return artifact(*inputs)


def same(a, b) -> bool:
    """Outputs equal (tensors exactly, nested lists and tuples element-wise)."""
    from torch.utils._pytree import tree_flatten

    xs, sx = tree_flatten(a)
    ys, sy = tree_flatten(b)
    if sx != sy or len(xs) != len(ys):
        return False
    for x, y in zip(xs, ys):
        if isinstance(x, torch.Tensor) != isinstance(y, torch.Tensor):
            return False
        if isinstance(x, torch.Tensor) and not (x.shape == y.shape and torch.equal(x, y)):
            return False
        if not isinstance(x, torch.Tensor) and x != y:
            return False
    return True


def rejects(fn: Callable, inputs: tuple) -> bool:
    try:
        fn(*inputs)
    except Exception:  # noqa: BLE001 - any error is a rejection
        return True
    return False


@dataclass
class Checked:
    """A run, then its artifact on every input at once (a compiled function retraces on
    new sizes: the same absint setting as its tracing)."""

    outcome: RunOutcome
    valid: list = field(default_factory=list)  # per valid input: "ok", "wrong" (differs from eager) or "rejected"
    rejected: list = field(default_factory=list)  # for each bad input: whether the artifact raised


def run_and_check(p: Program, how: str, absint: bool) -> Checked:
    out = run(p, how, absint, check=absint)
    c = Checked(out)
    if not out.ok:
        return c
    for inputs in (p.example, *p.valid):
        try:
            got = call(out.artifact, inputs, absint)
        except Exception:  # noqa: BLE001 - an exported program rejects inputs off its guards
            c.valid.append("rejected")
            continue
        c.valid.append("ok" if same(got, p.fn(*inputs)) else "wrong")
    for inputs in p.bad:
        c.rejected.append(rejects(lambda *a: call(out.artifact, a, absint), inputs))
    return c


#: the sessions checked in as ``tests/data/torch_traces.jsonl`` (small): fallback runs of programs only
#: absint lets trace, shadow runs (PyTorch's answer to every plain question) of others
TRACE_SELECTION = (
    [(name, how, "fallback") for name in ("chain_if", "chain5_if", "if_part_le_total", "jagged_pad_first")
     for how in ("export", "compile")]
    + [("offsets_last_is_size", "compile", "fallback")]
    + [(name, how, "shadow") for name in ("split_tolist", "slice_between_items", "item_view_by_eight",
                                          "unbacked_view_by_four_after_mod8", "if_sizes", "masked_view_by_four",
                                          "reshape_two_ways") for how in ("export", "compile")]
)


def record_traces(path: str, selection=TRACE_SELECTION) -> None:
    """Trace the selected (program, export|compile, fallback|shadow) with absint, recording
    the sessions to ``path`` (JSONL, :mod:`absint.torch.trace`), each labelled with them.
    Exports propagate real tensors: the trace then has the real value of unbacked questions."""
    by_name = {p.name: p for p in PROGRAMS}
    try:
        for name, how, mode in selection:
            absint_torch.record(path, label=f"{name}/{how}/{mode}")
            run(by_name[name], how, absint=True, mode=mode, real=how == "export")
    finally:
        absint_torch.record(None)
