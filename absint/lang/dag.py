"""Walking term DAGs without recursion: terms nest thousands of levels deep.

Anything with ``id`` and ``args`` is a node here, so the printer and the evaluator can
walk terms without importing the term constructors (which print themselves through them).
"""

from __future__ import annotations

from typing import Container, Protocol, Sequence


class Node(Protocol):
    kind: str
    args: Sequence["Node"]
    data: object
    id: int


def subterms(root: Node, skip: Container[int] = ()) -> list[Node]:
    """The distinct sub-terms of ``root`` whose id is not in ``skip``, children before parents."""
    out: list[Node] = []
    seen: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        t, done = stack.pop()
        if done:
            out.append(t)
            continue
        if t.id in seen or t.id in skip:
            continue
        seen.add(t.id)
        stack.append((t, True))
        for a in t.args:
            if a.id not in seen:
                stack.append((a, False))
    return out
