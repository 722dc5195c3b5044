"""A witness repair reads Python's own ``min``, whatever wraps ``builtins.min``.

PyTorch's non-strict export replaces ``builtins.min``/``max`` for the whole trace with a
Python wrapper that folds a list one pair at a time (``torch/_export/non_strict_utils.py``,
``_override_builtin_ops``): 390 us for a 256-item list against 5 us. absint runs inside that
trace, so the smallest-degree search of a repair (one item a summand of a prefix sum) binds
``min`` at import (``witnesses._smallest``; ``absint.torch.install`` imports it before any
export). Checked here with a counting wrapper in ``builtins`` over a prefix-sum program
whose open questions are repaired; a planted lookup through ``builtins`` is caught.
"""

from __future__ import annotations

import builtins

import pytest

from absint.lang import terms as T
from absint.reasoning import witnesses as W
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Truth

N = 24


@pytest.fixture
def wrapped(monkeypatch):
    """``builtins.min``/``max`` wrapped as the export wraps them, each call over an
    iterable counted; and the repairs made counted."""
    seen = {"iterable": 0, "moves": 0}
    own_min, own_max = builtins.min, builtins.max

    def wrap(own):
        def wrapper(*args, **kwargs):
            if len(args) == 1:
                seen["iterable"] += 1
            return own(*args, **kwargs)
        return wrapper

    moves = W.Witnesses._moves

    def counted_moves(self, *args):
        seen["moves"] += 1
        return moves(self, *args)

    monkeypatch.setattr(W.Witnesses, "_moves", counted_moves)
    monkeypatch.setattr(builtins, "min", wrap(own_min))
    monkeypatch.setattr(builtins, "max", wrap(own_max))
    return seen


def _prefix_sum_questions() -> list[Truth]:
    """``u_i >= 0``, ``s = u0 + ... + u23``; each prefix asked ``== 2**63 - 1`` (open: shown
    so by a point repaired for it), ``<= s`` (TRUE) and ``< 0`` (FALSE)."""
    u = [T.var(f"u{i}", T.INT) for i in range(N)]
    s = T.var("s", T.INT)
    r = Reasoner()
    r.prefer_to_eliminate([s])
    for x in u:
        r.assume(T.ge(x, T.ZERO))
    r.assume(T.eq(s, T.add(*u)))
    out = []
    for k in range(1, N + 1):
        total = T.add(*u[:k])
        for g in (T.eq(total, T.const(2**63 - 1)), T.le(total, s), T.lt(total, T.ZERO)):
            out.append(r.decide(g).truth)
    return out


def test_a_repair_never_reads_min_through_builtins(wrapped):
    verdicts = _prefix_sum_questions()
    assert verdicts == [Truth.UNKNOWN, Truth.TRUE, Truth.FALSE] * N
    assert wrapped["moves"] > N  # the open questions were repaired: the search ran
    assert wrapped["iterable"] == 0


def test_a_planted_lookup_through_builtins_is_caught(wrapped, monkeypatch):
    monkeypatch.setattr(W, "_smallest", lambda items: builtins.min(items))
    _prefix_sum_questions()
    assert wrapped["iterable"] > 0


def test_the_torch_client_binds_it_when_imported():
    """``install()`` lives in ``absint.torch.client``: importing it (torch-free) imports the
    witnesses, so ``_smallest`` is bound before any export wraps ``builtins.min``."""
    import subprocess
    import sys

    code = "import sys, absint.torch.client; print('absint.reasoning.witnesses' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
