"""Layer 1's verdict: does the value network entail a normal Bool term, or refute it?

A comparison ``t <op> 0`` is read off the value of ``t``'s key (interval, then
congruence), then off the values a disequality excluded, the non-zero factors of a
product, Miné's intervalisation of a sum with shared atoms, and the bound of a product
through a dominating one; each of these asks the facade. ``and``/``or`` combine their
operands' truths, and an ``or`` they leave open holds when a disjunction the facts keep
has all its disjuncts among its own; a Bool variable is decided by the literals asserted.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

from absint.lang import terms as T
from absint.lang.kinds import AND, CONST, EQ, FN, LE, LIN, LT, MUL, NE, NOT, OR, TO_REAL, VAR, Kind
from absint.lang.terms import INT, Term
from absint.reasoning.facade import Facade
from absint.reasoning.rules import distribute


_PENDING, _END = object(), object()
#: PyTorch's opaque functions (``math.<name>`` of a float) taken as non-decreasing, each with
#: the least operand where it is (None: everywhere): sqrt is correctly rounded (IEEE 754), so
#: monotone; exp, log, log2 are monotone in the C library as in the reals (the least
#: operand is taken as 1 for log: conservative for Real operands). Other names
#: (a ``declare-fun`` of a file, sin, ...) are uninterpreted: only ``f(a) = f(a)`` is known.
NON_DECREASING = {"OpaqueUnaryFn_sqrt": 0, "OpaqueUnaryFn_exp": None, "OpaqueUnaryFn_log": 1,
                  "OpaqueUnaryFn_log2": 1}


class Entailment:
    def __init__(self, facade: Facade):
        self.facade = facade
        self.network = facade.network

    def truth(self, b: Term) -> bool | None:
        """Whether a normal Bool term holds in every state the facts allow (None: unknown).

        Registers the keys of a comparison it reads, so that later facts narrow them too.
        """
        if b.kind not in (AND, OR):
            return self._leaf(b)
        return self._skeleton(b)

    def _leaf(self, b: Term) -> bool | None:
        kind = b.kind
        if kind == CONST:
            return b.data
        if kind in T.COMPARISON_KINDS:
            return self._comparison(kind, b.args[0])
        if kind in (NOT, VAR):
            return self.facade.literal_truth(b)
        return None

    def _skeleton(self, b: Term) -> bool | None:
        """An and/or decided as recursion would (operands in order; the first absorbing one,
        a TRUE disjunct or a FALSE conjunct, decides), with an explicit stack: formulas built
        through definitions can nest thousands deep."""
        stack = [[b, 0, b.kind != OR]]  # node, next operand, result so far
        value: object = _PENDING  # what the frame that just ended gives its parent's operand
        known: dict[int, bool | None] = {}  # a shared sub-formula is decided once
        while True:
            frame = stack[-1]
            node, i, out = frame
            if value is not _PENDING:
                r, value = value, _PENDING
            elif i == len(node.args):
                r = _END
            elif node.args[i].kind in (AND, OR):
                a = node.args[i]
                if a.id not in known:
                    stack.append([a, 0, a.kind != OR])
                    continue
                r = known[a.id]
            else:
                r = self._leaf(node.args[i])
            absorbing = node.kind == OR
            if r is _END and out is None and absorbing and self.facade.clause_implied(node):
                out = True  # a kept clause implies it (asked only when the operands left it open)
            if r is _END or r is absorbing:
                stack.pop()
                value = known[node.id] = out if r is _END else absorbing
                if not stack:
                    return value
                continue
            frame[1] = i + 1
            if r is None:
                frame[2] = None

    def quick_truth(self, b: Term) -> bool | None:
        """Decide a normal comparison (or an and/or of them) from the bounds its atoms hold
        *now*, registering nothing; None when that does not decide it (then ask :meth:`truth`).

        This is the first-time question's fast path: registering a new key costs more
        than the answer, and a key nobody asserted holds exactly the value its atoms
        give it, so nothing is lost by not keeping it. Bounds are sound, hence so is
        every answer; only the interval part of the value is read.
        """
        kind = b.kind
        if kind in (AND, OR):
            return self._quick_junction(b)
        if kind not in T.COMPARISON_KINDS:
            return None
        bounds = self.network.linear_bounds(b.args[0], self._bound_atom_value)
        if bounds is None:
            return None
        lo, hi = bounds
        if kind == LE:
            return True if hi <= 0 else (False if lo > 0 else None)
        if kind == LT:
            return True if hi < 0 else (False if lo >= 0 else None)
        if lo > 0 or hi < 0:
            return kind == NE
        if lo == hi == 0:
            return kind == EQ
        return None

    def _bound_atom_value(self, atom: Term) -> object | None:
        """The value of an atom that is no key because a binding eliminated it (``s`` where
        ``s = u0 + ... + un``): its normal form's, when that is known and its key registered
        (the facts make them equal, so the value holds for the atom). PyTorch's narrow asks
        ``-s - u0 - ... - uk <= 0`` as written; without this, the fast path read nothing of it
        and normalising wrote it over every length."""
        n = self.facade.normalized(atom)
        return None if n is None or n is atom else self.network.registered_value(n)

    def _quick_junction(self, b: Term) -> bool | None:
        """An and/or of comparisons the fast path decides, operand by operand (the first
        absorbing one decides): PyTorch's ``0 <= start and start + n <= size`` of a narrow
        then registers no key for the prefix sum ``start + n``."""
        return self.quick_operands(b)[0]

    def quick_operands(self, b: Term, known: Callable[[Term], bool | None] | None = None
                       ) -> tuple[bool | None, list[Term]]:
        """The fast path on each operand of an and/or: its truth when that decides it (the
        first absorbing operand, or all of them), and the operands it left open. ``known(a)``:
        an operand's truth found before (None when there is none), read first."""
        absorbing, rest = b.kind == OR, []
        for a in b.args:
            r = None if known is None else known(a)
            if r is None and a.kind in T.COMPARISON_KINDS:
                r = self.quick_truth(a)
            if r is absorbing:
                return absorbing, rest
            if r is None:
                rest.append(a)
        return (None if rest else not absorbing), rest

    def _comparison(self, kind: Kind, t: Term) -> bool | None:
        network = self.network
        network.register(t)
        r = network.domain.truth(kind, network.value(t))
        if r is not None:
            return r
        k, p, c = network.split(t)
        if kind in (EQ, NE):
            target = Fraction(-c) / k
            if target in network.excluded_values(p):
                return kind == NE
            if target == 0 and p.kind == MUL and self._factors_nonzero(p):
                return kind == NE
        if t.kind == LIN and t.sort is INT:
            v = self.facade.linearized_value(t)
            if v is not None:
                r = network.domain.truth(kind, v)
                if r is not None:
                    return r
        r = self._distributed(kind, t)
        if r is None:
            r = self._monotone(kind, t)
        if r is not None:
            return r
        if p.kind == MUL and t.sort is INT:
            return self._by_dominance(kind, k, p, c)
        return None

    def _monotone(self, kind: Kind, t: Term) -> bool | None:
        """``f(a) <= f(b)`` for a non-decreasing opaque ``f`` (:data:`NON_DECREASING`) when
        ``a <= b``: ``t`` is ``f(a) - f(b)`` (either sign) compared with 0."""
        if kind != LE or t.kind != LIN or len(t.args) != 2 or t.data[1] != 0:
            return None
        (f, g), coefs = t.args, t.data[0]
        if not (f.kind == g.kind == FN and f.data == g.data and f.data in NON_DECREASING
                and len(f.args) == 1 and sorted(coefs) == [-1, 1]):
            return None
        small, large = (f, g) if coefs[0] == 1 else (g, f)  # t = small - large <= 0
        a, b = small.args[0], large.args[0]
        if a.kind == b.kind == TO_REAL:  # Int operands: compare them as Ints, where the facts are
            a, b = a.args[0], b.args[0]
        least = NON_DECREASING[f.data]
        if least is not None and self.facade.truth(T.ge(a, T.const(least, a.sort))) is not True:
            return None  # outside the domain (log 0, sqrt -1): no value, no order
        return True if self.facade.truth(T.le(a, b)) is True else None

    def _distributed(self, kind: Kind, t: Term) -> bool | None:
        """The comparison read with its products of sums multiplied out (registering the
        expanded sum's keys: later facts narrow them too)."""
        d = distribute(t)
        if d is None or d is t:
            return None
        d = self.facade.normalize(d)  # the rules meet the monomials: s0*(s30 div 8) is (s30*s0) div 8
        if d.kind != CONST:  # a constant's value needs no key
            self.network.register(d)
        return self.network.domain.truth(kind, self.network.value(d))

    def _by_dominance(self, kind: Kind, k, p: Term, c) -> bool | None:
        """Decide ``k*p + c <kind> 0`` for a product ``p`` bounded through a dominating product."""
        bound = self.facade.product_bound
        if kind == LE:  # k*p + c <= 0
            upper = bound(p, upper=k > 0)
            if upper is not None and k * upper + c <= 0:
                return True
            lower = bound(p, upper=k < 0)
            if lower is not None and k * lower + c > 0:
                return False
            return None
        target = Fraction(-c) / k
        hi = bound(p, upper=True)
        if hi is not None and target > hi:
            return kind == NE
        lo = bound(p, upper=False)
        if lo is not None and target < lo:
            return kind == NE
        return None

    def _factors_nonzero(self, p: Term) -> bool:
        """A product is non-zero when each factor is."""
        return all(self.facade.truth(T.ne(f, T.ZERO)) is True for f in p.args)

