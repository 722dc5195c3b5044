"""The undo log behind :meth:`absint.reasoning.reasoner.Reasoner.checkpoint`.

A tentative fact (a value tried for an input, a branch explored) must be taken back
without rebuilding the reasoner. Every layer that keeps state across calls writes each
change it makes into one :class:`Trail` *while a checkpoint is open*: an entry is the
call that undoes the change (``(dict.pop, key)`` for a new key, ``(dict.__setitem__,
key, old)`` for a narrowed value). Rolling back replays the entries newest first, so
each one meets the state its change left, and containers whose order matters (a key's
parents) come back in the same order. With no checkpoint open nothing is recorded: the
batch path pays one attribute test per change.

Scalars that only grow or flip one way (the epoch, the contradiction flag, the
polyhedral back-off counters) are not logged: a checkpoint keeps their values and
rollback puts them back (see each layer's ``mark``/``restore``). The epoch is restored,
not kept increasing: every memo keyed by it (the normal form's tentative results) is
itself logged and undone, so no result of the rolled-back future survives to be
mistaken for a current one, and the state equals that of a reasoner never given the
rolled-back facts.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator

import attrs


class CheckpointError(ValueError):
    """A checkpoint that cannot be rolled back to here: another reasoner's, or one
    discarded by a rollback to an older checkpoint or by :meth:`commit`."""


@attrs.frozen(slots=True, eq=False)
class Checkpoint:
    """A point to come back to: where the trail stood, and the scalars it does not log.

    ``owner`` is the token of the reasoner that made it (a checkpoint of another one is
    refused); compared by identity."""

    owner: object = attrs.field(repr=False)
    serial: int
    position: int
    marks: tuple


class Trail:
    """The undo log: ``recording`` while a checkpoint is open, entries ``(undo, *args)``."""

    __slots__ = ("entries", "recording")

    def __init__(self) -> None:
        self.entries: list[tuple] = []
        self.recording = False

    def push(self, undo: Callable[..., Any], *args: Any) -> None:
        """Log ``undo(*args)`` (the caller tests ``recording`` first on hot paths)."""
        if self.recording:
            self.entries.append((undo, *args))

    def set_attribute(self, obj: object, name: str, value: Any) -> None:
        """``obj.name = value``, logged."""
        if self.recording:
            self.entries.append((setattr, obj, name, getattr(obj, name)))
        setattr(obj, name, value)

    def set_item(self, d: dict, key: Any, value: Any) -> None:
        """``d[key] = value``, logged (the old value, or the key's absence)."""
        if self.recording:
            if key in d:
                self.entries.append((d.__setitem__, key, d[key]))
            else:
                self.entries.append((d.pop, key))
        d[key] = value

    def add(self, s: set, item: Any) -> None:
        """``s.add(item)``, logged when ``item`` is new."""
        if self.recording and item not in s:
            self.entries.append((s.discard, item))
        s.add(item)

    def undo_to(self, position: int) -> None:
        """Undo every change logged after ``position``, newest first."""
        entries = self.entries
        while len(entries) > position:
            undo, *args = entries.pop()
            undo(*args)


def truncate(d: dict | list, length: int) -> None:
    """Drop the entries of an append-only dict added after it had ``length`` entries
    (``popitem`` takes the newest), or of a list."""
    if isinstance(d, list):
        del d[length:]
        return
    while len(d) > length:
        d.popitem()


@contextmanager
def tentatively(owner) -> Iterator[Any]:
    """``with tentatively(x): ...`` for anything with ``checkpoint``/``rollback``/``commit``
    (the reasoner, the API's ShapeReasoner): what the block does is taken back when it
    ends, normally or by an exception; the block receives the checkpoint."""
    cp = owner.checkpoint()
    try:
        yield cp
    finally:
        owner.rollback(cp)
        owner.commit(cp)
