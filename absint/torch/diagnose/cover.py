"""The fewest checks that decide every question of a run: a greedy set cover.

A check is a line to paste (its key: file, line and statement), so the same
``torch._check(start + n <= values.size(0))`` found at every pass of a loop is one check
deciding all of them, and a fact found at one question that decides later ones too (the
recorder's pool) covers them all. Each step takes the check that decides most of the
questions left, preferring, in order: one that can be pasted (written in the frame's own
variables), one PyTorch alone would use (the user may export without absint), more
questions, the question itself over a stronger fact (the weakest), the earliest found.
Torch-free.
"""

from __future__ import annotations

from absint.missing import KINDS
from absint.torch.diagnose.model import Check, Question, Suggestion


def choose(questions: tuple[Question, ...] | list[Question], run: int = 0,
           taken: frozenset[str] = frozenset()) -> list[Suggestion]:
    """Suggestions that together decide every question that has a check; ``taken``: keys
    already pasted (not suggested again)."""
    options: dict[str, list] = {}  # key -> [check, covered, covered for PyTorch, first seen]
    for q in questions:
        for c in q.checks:
            if c.key in taken:
                continue
            o = options.setdefault(c.key, [c, set(), set(), q.index])
            o[1].add(q.index)
            if c.pytorch:
                o[2].add(q.index)
    left = {q.index for q in questions}
    out = []
    while left and options:
        key = max(options, key=lambda k: _score(options[k], left))
        check, covered, _, _ = options.pop(key)
        if not covered & left:
            break
        out.append(Suggestion(check, tuple(sorted(covered & left)), run))
        left -= covered
    return out


def _score(option: list, left: set) -> tuple:
    check, covered, for_pytorch, first = option
    return (check.pasteable, len(for_pytorch & left), len(covered & left),
            -KINDS.index(check.kind) if check.kind in KINDS else -len(KINDS), -first)


def lines(checks: list[Check]) -> int:
    """How many lines pasting ``checks`` adds."""
    return sum(len(c.statement.splitlines()) for c in checks if c.statement is not None)
