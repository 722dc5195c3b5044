"""The metamorphic check: a program and its rewrite must get the same verdict letters.

The letters are those ``absint analyze`` gives (:func:`absint.batch.analyze.analyze_bytes`,
the function its workers run, in a fresh term table). A rewrite that changes one letter is a
:class:`Difference` (file, assert index, letter before and after); a rewrite that fails, or
whose text absint cannot read, is an error; one over the size limit is skipped.
"""

from __future__ import annotations

from typing import Callable

import attrs

from absint.batch.analyze import analyze_bytes
from absint.batch.record import FileRecord
from absint.metamorphic.rewrites import MAX_TOKENS, REWRITES, Commands
from absint.metamorphic.scope import TooLarge
from absint.metamorphic.sexpr import parse, render_program

IDENTICAL, DIFFERENT, SKIPPED, ERROR = "identical", "different", "skipped", "error"


@attrs.frozen(slots=True)
class Difference:
    file: str
    rewrite: str
    index: int
    before: str
    after: str

    def __str__(self) -> str:
        return f"{self.file} assert {self.index}: {self.before} -> {self.after} ({self.rewrite})"


@attrs.frozen(slots=True)
class RewriteOutcome:
    """One rewrite of one file: ``status`` is identical, different (``differences``), skipped
    or error (``message`` says why)."""

    file: str
    rewrite: str
    status: str
    differences: tuple[Difference, ...] = ()
    message: str = ""

    def to_json(self) -> dict:
        return {"file": self.file, "rewrite": self.rewrite, "status": self.status, "message": self.message,
                "differences": [attrs.asdict(d) for d in self.differences]}


def letters_of(name: str, text: str) -> FileRecord:
    """The record ``absint analyze`` makes of ``text`` (its ``verdicts``, or its ``error``)."""
    return analyze_bytes(name, text.encode("utf-8"))


def rewritten(text: str, rewrite: Callable[[Commands, int], Commands], max_tokens: int = MAX_TOKENS) -> str:
    """The text of ``rewrite`` applied to ``text``'s commands."""
    return render_program(rewrite(parse(text), max_tokens))


def check(name: str, text: str, rewrite: str | Callable[[Commands, int], Commands], before: FileRecord | None = None,
          max_tokens: int = MAX_TOKENS) -> RewriteOutcome:
    """``text`` (named ``name``) against its rewrite; ``rewrite``: a name in :data:`REWRITES`
    or any function of commands (a test's planted one); ``before``: the record of ``text``,
    when the caller has it already."""
    label = rewrite if isinstance(rewrite, str) else getattr(rewrite, "__name__", "rewrite")
    apply = REWRITES[rewrite].apply if isinstance(rewrite, str) else rewrite
    before = before if before is not None else letters_of(name, text)
    if before.error:
        return RewriteOutcome(name, label, SKIPPED, message=f"the program itself is not analysed: {before.error}")
    try:
        new_text = rewritten(text, apply, max_tokens)
    except TooLarge as e:
        return RewriteOutcome(name, label, SKIPPED, message=str(e))
    except Exception as e:  # noqa: BLE001 - a rewrite that fails is this file's error, not the run's
        return RewriteOutcome(name, label, ERROR, message=f"the rewrite failed: {type(e).__name__}: {e}")
    after = letters_of(name, new_text)
    if after.error:
        return RewriteOutcome(name, label, ERROR, message=f"the rewritten program is not analysed: {after.error}")
    if len(after.verdicts) != len(before.verdicts):
        return RewriteOutcome(name, label, ERROR,
                              message=f"{len(after.verdicts)} asserts after, {len(before.verdicts)} before")
    differences = tuple(Difference(name, label, i, b, a) for i, (b, a) in enumerate(zip(before.verdicts, after.verdicts))
                        if not same_letter(b, a, i, _proved_contradictory(before, after)))
    return RewriteOutcome(name, label, DIFFERENT if differences else IDENTICAL, differences)


def same_letter(before: str, after: str, index: int, contradictory_after: int | None) -> bool:
    """The same verdict; past an assert after which either run proved the facts contradictory
    (they mean the same, so the proof holds for both), T and F are the same too: each holds
    vacuously, and which one a run reports depends on when it noticed."""
    if before == after:
        return True
    return contradictory_after is not None and index > contradictory_after and "?" not in (before, after)


def _proved_contradictory(before: FileRecord, after: FileRecord) -> int | None:
    found = [r.contradiction for r in (before, after) if r.contradiction is not None]
    return min(found) if found else None
