"""PyTorch's newer ways of saying the same things, under absint: ``torch._check(x >= 0)`` in
place of the deprecated ``_check_is_size``, the data-dependent friendly ``guard_or_false`` /
``guard_or_true``, and the ``backed_size_oblivious`` config (backed sizes treated as
unbacked ones by ``guard_or_*``, read in ``torch/fx/experimental/symbolic_shapes.py:
_guard_or`` of torch 2.13 to 2.15: a plain static evaluation, else the default). Each
program traces under primary and shadow as it does off, with no disagreement and no more
runtime asserts or guards, and the result computes what eager does on other inputs."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="needs torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

import torch_programs as tp  # noqa: E402
from torch.fx.experimental.symbolic_shapes import guard_or_false, guard_or_true  # noqa: E402


def sizes_checked(values, lengths):
    ls = lengths.tolist()
    for n in ls:
        torch._check(n >= 0)  # not the deprecated torch._check_is_size(n)
    torch._check(sum(ls) == values.size(0))
    return [p.sum() for p in values.split(ls)]


def pad_or_cut(values, n_tensor):
    n = n_tensor.item()
    torch._check(n >= 0)
    torch._check(n <= values.size(0))
    if guard_or_false(n == 0):  # a fast path; undecided, the general one (the same result)
        return values[:0] * 2
    return values[:n] * 2


def keep_unless_empty(values, n_tensor):
    n = n_tensor.item()
    torch._check(n >= 1)
    if guard_or_true(n != 0):  # decided by the check: absint says so, PyTorch's ranges too
        return values[:1] * n
    return values


PROGRAMS = [
    tp.Program("sizes_checked", "jagged", sizes_checked, (tp.ar(10), tp.t(3, 3, 4)), ((0,), ()),
               valid=[(tp.ar(7), tp.t(0, 5, 2))], bad=[(tp.ar(9), tp.t(3, 3, 4))]),
    tp.Program("pad_or_cut", "item", pad_or_cut, (tp.ar(10), torch.tensor(4)), ((0,), ()),
               valid=[(tp.ar(6), torch.tensor(6)), (tp.ar(3), torch.tensor(0))]),
    tp.Program("keep_unless_empty", "item", keep_unless_empty, (tp.ar(10), torch.tensor(3)), ((0,), ()),
               valid=[(tp.ar(5), torch.tensor(1))], bad=[(tp.ar(5), torch.tensor(0))]),
]


def _check_against_off(p, how: str, mode: str) -> None:
    off = tp.run(p, how, absint=False)
    on = tp.run(p, how, absint=True, mode=mode)
    assert off.ok, f"{p.name} does not trace off: {off.error}"
    assert on.ok, f"{p.name} traces off but not under {mode}: {on.error}"
    assert on.asserts <= off.asserts and on.guards <= off.guards, (p.name, mode, on.asserts, off.asserts)
    assert on.stats["asked"] > 0, f"absint was asked nothing in {p.name}"
    assert on.stats["disagreements"] == 0 and on.stats["check_failures"] == 0, on.stats
    for inputs in (p.example, *p.valid):
        got = tp.call(on.artifact, inputs, absint=False)
        assert tp.same(got, p.fn(*inputs)) and tp.same(got, tp.call(off.artifact, inputs, absint=False)), \
            (p.name, mode, inputs)
    for inputs in p.bad:
        assert tp.rejects(lambda *a: tp.call(on.artifact, a, absint=False), inputs) == \
            tp.rejects(lambda *a: tp.call(off.artifact, a, absint=False), inputs), (p.name, mode, inputs)


@pytest.mark.parametrize("p", PROGRAMS, ids=lambda p: p.name)
@pytest.mark.parametrize("mode", ["primary", "shadow"])
def test_newer_apis_trace_as_off(p, mode):
    _check_against_off(p, "export", mode)


@pytest.mark.parametrize("p", PROGRAMS[1:], ids=lambda p: p.name)
def test_backed_size_oblivious_traces_as_off(p):
    import torch.fx.experimental._config as fx_config

    with fx_config.patch(backed_size_oblivious=True):
        for mode in ("primary", "shadow"):
            _check_against_off(p, "export", mode)
