"""Three-valued answers that say which layer gave them."""

from __future__ import annotations

import enum
from typing import Sequence

import attrs


class Truth(enum.Enum):
    TRUE = "T"
    FALSE = "F"
    UNKNOWN = "?"


class Layer(str, enum.Enum):
    """Which reasoning layer decided a verdict (cheapest first)."""

    NORMAL_FORM = "normal-form"
    INTERVAL = "interval-congruence"
    ZONES = "difference-bounds"
    POLYHEDRA = "polyhedra"
    CASE_SPLIT = "case-split"
    CONTRADICTION = "contradiction"
    NONE = "none"


@attrs.frozen(slots=True)
class Verdict:
    """A truth and the layer that gave it; a FALSE from a question that asks for a witness
    (``ShapeReasoner.equivalent``) carries ``counterexample``, a point {symbol: value} the
    evaluator confirmed, and an UNKNOWN shown open carries ``open_at`` (neither is part of
    equality: a verdict is its truth and layer)."""

    truth: Truth
    by: Layer = Layer.NONE
    counterexample: dict | None = attrs.field(default=None, eq=False, repr=False)
    #: an UNKNOWN the witness points showed both ways: the guard's variables at a model of the
    #: facts where it holds and at one where it fails; no sound reasoner decides such a guard
    #: (a pair of dicts, restricted to the guard's variables when first read: witnesses.OpenPair)
    open_at: Sequence[dict] | None = attrs.field(default=None, eq=False, repr=False)

    @property
    def letter(self) -> str:
        """``T``, ``F`` or ``?``: the JSONL contract's alphabet."""
        return self.truth.value

    def __bool__(self) -> bool:  # pragma: no cover - guard against `if verdict:` mistakes
        raise TypeError("a Verdict is three-valued: compare .truth with Truth.TRUE")

    @classmethod
    def true(cls, by: Layer) -> "Verdict":
        return cls(Truth.TRUE, by)

    @classmethod
    def false(cls, by: Layer) -> "Verdict":
        return cls(Truth.FALSE, by)


UNKNOWN = Verdict(Truth.UNKNOWN, Layer.NONE)
