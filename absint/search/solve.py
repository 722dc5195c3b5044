"""Solving: a point where every fact and want holds, or a proof that there is none.

``impossible`` is a proof: the reasoner, given the wants and the facts, reaches a
contradiction (then :mod:`absint.search.unsat_core` names the facts it needs), or an
exhaustive labelling finds nothing (then the facts are shrunk by delta debugging, each
subset re-proved the same way).
``found`` is checked by the evaluator at the point: first the search engine's quick
strategies look near the example point (:mod:`absint.search.engine`), then the exhaustive
labelling (:mod:`absint.search.labelling`), the engine's complete strategy, which can also prove. Anything else is ``unknown``, with
the budget spent.
"""

from __future__ import annotations

import time
from typing import Mapping, Sequence

import attrs

from absint.lang.dag import subterms
from absint.lang.evaluator import Value
from absint.lang.kinds import VAR
from absint.lang.terms import BOOL, Term
from absint.reasoning.reasoner import Reasoner
from absint.search import engine
from absint.search.unsat_core import (contradicting, contradicting_from_scratch, first_contradiction,
                                      shrink_contradiction, smallest_refuted)
from absint.search.labelling import Budget, Labelling, Variable, holds_everywhere

FOUND, IMPOSSIBLE, UNKNOWN = "found", "impossible", "unknown"
#: the search engine's strategies tried before the exhaustive labelling, and their points
QUICK_STRATEGIES = ("example", "neighbours", "boundary")
QUICK_POINTS = 200


@attrs.frozen(slots=True)
class Solution:
    """``status``: found / impossible / unknown. ``point``: every declared symbol's value
    (found). ``core``: indexes of the facts that contradict the wants (impossible; empty
    when the wants contradict each other). ``how``: what decided, in words. ``nodes``,
    ``seconds``: what the search spent."""

    status: str
    point: Mapping[str, Value] | None = None
    core: tuple[int, ...] | None = None
    how: str = ""
    nodes: int = 0
    seconds: float = 0.0


def occurring(terms: Sequence[Term]) -> set[str]:
    """Names of the variables in ``terms`` (one walk over their shared DAG)."""
    seen: set[int] = set()
    names: set[str] = set()
    for t in terms:
        for s in subterms(t, skip=seen):
            seen.add(s.id)
            if s.kind == VAR:
                names.add(s.data)
    return names


def default_value(v: Variable) -> Value:
    """What a symbol no fact mentions takes: its hint, else 0 (False for a Bool)."""
    if v.hint is not None:
        return v.hint
    return False if v.term.sort is BOOL else 0


def label(r: Reasoner, symbols: Sequence[Variable], facts: Sequence[Term], wants: Sequence[Term],
          budget: Budget, seed: int) -> Solution:
    """Search on ``r``, which holds the facts and wants: found, impossible (by exhaustion,
    with the facts that proof still needs), or unknown."""
    used = occurring([*facts, *wants])
    variables = [s for s in symbols if s.name in used]
    others = {s.name: default_value(s) for s in symbols if s.name not in used}
    check = holds_everywhere([*facts, *wants])
    quick = _near_example(r, variables, others, check, wants, budget, seed)
    if quick is not None:
        return quick
    out = Labelling(r, variables, wants, check, others, budget, seed).run()
    spent = dict(nodes=out.nodes, seconds=out.seconds)
    if out.point is not None:
        return Solution(FOUND, out.point, how="a point checked by the evaluator", **spent)
    if out.proved:
        deadline = time.monotonic() + budget.seconds / 2

        def still_refuted(kept: list[int]) -> bool:
            left = Budget(min(budget.nodes, 200), max(1e-3, deadline - time.monotonic()))
            return refutes(symbols, [facts[i] for i in kept], wants, left, seed)

        core = smallest_refuted(still_refuted, len(facts), deadline)
        return Solution(IMPOSSIBLE, core=core, how=f"exhaustive labelling ({out.nodes} nodes)", **spent)
    what = f"budget spent: {out.nodes} nodes, {out.seconds:.2f} s" if out.out_of_budget else \
        f"search space not covered ({out.nodes} nodes, {out.seconds:.2f} s)"
    return Solution(UNKNOWN, how=what, **spent)


