"""An assert as a reader sees it in a report: its SMT-LIB text, cut to a length.

Corpus asserts are DAGs whose tree can be astronomically large, so the size is measured
(with a budget) before anything is printed.
"""

from __future__ import annotations

from absint.lang.dag import Node, subterms
from absint.lang.printer import to_smtlib


def assert_text(term: Node, limit: int) -> str:
    """The assert as SMT-LIB text, cut at ``limit`` characters (huge DAGs are not expanded)."""
    budget = 4 * limit
    size: dict[int, int] = {}  # tree size (with repetition), capped past the budget
    for t in subterms(term):
        size[t.id] = min(budget + 1, 1 + sum(size[a.id] for a in t.args))
    n = size[term.id]
    if n > budget:
        return f"<{term.kind} term of more than {budget} nodes>"
    text = to_smtlib(term)
    return text if len(text) <= limit else text[: limit - 1] + "…"
