"""Which variables a question needs: union-find blocks and nearest-first slices.

Facts that relate several atoms (a bounded linear combination, a product and
its factors) put those atoms in one block. A guard whose atoms all sit in
blocks without such facts cannot gain anything from a relational domain, so the
expensive layer is skipped outright. Otherwise the slice handed to isl is the
part of the guard's block nearest to the guard, cut at a size limit: fewer
facts only weaken the premise, so any slice is sound, and a small one keeps
isl in its fast regime.
"""

from __future__ import annotations

from collections import deque
from typing import Callable, Hashable, Iterable, TypeVar

K = TypeVar("K", bound=Hashable)


class UnionFind:
    """Disjoint sets with union by size, and path halving unless journaling.

    While a journal is kept (:meth:`start_journal`), every union is logged and
    :meth:`undo_to` takes unions back, newest first; path halving is then off (it would
    rewrite parent links that an undone union must find as it left them), and union by
    size alone keeps every path at most ``log2 n`` long."""

    __slots__ = ("_parent", "_size", "_journal")

    def __init__(self) -> None:
        self._parent: dict = {}
        self._size: dict = {}
        #: (x, None, None): x was added; (ra, rb, size of rb): rb was hung below ra
        self._journal: list[tuple] | None = None

    def find(self, x: K) -> K:
        parent = self._parent
        if x not in parent:
            return x
        halve = self._journal is None
        while parent[x] is not x:
            if halve:
                parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(self, a: K, b: K) -> K:
        journal = self._journal
        for x in (a, b):
            if x not in self._parent:
                self._parent[x] = x
                self._size[x] = 1
                if journal is not None:
                    journal.append((x, None, None))
        ra, rb = self.find(a), self.find(b)
        if ra is rb:
            return ra
        if self._size[ra] < self._size[rb]:
            ra, rb = rb, ra
        self._parent[rb] = ra
        moved = self._size.pop(rb)
        self._size[ra] += moved
        if journal is not None:
            journal.append((ra, rb, moved))
        return ra

    def start_journal(self) -> int:
        """Log unions from now on (if not already); the journal's position, for :meth:`undo_to`."""
        if self._journal is None:
            self._journal = []
        return len(self._journal)

    def undo_to(self, position: int) -> None:
        """Take back the unions logged after ``position``, newest first."""
        journal = self._journal
        while journal is not None and len(journal) > position:
            ra, rb, moved = journal.pop()
            if rb is None:  # ra was added
                del self._parent[ra], self._size[ra]
                continue
            self._parent[rb] = rb
            self._size[ra] -= moved
            self._size[rb] = moved

    def stop_journal(self) -> None:
        """Stop logging (nothing logged so far can be undone any more)."""
        self._journal = None

    def union_all(self, items: Iterable[K]) -> None:
        items = list(items)
        if not items:
            return
        parent = self._parent
        if all(map(parent.__contains__, items)) and len(set(map(self.find, items))) == 1:
            return  # one block already (a prefix sum over lengths a total has joined): no union to make
        first = items[0]
        for x in items[1:]:
            self.union(first, x)

    def block_size(self, x: K) -> int:
        return self._size.get(self.find(x), 1)

    def related(self, x: K) -> bool:
        """Whether ``x`` shares a block with anything else."""
        return self.block_size(x) > 1


def nearest_slice(start: Iterable[K], neighbours: Callable[[K], Iterable[K]], limit: float,
                  weight: Callable[[K], float] = lambda _: 1, least_weight: float = 1) -> list[K]:
    """Breadth-first from ``start`` through ``neighbours``, nearest first, until the
    items' total ``weight`` reaches ``limit`` (the start items are always kept).

    Every weight is at least ``least_weight``: once nothing more can fit, the walk stops
    (a neighbourhood can be far larger than the slice: in a jagged split every prefix sum
    is a neighbour of every length)."""
    return nearest_block(start, neighbours, limit, weight, least_weight)[0]


def nearest_block(start: Iterable[K], neighbours: Callable[[K], Iterable[K]], limit: float,
                  weight: Callable[[K], float] = lambda _: 1, least_weight: float = 1) -> tuple[list[K], bool]:
    """:func:`nearest_slice`, and whether the slice is the whole connected block of the
    start items: then the walk from any item of it finds the same items."""
    start = list(start)
    seen: dict[K, None] = dict.fromkeys(start)
    total = sum(weight(x) for x in start)
    queue = deque(start)
    whole = True
    while queue and total + least_weight <= limit:
        x = queue.popleft()
        for n in neighbours(x):
            if n in seen:
                continue
            w = weight(n)
            if total + w > limit:
                whole = False
                continue
            seen[n] = None
            total += w
            queue.append(n)
            if total + least_weight > limit:
                break
    return list(seen), whole and not queue
