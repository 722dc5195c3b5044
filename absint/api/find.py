"""``ShapeReasoner.find``: values of the declared symbols at which the facts and the goals
hold, or the facts that make the goals impossible.

The search (:mod:`absint.search`) runs on the compiler's own reasoner, under a checkpoint
that is rolled back before ``find`` returns: the facts already propagated are not read
again, and nothing of the goals or of the values tried stays behind.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import attrs

from absint.lang import terms as T
from absint.lang.terms import Sort, Term
from absint.reasoning.reasoner import Reasoner
from absint.search.labelling import DEFAULT_NODES, DEFAULT_SECONDS, Budget, Variable
from absint.search.solve import FOUND, IMPOSSIBLE, UNKNOWN, find_on

__all__ = ["FindResult", "find", "budget_of", "FOUND", "IMPOSSIBLE", "UNKNOWN"]


@attrs.frozen(slots=True)
class FindResult:
    """``status``: ``"found"``, ``"impossible"`` or ``"unknown"``. ``point``: each declared
    sympy symbol's value (found; every fact and goal holds there, checked by the
    evaluator). ``facts``: the facts that contradict the goals (impossible; empty when
    the goals contradict each other). ``how``: what decided; ``nodes`` and ``seconds``:
    what the search spent."""

    status: str
    point: Mapping | None = None
    facts: tuple | None = None
    how: str = ""
    nodes: int = 0
    seconds: float = 0.0

    @property
    def found(self) -> bool:
        return self.status == FOUND

    @property
    def impossible(self) -> bool:
        return self.status == IMPOSSIBLE


def budget_of(nodes, seconds) -> Budget:
    """The search budget from the caller's arguments, checked at the door."""
    nodes = DEFAULT_NODES if nodes is None else nodes
    seconds = DEFAULT_SECONDS if seconds is None else seconds
    if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1:
        raise ValueError(f"nodes must be a positive int (values tried), got {nodes!r}")
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
        raise ValueError(f"seconds must be a positive number, got {seconds!r}")
    return Budget(nodes, float(seconds))


def find(reasoner: Reasoner, symbols: Mapping[str, object], sorts: Mapping[str, Sort],
         hints: Mapping[str, int], facts: Sequence, goals: Sequence[Term], budget: Budget,
         seed: int = 0) -> FindResult:
    """``symbols``: name -> the caller's symbol; ``facts``: the caller's facts, one per
    term of ``reasoner.facts`` (in order); ``goals``: Bool terms."""
    variables = [Variable(n, T.var(n, sorts[n]), hints.get(n)) for n in symbols]
    terms = list(reasoner.facts)
    sol = find_on(reasoner, variables, terms, list(goals), budget, seed)
    spent = dict(how=sol.how, nodes=sol.nodes, seconds=sol.seconds)
    if sol.status == FOUND:
        return FindResult(FOUND, {symbols[n]: sol.point[n] for n in symbols}, **spent)
    if sol.status == IMPOSSIBLE:
        return FindResult(IMPOSSIBLE, facts=tuple(facts[i] for i in sol.core), **spent)
    return FindResult(UNKNOWN, **spent)