def _near_example(r: Reasoner, variables: Sequence[Variable], others: Mapping[str, Value], check,
                  wants: Sequence[Term], budget: Budget, seed: int) -> Solution | None:
    """The search engine's quick strategies first (the example point, its neighbours with the
    wants' symbols moved first, boundary labellings): a point near the example is what a user
    asking for one output size most likely wants; the exhaustive labelling comes after."""
    query = engine.Query(lambda p: check({**others, **p}) is True, tuple(v.term for v in variables),
                         {v.name: v.hint for v in variables if v.hint is not None},
                         tuple(sorted(occurring(wants))), seed=seed)
    found = engine.find_point(r, query, min(QUICK_POINTS, budget.nodes), budget.seconds / 4, QUICK_STRATEGIES)
    if found.point is None:
        return None
    return Solution(FOUND, {**others, **found.point}, how=f"a point checked by the evaluator ({found.strategy})",
                    nodes=found.tried)


def refutes(symbols: Sequence[Variable], facts: Sequence[Term], wants: Sequence[Term], budget: Budget,
            seed: int) -> bool:
    """Whether propagation or an exhaustive labelling proves ``facts`` and ``wants``
    contradictory, on a fresh reasoner (the oracle that shrinks an exhaustive proof's
    facts: a leaf is judged against these facts only)."""
    r = Reasoner(backed=[s.term for s in symbols if s.hint is not None])
    if any(_assumed(r, t) for t in [*wants, *facts]):
        return True
    used = occurring([*facts, *wants])
    variables = [s for s in symbols if s.name in used]
    others = {s.name: default_value(s) for s in symbols if s.name not in used}
    return Labelling(r, variables, wants, holds_everywhere([*facts, *wants]), others, budget, seed).run().proved


def solve(symbols: Sequence[Variable], facts: Sequence[Term], wants: Sequence[Term],
          budget: Budget = Budget(), seed: int = 0) -> Solution:
    """A fresh reasoner: the wants first (so they bind what they can before the facts
    are read), then the facts; contradiction -> the contradicting facts; else labelling."""
    start = time.monotonic()
    r = Reasoner(backed=[s.term for s in symbols if s.hint is not None])
    root = r.checkpoint()
    deadline = start + budget.seconds
    if any(_assumed(r, w) for w in wants):
        return Solution(IMPOSSIBLE, core=(), how="the wants contradict each other",
                        seconds=time.monotonic() - start)
    k = first_contradiction(r, facts, range(len(facts)))
    if k is not None:
        core = contradicting(r, root, facts, wants, k, deadline)
        return Solution(IMPOSSIBLE, core=core, how="propagation reached a contradiction",
                        seconds=time.monotonic() - start)
    if any(_assumed(r, w) for w in wants):  # read again: a rewrite of a want may need the facts
        core = shrink_contradiction(r, root, facts, wants, deadline)
        return Solution(IMPOSSIBLE, core=core, how="propagation reached a contradiction",
                        seconds=time.monotonic() - start)
    return attrs.evolve(label(r, symbols, facts, wants, budget, seed), seconds=time.monotonic() - start)


def find_on(r: Reasoner, symbols: Sequence[Variable], facts: Sequence[Term], wants: Sequence[Term],
            budget: Budget = Budget(), seed: int = 0) -> Solution:
    """On a reasoner already holding ``facts`` (the compiler API's): the wants under a
    checkpoint, labelling, and everything rolled back; the contradicting facts, when
    there are any, are found on a fresh reasoner (wants first, then the facts)."""
    start = time.monotonic()
    with r.tentatively():
        contradiction = any(_assumed(r, w) for w in wants)
        if not contradiction:
            solution = label(r, symbols, facts, wants, budget, seed)
            return attrs.evolve(solution, seconds=time.monotonic() - start)
    fresh = Reasoner(backed=[s.term for s in symbols if s.hint is not None])
    core = contradicting_from_scratch(fresh, facts, wants, start + budget.seconds)
    if core is None:  # seen only with the facts first: the wants read again after them
        root = fresh.checkpoint()
        core = shrink_contradiction(fresh, root, facts, wants, start + budget.seconds)
    how = "the wants contradict each other" if core == () else "propagation reached a contradiction"
    return Solution(IMPOSSIBLE, core=core, how=how, seconds=time.monotonic() - start)


def _assumed(r: Reasoner, t: Term) -> bool:
    r.assume(t)
    return r.contradiction
