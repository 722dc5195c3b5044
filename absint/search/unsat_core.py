"""Which asserts contradict the wants: a small subset, each step checked by the reasoner.

An ``impossible`` answer names the asserts it needs, so a user sees *why* (``s1 mod 8 = 0``
against ``s1 == 13``) instead of a whole file. The subset is found by linear
progression (deleting asserts one at a time would be quadratic in the asserts;
this is linear per member of the subset): assume the wants, then the asserts in order
until the reasoner reaches a contradiction at assert ``k``; ``k`` is needed. Then, from
the root again, the wants and the needed asserts, then the asserts before the last one
found, until the next contradiction; that assert is needed too. When the wants and the
needed asserts alone contradict, a last pass drops each one whose removal keeps the
contradiction.

Every set returned has been seen contradictory by the reasoner in one pass (whose
contradictions are sound): when the budget runs out, or the reasoner's order
dependence hides a contradiction it found in another order, the answer is the last set
known to contradict, larger but still a proof. All passes run from one checkpoint
(``root``), rolled back between passes.
"""

from __future__ import annotations

import time
from typing import Callable, Iterable, Sequence

from absint.lang.terms import Term
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.trail import Checkpoint

#: the final deletion pass is tried only on subsets at most this large
MAX_DELETION = 24


def first_contradiction(r: Reasoner, facts: Sequence[Term], indexes: Iterable[int]) -> int | None:
    """Assume ``facts[i]`` for ``i`` in order; the first ``i`` after which the reasoner is
    contradictory, or None."""
    for i in indexes:
        r.assume(facts[i])
        if r.contradiction:
            return i
    return None


def _assume(r: Reasoner, terms: Iterable[Term]) -> bool:
    for t in terms:
        r.assume(t)
        if r.contradiction:
            return True
    return r.contradiction


def contradicting(r: Reasoner, root: Checkpoint, facts: Sequence[Term], wants: Sequence[Term],
                  k: int, deadline: float) -> tuple[int, ...]:
    """Indexes of facts that with ``wants`` contradict, given that the wants then
    ``facts[0..k]`` (in that order, from ``root``) did. Leaves ``r`` at ``root``."""
    core, limit = [k], k
    while True:
        r.rollback(root)
        if _assume(r, [*wants, *(facts[i] for i in core)]):
            break
        if time.monotonic() > deadline:
            r.rollback(root)
            return tuple(sorted({*core, *range(limit)}))
        j = first_contradiction(r, facts, [i for i in range(limit) if i not in core])
        if j is None:  # seen contradictory only in the earlier order: keep that set
            r.rollback(root)
            return tuple(sorted({*core, *range(limit)}))
        core.append(j)
        limit = j
    if len(core) <= MAX_DELETION:
        for c in sorted(core):
            if len(core) == 1 or time.monotonic() > deadline:
                break
            rest = [i for i in core if i != c]
            r.rollback(root)
            if _assume(r, [*wants, *(facts[i] for i in rest)]):
                core = rest
    r.rollback(root)
    return tuple(sorted(core))


def contradicting_from_scratch(r: Reasoner, facts: Sequence[Term], wants: Sequence[Term],
                               deadline: float) -> tuple[int, ...] | None:
    """The same on a reasoner ``r`` holding nothing yet (left as found): the wants, then the
    facts in order; None when that order reaches no contradiction (or the wants alone
    contradict: then ``()``)."""
    root = r.checkpoint()
    try:
        if _assume(r, wants):
            return ()
        k = first_contradiction(r, facts, range(len(facts)))
        if k is None:
            return None
        return contradicting(r, root, facts, wants, k, deadline)
    finally:
        r.rollback(root)
        r.commit(root)


def smallest_refuted(refuted: Callable[[list[int]], bool], n: int, deadline: float) -> tuple[int, ...]:
    """A subset of ``range(n)`` that ``refuted`` still accepts (``refuted(list(range(n)))``
    is known true), by deleting chunks, halving their size down to one index (Zeller's
    delta debugging): few calls when the subset needed is small. Stops at ``deadline``
    with the last subset accepted."""
    kept = list(range(n))
    size = max(1, len(kept) // 2)
    while kept:
        i = 0
        while i < len(kept):
            if time.monotonic() > deadline:
                return tuple(kept)
            trial = kept[:i] + kept[i + size:]
            if refuted(trial):
                kept = trial
            else:
                i += size
        if size == 1:
            break
        size = max(1, size // 2)
    return tuple(kept)


def shrink_contradiction(r: Reasoner, root: Checkpoint, facts: Sequence[Term], wants: Sequence[Term],
                         deadline: float) -> tuple[int, ...]:
    """Facts that with the wants contradict, for a contradiction the reasoner sees only when
    the wants are read again after the facts (a rewrite of a want needs a fact, such as
    ``s0 != 0`` for ``(s0*s1) div s0 = s1``). Delta debugging over the facts, each subset
    tried as: the wants, the subset, the wants again. Leaves ``r`` at ``root``."""
    def contradicts(kept: list[int]) -> bool:
        r.rollback(root)
        return _assume(r, [*wants, *(facts[i] for i in kept), *wants])

    core = smallest_refuted(contradicts, len(facts), deadline)
    r.rollback(root)
    return core
