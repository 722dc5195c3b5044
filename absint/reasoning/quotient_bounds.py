"""A comparison of a quotient by a positive symbolic divisor with a constant, as bounds on
its dividend.

For ``b > 0``, SMT-LIB's ``q = a div b`` is the ``q`` with ``a = b*q + r``, ``0 <= r < b``;
so ``q <= c`` holds exactly when ``a < (c + 1)*b``, and ``q >= c`` exactly when
``a >= c*b`` (if ``q <= c``, ``a < b*q + b <= (c + 1)*b``; if ``q >= c + 1``,
``a >= b*q >= (c + 1)*b``). ``q = c`` is the conjunction of both, ``q != c`` its negation.
Where ``a mod b = 0`` is known, ``a = b*q`` and the bounds are exact: ``q <= c`` iff
``a <= c*b``, ``q = c`` iff ``a = c*b`` (``(s*t) div (4*(s - 1)) == 0`` is ``s*t == 0``).

Why: the layers see ``a div b`` as an atom, bounded by the intervals of ``a`` and ``b``;
PyTorch's export asks ``(s*t) div (s - 1) == 1`` after ``(s*t) mod (s - 1) == 0`` with
``s >= 3``, ``t >= 2``, and only the bound ``s*t >= 2*(s - 1)`` (which the product layer
gives) refutes it. Like :mod:`absint.reasoning.extrema`, this is a decision step on a guard
the layers left open, not a rewrite of the normal form: facts keep their quotient atoms
(whose bounds feed the network), and only open guards pay. The divisor's sign is a side
condition read from the facts without registering anything.
"""

from __future__ import annotations

from typing import Callable

from absint.lang import terms as T
from absint.lang.kinds import CONST, DIV, EQ, LE, LT, NE
from absint.lang.terms import INT, Term


def expand_quotient(g: Term, positive: Callable[[Term], bool],
                    divides: Callable[[Term, Term], bool] = lambda a, b: False) -> Term | None:
    """``g`` (a normal comparison ``k*(a div b) + r <op> 0``, ``r`` a constant) as bounds on
    ``a``, when ``positive(b)`` (the facts prove ``b > 0``); exact ones when ``divides(a, b)``
    (the facts prove ``a mod b = 0``); None for another shape."""
    if g.kind not in (LE, LT, EQ, NE):
        return None
    x = g.args[0]
    if x.sort is not INT:
        return None
    coefs, r = T.linear_parts(x)
    if len(coefs) != 1:
        return None
    (q, k), = coefs.items()
    if q.kind != DIV or q.args[1].kind == CONST or not positive(q.args[1]):
        return None
    a, b = q.args
    exact = divides(a, b)
    if g.kind in (EQ, NE):
        if r % k:
            return None  # k*q = -r has no integer solution: the layers decide that already
        c = -r // k
        inside = T.eq(a, T.scale(b, c)) if exact else T.and_(T.ge(a, T.scale(b, c)), T.lt(a, T.scale(b, c + 1)))
        return inside if g.kind == EQ else T.not_(inside)
    bound = -r - (1 if g.kind == LT else 0)  # k*q <= bound
    if k < 0:
        return T.ge(a, T.scale(b, -(bound // -k)))  # q >= ceil(bound / k)
    c = bound // k  # q <= c
    return T.le(a, T.scale(b, c)) if exact else T.lt(a, T.scale(b, c + 1))
