"""What the client did: questions asked and answered, by whom, time spent, what it could not read.

One :class:`Stats` is shared by every bridge of an installation (a ShapeEnv's bridge dies
with it; its counts stay). Values handed out (:meth:`Stats.snapshot`, :class:`Disagreement`)
are plain and frozen, so a caller can keep them while compilation goes on.
"""

from __future__ import annotations

from collections import Counter

import attrs


@attrs.frozen(slots=True)
class Disagreement:
    """absint and PyTorch gave opposite answers (shadow mode), or absint's answer was false at
    the example point (check mode): each is a bug to look at, in absint or in the facts."""

    kind: str  # "torch" (against PyTorch's answer) or "example" (against the values at the hints)
    expr: str
    torch: str  # PyTorch's answer: "true", "false" or "none"
    absint: str  # absint's: "true" or "false"
    route: str
    by: str


@attrs.frozen(slots=True)
class TorchOnly:
    """A question PyTorch decided (shadow mode) that absint read and left UNKNOWN."""

    expr: str
    torch: str  # "true" or "false"
    route: str


@attrs.define(slots=True)
class Stats:
    """Counters of one installation (all modes)."""

    asked: int = 0  # plain calls absint was asked about
    passed_through: int = 0  # calls with axioms=/var_to_range=/compute_hint/unbacked_only
    unbacked_kept: int = 0  # primary: unbacked_only calls answered with the question itself
    torch_decided: int = 0  # plain calls PyTorch answered itself
    decided: Counter = attrs.Factory(Counter)  # absint TRUE/FALSE, by layer
    routes: Counter = attrs.Factory(Counter)  # absint TRUE/FALSE, by reasoner (entry/full)
    answered: int = 0  # fallback: None from PyTorch turned into true/false; primary: absint's true/false
    unread: int = 0  # primary: questions absint could not read completely, sent to PyTorch
    final_unknown: int = 0  # primary: UNKNOWN returned as None without asking PyTorch
    unknown_to_torch: int = 0  # primary: UNKNOWN sent to PyTorch (ask_torch, size_oblivious)
    undecided: int = 0  # absint UNKNOWN (or could not read the question)
    shown_open: int = 0  # UNKNOWNs the witness points showed true and false: no reasoner decides them
    gaps: Counter = attrs.Factory(Counter)  # sympy classes absint cannot read, in questions
    fact_gaps: Counter = attrs.Factory(Counter)  # the same, in facts (left out)
    errors: Counter = attrs.Factory(Counter)
    rebuilds: int = 0  # ShapeEnv rollbacks seen
    check_failures: int = 0
    sync_seconds: float = 0.0  # CPU of the tracing thread (time.thread_time): what other processes do is not counted
    decide_seconds: float = 0.0
    disagreements: list = attrs.Factory(list)
    torch_only: list = attrs.Factory(list)  # TorchOnly: PyTorch decided, absint read it and said UNKNOWN
    inductor: Counter = attrs.Factory(Counter)  # Inductor's own questions (absint.torch.inductor), by outcome
    inductor_unproved: list = attrs.Factory(list)  # evaluate_min choices absint could not prove

    def snapshot(self) -> dict:
        """A plain copy (dicts and numbers) for printing or JSON."""
        return {
            "asked": self.asked, "passed_through": self.passed_through, "unbacked_kept": self.unbacked_kept,
            "torch_decided": self.torch_decided,
            "decided_by_layer": dict(self.decided), "decided_by_route": dict(self.routes),
            "answered": self.answered, "undecided": self.undecided, "shown_open": self.shown_open,
            "unread": self.unread,
            "final_unknown": self.final_unknown, "unknown_to_torch": self.unknown_to_torch,
            "gaps": dict(self.gaps), "fact_gaps": dict(self.fact_gaps), "errors": dict(self.errors),
            "rebuilds": self.rebuilds, "check_failures": self.check_failures,
            "sync_seconds": self.sync_seconds, "decide_seconds": self.decide_seconds,
            "disagreements": len(self.disagreements), "torch_only": len(self.torch_only),
            "inductor": dict(self.inductor), "inductor_unproved": list(self.inductor_unproved),
        }
