"""A bound on a ``max`` or ``min`` as a junction of bounds on its operands.

``k*max(a, b) + R <= 0`` with ``k > 0`` holds exactly when ``k*a + R <= 0`` and
``k*b + R <= 0``; a ``min`` with ``k < 0`` likewise. The other two signs give an ``or``
(``min(a, b) <= s`` iff ``a <= s`` or ``b <= s``). Every integer and real point satisfies
these equivalences, so the expanded guard has the verdict of the original.

Why: the polyhedral layer sees ``max(a, b)`` only as an atom above ``a`` and ``b``; an
upper bound on it is a disjunction it cannot represent. ``max(a, b) <= s`` after
``a + b <= s`` with ``a, b >= 0`` (PyTorch's ``if max(a, b) <= size``) is then UNKNOWN,
while each conjunct is a linear question isl answers. This is a decision step on a guard
the layers left open, not a rewrite of the normal form: facts keep their atoms (their
value bounds feed the network), and only open guards pay for the expansion.
"""

from __future__ import annotations

from absint.lang import terms as T
from absint.lang.kinds import LE, LT, MAX, MIN
from absint.lang.terms import Term

_BUILD = {LE: T.le, LT: T.lt}


def expand_extremum(g: Term) -> Term | None:
    """``g`` (a normal ``le``/``lt`` comparison with 0) with its first ``max``/``min``
    atom replaced by its operands, as an ``and``/``or``; None when it has none."""
    build = _BUILD.get(g.kind)
    if build is None:
        return None
    x = g.args[0]
    coefs, c = T.linear_parts(x)
    atom = next((a for a in coefs if a.kind in (MIN, MAX)), None)
    if atom is None:
        return None
    k = coefs.pop(atom)
    rest = T.make_linear(x.sort, coefs, c)
    sides = [build(T.add(T.scale(arg, k), rest), T.ZERO) for arg in atom.args]
    conjunctive = (atom.kind == MAX) == (k > 0)
    return T.and_(*sides) if conjunctive else T.or_(*sides)
