"""Layer 0: terms in normal form under the equalities learnt so far.

Equalities ``x = e`` with a unit coefficient on a variable ``x`` become a
substitution; a term is normalised by rebuilding it bottom-up through the
canonicalising constructors of :mod:`absint.lang.terms`, so ``x = 64`` folds every
term over ``x`` and ``stride1 = size2`` makes their products the same atom.

The substitution is kept *lazily* solved: a binding's right-hand side was
normal when it was added, and only later bindings can occur in it, so
normalising recursively terminates without rewriting old bindings.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

from absint.lang import terms as T
from absint.lang.terms import INT, REAL, Term


class Rewriter:
    """A substitution on variables and the normal form it induces.

    ``oracle`` (the engine's ``truth``) enables *conditional* rewrites of
    integer division by a symbol: ``(q*b) div b = q`` and ``(q*b) mod b = 0``
    when ``b != 0``; ``x div y = 0`` and ``x mod y = x`` when ``0 <= x < |y|``;
    ``x div (x div m) = m`` when ``m`` divides ``x`` and ``b*(a div b) = a`` when
    ``a mod b = 0`` (both for a non-zero divisor).
    Facts only accumulate, so a side condition once proved stays proved; a term
    whose side condition is not (yet) proved is not memoised, so it is tried again.
    """

    __slots__ = ("bindings", "_memo", "oracle", "_volatile", "_tentative", "epoch")

    def __init__(self, oracle: Callable[[Term], bool | None] | None = None) -> None:
        self.bindings: dict[Term, Term] = {}
        self._memo: dict[Term, Term] = {}
        self.oracle = oracle
        self._volatile = False
        #: results that rest on an unproved side condition: (epoch until which it is reused,
        #: the result, how often the condition failed)
        self._tentative: dict[Term, tuple[int, Term, int]] = {}
        #: bumped by the owner whenever what the oracle knows may have grown
        self.epoch = 0

    def normalize(self, t: Term) -> Term:
        r = self._memo.get(t)
        if r is not None:
            return r
        if not t.args and t.kind != "var":
            return t
        tentative = self._tentative.get(t)
        if tentative is not None and self.epoch < tentative[0]:
            self._volatile = True
            return tentative[1]
        outer = self._volatile
        self._volatile = False
        r = self._normalize(t)
        if self._volatile:
            # retried after 1, 2, 4, ... epochs: a side condition that keeps failing costs
            # less and less (facts only accumulate, so a late success is still found)
            fails = 0 if tentative is None else min(tentative[2] + 1, 12)
            self._tentative[t] = (self.epoch + (1 << fails), r, fails)
        else:
            self._memo[t] = r
        self._volatile = outer or self._volatile
        return r

    def _normalize(self, t: Term) -> Term:
        k = t.kind
        if k == "var":
            b = self.bindings.get(t)
            return t if b is None else self.normalize(b)
        if k == "lin":
            return self._linear(t)
        args = t.args
        new = tuple(self.normalize(a) for a in args)
        r = T.rebuild(t, new)
        if self.oracle is not None:
            rk = r.kind
            if rk in ("div", "mod") and r.args[1].kind != "const":
                r = self._divide(r)
            elif k == "mul" and rk in ("mul", "lin"):
                r = self._exact_product(r)
            elif rk in T.COMPARISON_KINDS and r.args[0].kind == "lin":
                r = self._cancel_comparison(r)
        return r

    def _cancel_comparison(self, r: Term) -> Term:
        """``m*a <op> m*b`` is ``a <op> b`` when the common factor ``m`` is positive
        (``!= 0`` suffices for ``=``/``!=``; a negative ``m`` flips an inequality)."""
        t = r.args[0]
        coefs, c = t.data
        if c != 0 or t.sort is not INT or len(coefs) == 1:
            # one monomial k*m: dividing by m only restates the sign of m, which the
            # interval layer reads from m's value anyway
            return r
        common = common_factors(t.args)
        if not common:
            return r
        m = T.mul(*common)
        kind = r.kind
        if kind in ("eq", "ne"):
            if self.oracle(T.ne(m, T.ZERO)) is not True:
                self._volatile = True
                return r
            sign = 1
        elif self.oracle(T.gt(m, T.ZERO)) is True:
            sign = 1
        elif self.oracle(T.lt(m, T.ZERO)) is True:
            sign = -1
        else:
            self._volatile = True
            return r
        reduced = _divide_monomials(zip(t.args, coefs), common, sign)
        return self.normalize(T.rebuild(r, (reduced,)))

    def _divide(self, r: Term) -> Term:
        a, b = r.args
        oracle = self.oracle
        q = exact_quotient(a, b)
        if q is not None:
            if oracle(T.ne(b, T.ZERO)) is True:
                return q if r.kind == "div" else T.ZERO
            self._volatile = True
            return r
        reduced = self._cancel_division(r)
        if reduced is not None:
            return reduced
        if b.kind == "div":
            reduced = self._divide_by_quotient(r)
            if reduced is not None:
                return reduced
        if oracle(T.ge(a, T.ZERO)) is True:
            if (oracle(T.gt(b, a)) is True) or (oracle(T.lt(b, T.neg(a))) is True):
                return T.ZERO if r.kind == "div" else a
            self._volatile = True
        return r

    def _exact_product(self, r: Term) -> Term:
        """``f*(a div (kb*f)) = a div kb`` (``= a`` for ``kb = 1``) when the divisor
        ``b = kb*f`` is a non-zero symbolic term and ``a mod b = 0``.

        Sound: for ``b != 0``, Euclidean division satisfies ``a = b*(a div b) + a mod b``;
        with the remainder 0, ``a = kb*(f*(a div b))`` is a multiple of ``kb`` whose exact
        quotient is ``f*(a div b)``.
        """
        kr, p = T.content(r)
        if p.kind != "mul" or len(p.args) != 2:
            return r
        for f, g in (p.args, reversed(p.args)):
            if g.kind != "div" or g.args[1].kind == "const":
                continue
            a, b = g.args
            kb, pb = T.content(b)
            if pb is not f:
                continue
            oracle = self.oracle
            if oracle(T.ne(b, T.ZERO)) is not True or oracle(T.eq(self.normalize(T.mod(a, b)), T.ZERO)) is not True:
                self._volatile = True
                return r
            return T.scale(self.normalize(T.div(a, T.const(kb))), kr)
        return r

    def _divide_by_quotient(self, r: Term) -> Term | None:
        """``(c*x) div (x div m) = c*m`` and ``(c*x) mod (x div m) = 0`` when ``m`` divides
        ``x`` exactly and ``x div m != 0``.

        Sound: exactness is ``x = m*(x div m)``, proved as such for a symbolic ``m``, or
        as ``x mod m = 0`` for a constant ``m != 0`` (then ``x = m*(x div m) + x mod m``
        holds). With ``b = x div m != 0``, ``c*x = b*(c*m) + 0`` and ``0 <= 0 < |b|``:
        that is the unique Euclidean quotient and remainder.
        """
        a, b = r.args
        x, m = b.args
        c = T.ONE if a is x else exact_quotient(a, x)
        if c is None:
            return None
        if m.kind == "const":
            if m.data == 0:
                return None
            exact = T.eq(T.mod(x, m), T.ZERO)
        else:
            exact = self.normalize(T.eq(T.sub(x, T.mul(m, b)), T.ZERO))
        if self.oracle(exact) is not True or self.oracle(T.ne(b, T.ZERO)) is not True:
            self._volatile = True
            return None
        return T.mul(c, m) if r.kind == "div" else T.ZERO

    def _cancel_division(self, r: Term) -> Term | None:
        """``(m*a) div (m*b) = a div b`` and ``(m*a) mod (m*b) = m*(a mod b)`` for ``m > 0``."""
        a, b = r.args
        kb, pb = T.content(b)
        if pb.kind == "lin":
            return None
        coefs, c = T.linear_parts(a)
        if c != 0 or not coefs:
            return None
        common = common_factors(list(coefs) + [pb])
        if not common:
            return None
        m = T.mul(*common)
        if self.oracle(T.gt(m, T.ZERO)) is not True:
            self._volatile = True
            return None
        a2 = _divide_monomials(coefs.items(), common, 1)
        b2 = T.scale(T.mul(T.ONE, *remove_factors(factors(pb), common)), kb)
        if r.kind == "div":
            return self.normalize(T.div(a2, b2))
        return T.mul(m, self.normalize(T.mod(a2, b2)))

    def _linear(self, t: Term) -> Term:
        coefs, c = t.data
        memo = self._memo
        args = t.args
        # most atoms of a large sum are already normal: find the first that is not
        for i, a in enumerate(args):
            if memo.get(a) is not a:
                break
        else:
            return t
        out: dict[Term, object] = dict(zip(args[:i], coefs[:i]))
        changed = False
        for a, v in zip(args[i:], coefs[i:]):
            na = memo.get(a)
            if na is None:
                na = self.normalize(a)
            if na is a:
                out[a] = out.get(a, 0) + v
                continue
            changed = True
            nk = na.kind
            if nk == "const":
                c = c + v * na.data
            elif nk == "lin":
                nc, n0 = na.data
                c = c + v * n0
                for b, w in zip(na.args, nc):
                    out[b] = out.get(b, 0) + v * w
            else:
                out[na] = out.get(na, 0) + v
        if not changed:
            return t
        return T.make_linear(t.sort, out, c)

    def bind(self, x: Term, e: Term) -> None:
        """Record ``x = e``; ``x`` is an unbound variable, ``e`` normal and free of ``x``."""
        assert x.kind == "var" and x not in self.bindings
        self.bindings[x] = e
        self._memo.clear()
        self._tentative.clear()


def solve_for_variable(eq_term: Term, preferred: frozenset[Term] | set[Term] = frozenset()) -> tuple[Term, Term] | None:
    """From a normal ``eq`` fact ``sum c_i a_i + c = 0``, a variable with a unit
    coefficient (any non-zero one for Real) and its solved value, if there is one.

    The variable must not occur inside another atom of the equation, else the
    binding would be circular (``x = 8*(x div 8)``). Variables in ``preferred``
    go first (the reasoner passes the backed symbols: in ``u0 + ... + un = s0``
    eliminating the input size ``s0`` leaves the lengths, each with its own
    bound, as the basis, and every prefix sum is then bounded by intervals
    alone); otherwise the newest variable is eliminated.
    """
    t = eq_term.args[0]
    if t.kind != "lin":
        if t.kind == "var":
            return t, T.const(0, t.sort)
        return None
    coefs, c = t.data
    others = [a for a in t.args if a.kind != "var"]
    order = sorted(range(len(t.args)), key=lambda i: (t.args[i] in preferred, i), reverse=True)
    for i in order:
        a, v = t.args[i], coefs[i]
        if a.kind != "var":
            continue
        if t.sort is INT and v not in (1, -1):
            continue
        if a.sort is not t.sort:
            continue
        if others and any(a in _atoms_below(b) for b in others):
            continue
        rest = {b: w for b, w in zip(t.args, coefs) if b is not a}
        inv = Fraction(-1, 1) / v if t.sort is REAL else -v  # v = ±1 for Int
        value = T.make_linear(t.sort, {b: w * inv for b, w in rest.items()}, c * inv)
        return a, value
    return None


def _atoms_below(t: Term) -> set[Term]:
    return {s for s in T.subterms(t) if s.kind == "var"}


def factors(t: Term) -> tuple[Term, ...]:
    """The primitive factors of a monomial (a ``mul`` atom or any other single atom)."""
    return t.args if t.kind == "mul" else (t,)


def remove_factors(big: tuple[Term, ...], small: tuple[Term, ...]) -> list[Term] | None:
    """``big`` minus the multiset ``small``, or None if ``small`` is not contained in it."""
    rest = list(big)
    for f in small:
        for i, g in enumerate(rest):
            if g is f:
                del rest[i]
                break
        else:
            return None
    return rest


def exact_quotient(a: Term, b: Term) -> Term | None:
    """``q`` with ``a = q*b`` syntactically (every monomial of ``a`` a multiple of ``b``)."""
    if b.sort is not INT or a.sort is not INT:
        return None
    if a is b:
        return T.ONE
    kb, pb = T.content(b)
    if pb.kind == "const":
        return None
    coefs, c = T.linear_parts(a)
    if c != 0 or not coefs:
        return None
    fb = factors(pb)
    out: dict[Term, int] = {}
    for m, v in coefs.items():
        if v % kb:
            return None
        rest = remove_factors(factors(m), fb)
        if rest is None:
            return None
        q = T.mul(*rest) if rest else T.ONE
        qc, q0 = T.linear_parts(q)
        if q0:
            c += (v // kb) * q0
        for x, w in qc.items():
            out[x] = out.get(x, 0) + (v // kb) * w
    return T.make_linear(INT, out, c)


def common_factors(monomials) -> list[Term]:
    """The multiset of primitive factors shared by every monomial."""
    it = iter(monomials)
    common = list(factors(next(it)))
    for m in it:
        rest = list(factors(m))
        kept = []
        for f in common:
            for i, g in enumerate(rest):
                if g is f:
                    del rest[i]
                    kept.append(f)
                    break
        common = kept
        if not common:
            break
    return common


def _divide_monomials(items, common: list[Term], sign: int) -> Term:
    """``sum v*m / prod(common)`` for monomials ``m`` that all contain ``common``."""
    return T.add(T.ZERO, *(T.scale(T.mul(T.ONE, *remove_factors(factors(m), common)), v * sign) for m, v in items))
