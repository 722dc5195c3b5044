"""Layers 0 and 1: normal form under learnt equalities, then value propagation.

The state is a network of *keys*: atoms (variables and nonlinear applications)
and primitive linear combinations ``P = sum c_i a_i`` that occurred in some
fact or guard. Each key holds one value of the value domain (interval ×
congruence by default). Every key is tied to its children by its definition
(``P = sum c_i a_i``, ``A = op(args)``); a fact narrows one key and the change
is propagated forwards (to parents) and backwards (to children) through those
definitions, HC4-revise style, with a worklist that only touches what changed
and a step budget that guarantees termination.

A term ``t`` is read through its key as ``t = k*P + c`` (see :meth:`Engine.split`);
keeping bounds on whole linear combinations is what lets ``u0 + u1 <= s0``, once
asserted, decide the same guard later without any relational domain.
"""

from __future__ import annotations

import sys
from collections import deque
from fractions import Fraction
from typing import Iterable

from absint.lang import terms as T
from absint.reasoning.linearize import dominating_bound, linearized_value
from absint.reasoning.normal_form import Rewriter, solve_for_variable
from absint.reasoning.products import scaled_product_bound
from absint.lang.terms import BOOL, INT, REAL, Term
from domains.packing import UnionFind

sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))  # term DAGs can be deep

DEFAULT_BUDGET = 4000


class Engine:
    """Facts in, verdicts out, for one growing list of facts.

    ``domain`` is any :class:`domains.lattice.ValueDomain`; ``budget`` bounds
    the propagation steps spent on one fact.
    """

    def __init__(self, domain=None, budget: int = DEFAULT_BUDGET):
        if domain is None:
            from domains.interval_congruence import IC as domain
        self.d = domain
        self.budget = budget
        self.rewriter = Rewriter(oracle=self.truth)
        self.val: dict[Term, object] = {}
        self.parents: dict[Term, dict[Term, None]] = {}  # insertion-ordered: deterministic
        self.excluded: dict[Term, set] = {}
        self.literals: set[Term] = set()
        self.disjunctions: list[Term] = []
        self.contradiction = False
        self._split: dict[int, tuple] = {}
        self._affine_terms: dict[tuple, Term] = {}
        self._work: deque[Term] = deque()
        self._queued: set[Term] = set()
        self.exhausted = 0  # propagations cut short by the budget
        #: variables to eliminate first when an equality allows a choice
        self.preferred_eliminations: set[Term] = set()
        #: atoms related by some fact or definition (for the relational layer's slices)
        self.blocks = UnionFind()

    # ------------------------------------------------------------ keys

    def split(self, t: Term) -> tuple[object, Term | None, object]:
        """``t = k*P + c`` with ``P`` the key (an atom or a primitive linear form)."""
        r = self._split.get(t.id)
        if r is not None:
            return r
        kind = t.kind
        if kind == "const":
            r = (0, None, t.data)
        elif kind != "lin":
            r = (1, t, 0)
        else:
            coefs, c = t.data
            if len(coefs) == 1:
                r = (coefs[0], t.args[0], c)
            else:
                if t.sort is INT:
                    import math

                    k = math.gcd(*coefs)
                    if coefs[0] < 0:
                        k = -k
                    p = T.make_linear(INT, {a: v // k for a, v in zip(t.args, coefs)}, 0)
                else:
                    k = coefs[0]
                    p = T.make_linear(REAL, {a: v / k for a, v in zip(t.args, coefs)}, 0)
                r = (k, p, c)
        self._split[t.id] = r
        return r

    def _children(self, p: Term) -> list[Term]:
        """The keys a key's definition reads."""
        if p.kind == "lin":
            return list(p.args)
        if p.kind == "var":
            return []
        out = []
        for a in p.args:
            if a.sort is BOOL:
                out.extend(self._bool_children(a))
            else:
                key = self.split(a)[1]
                if key is not None:
                    out.append(key)
        return out

    def _bool_children(self, b: Term) -> list[Term]:
        out = []
        for s in T.subterms(b):
            if s.kind in T.COMPARISON_KINDS:
                key = self.split(s.args[0])[1]
                if key is not None:
                    out.append(key)
        return out

    def register(self, t: Term) -> None:
        """Give every key of ``t`` (numeric or Bool) a value, children first."""
        if t.sort is BOOL:
            for key in self._bool_children(t):
                self._register_key(key)
            return
        key = self.split(t)[1]
        if key is not None and key not in self.val:
            self._register_key(key)

    def _register_key(self, root: Term) -> None:
        if root in self.val:
            return
        stack = [(root, False)]
        while stack:
            p, ready = stack.pop()
            if p in self.val:
                continue
            children = self._children(p)
            if not ready:
                stack.append((p, True))
                stack.extend((c, False) for c in children if c not in self.val)
                continue
            for c in children:
                self.parents.setdefault(c, {})[p] = None
            if children and p.sort is INT:
                if p.kind == "lin":
                    self.blocks.union_all(children)
                else:
                    self.blocks.union_all([p, *children])
            self.val[p] = self._forward(p)

    # ------------------------------------------------------------ values

    def _affine_term(self, k, c, sort) -> Term:
        key = (k, c, sort)
        t = self._affine_terms.get(key)
        if t is None:
            x = T.var("#affine", sort)
            t = T.make_linear(sort, {x: k}, c)
            self._affine_terms[key] = t
        return t

    def _affine(self, v, k, c, sort):
        """The value of ``k*x + c`` when ``x`` lies in ``v``."""
        if k == 1 and c == 0:
            return v
        return self.d.forward(self._affine_term(k, c, sort), (v,))

    def _unaffine(self, result, k, c, sort, prior):
        """What ``x`` (already in ``prior``) lies in when ``k*x + c`` lies in ``result``."""
        if k == 1 and c == 0:
            return self.d.meet(result, prior)
        return self.d.backward(self._affine_term(k, c, sort), result, (prior,))[0]

    def value(self, t: Term):
        """The current value of a numeric term (its keys must be registered)."""
        k, p, c = self.split(t)
        if p is None:
            return self.d.constant(c, t.sort)
        return self._affine(self.val[p], k, c, t.sort)

    def _key_value_from(self, t: Term, v):
        """Given that ``t`` (= k*P + c) lies in ``v``, what ``P`` lies in."""
        k, p, c = self.split(t)
        return p, self._unaffine(v, k, c, t.sort, self.val[p])

    def _forward(self, p: Term):
        kind = p.kind
        d = self.d
        if kind == "var":
            return d.top(p.sort)
        if kind == "lin":
            val = self.val
            return d.forward(p, [val[a] for a in p.args])
        if kind == "ite":
            c, a, b = p.args
            truth = self.truth(c)
            if truth is True:
                return self.value(a)
            if truth is False:
                return self.value(b)
            return d.join(self.value(a), self.value(b))
        return d.forward(p, [self.value(a) for a in p.args])

    def _backward(self, p: Term) -> None:
        kind = p.kind
        if kind == "var":
            return
        d = self.d
        val = self.val
        if kind == "lin":
            new = d.backward(p, val[p], [val[a] for a in p.args])
            for a, v in zip(p.args, new):
                self._narrow(a, v)
            return
        if kind == "ite":
            c, a, b = p.args
            truth = self.truth(c)
            if truth is True:
                self._narrow_term(a, val[p])
            elif truth is False:
                self._narrow_term(b, val[p])
            return
        args = p.args
        new = d.backward(p, val[p], [self.value(a) for a in args])
        for a, v in zip(args, new):
            if a.kind != "const":
                self._narrow_term(a, v)

    def _narrow_term(self, t: Term, v) -> None:
        k, p, c = self.split(t)
        if p is None:
            if self.d.is_bottom(self.d.meet(v, self.d.constant(c, t.sort))):
                self.contradiction = True
            return
        p, pv = self._key_value_from(t, v)
        self._narrow(p, pv)

    def _narrow(self, p: Term, v) -> None:
        old = self.val[p]
        new = self.d.meet(old, v)
        if new == old:
            return
        excluded = self.excluded.get(p)
        if excluded:
            new = self._shave(p, new, excluded)
        self.val[p] = new
        self.rewriter.epoch += 1
        if self.d.is_bottom(new):
            self.contradiction = True
            return
        if p not in self._queued:
            self._queued.add(p)
            self._work.append(p)

    def _shave(self, p: Term, v, excluded: set):
        """Remove excluded end points (``x != 0`` and ``x >= 0`` give ``x >= 1``)."""
        d = self.d
        for _ in range(8):
            lo, hi = d.bounds(v)
            if lo in excluded or hi in excluded:
                for e in (lo, hi):
                    if e in excluded:
                        w = d.restrict("ne", self._affine(v, 1, -e, p.sort))
                        v = self._unaffine(w, 1, -e, p.sort, v)
            else:
                break
        return v

    def propagate(self) -> None:
        work, queued = self._work, self._queued
        val, parents = self.val, self.parents
        steps = 0
        while work:
            if steps >= self.budget or self.contradiction:
                self.exhausted += bool(work) and not self.contradiction
                work.clear()
                queued.clear()
                return
            p = work.popleft()
            queued.discard(p)
            steps += 1
            for q in parents.get(p, ()):
                if q in val:
                    self._narrow(q, self._forward(q))
            self._backward(p)

    # ------------------------------------------------------------ truth of Bool terms

    def truth(self, b: Term) -> bool | None:
        """Whether a normal Bool term holds in every state the facts allow."""
        kind = b.kind
        if kind == "const":
            return b.data
        if kind in T.COMPARISON_KINDS:
            t = b.args[0]
            self.register(t)
            r = self.d.truth(kind, self.value(t))
            if r is not None:
                return r
            k, p, c = self.split(t)
            if kind in ("eq", "ne"):
                target = Fraction(-c) / k
                excluded = self.excluded.get(p)
                if excluded and target in excluded:
                    return kind == "ne"
                if target == 0 and p.kind == "mul" and self._factors_nonzero(p):
                    return kind == "ne"
            if t.kind == "lin" and t.sort is INT:
                v = linearized_value(self, t)
                if v is not None:
                    r = self.d.truth(kind, v)
                    if r is not None:
                        return r
            if p.kind == "mul" and t.sort is INT:
                return self._truth_by_dominance(kind, k, p, c)
            return None
        if kind in ("and", "or"):
            absorbing = kind == "or"  # a TRUE disjunct decides an `or`, a FALSE conjunct an `and`
            out = not absorbing
            for a in b.args:
                r = self.truth(a)
                if r is absorbing:
                    return absorbing
                if r is None:
                    out = None
            return out
        if kind == "not":
            if b.args[0] in self.literals:
                return False
            if b in self.literals:
                return True
            return None
        if kind == "var":
            if b in self.literals:
                return True
            if T.not_(b) in self.literals:
                return False
            return None
        return None

    def quick_truth(self, b: Term) -> bool | None:
        """Decide a normal comparison from the bounds its atoms hold *now*, without
        registering anything; None when that does not decide it (then ask :meth:`truth`).

        This is the first-time question's fast path: registering a new key costs more
        than the answer, and a key nobody asserted holds exactly the value its atoms
        give it, so nothing is lost by not keeping it. Bounds are sound, hence so is
        every answer; only the interval part of the value is read.
        """
        kind = b.kind
        if kind not in T.COMPARISON_KINDS:
            return None
        t = b.args[0]
        val = self.val
        bounds = self.d.bounds
        if t.kind == "lin":
            coefs, lo = t.data
            hi = lo
            for a, v in zip(t.args, coefs):
                x = val.get(a)
                if x is None:
                    return None
                alo, ahi = bounds(x)
                if v > 0:
                    lo += v * alo
                    hi += v * ahi
                else:
                    lo += v * ahi
                    hi += v * alo
        else:
            x = val.get(t)
            if x is None:
                return None
            lo, hi = bounds(x)
        if kind == "le":
            return True if hi <= 0 else (False if lo > 0 else None)
        if kind == "lt":
            return True if hi < 0 else (False if lo >= 0 else None)
        if lo > 0 or hi < 0:
            return kind == "ne"
        if lo == hi == 0:
            return kind == "eq"
        return None

    def _truth_by_dominance(self, kind: str, k, p: Term, c) -> bool | None:
        """Decide ``k*p + c <kind> 0`` for a product ``p`` bounded through a dominating product."""
        if kind == "le":  # k*p + c <= 0
            upper = self._product_bound(p, upper=k > 0)
            if upper is not None and k * upper + c <= 0:
                return True
            lower = self._product_bound(p, upper=k < 0)
            if lower is not None and k * lower + c > 0:
                return False
            return None
        target = Fraction(-c) / k
        hi2 = self._product_bound(p, upper=True)
        if hi2 is not None and target > hi2:
            return kind == "ne"
        lo2 = self._product_bound(p, upper=False)
        if lo2 is not None and target < lo2:
            return kind == "ne"
        return None

    def _product_bound(self, p: Term, upper: bool):
        """The tighter of the dominating-product and scaled-product bounds of ``p`` (or None)."""
        a = dominating_bound(self, p, upper)
        b = scaled_product_bound(self, p, upper)
        if a is None or b is None:
            return b if a is None else a
        return min(a, b) if upper else max(a, b)

    def _factors_nonzero(self, p: Term) -> bool:
        """A product is non-zero when each factor is."""
        return all(self.truth(T.ne(f, T.ZERO)) is True for f in p.args)

    # ------------------------------------------------------------ facts

    def normalize(self, t: Term) -> Term:
        return self.rewriter.normalize(t)

    def assume(self, fact: Term) -> None:
        """Add one fact (already normal or not) and propagate its consequences."""
        if self.contradiction:
            return
        self._assume(self.normalize(fact))
        self._recheck_disjunctions()

    def _assume(self, g: Term) -> None:
        kind = g.kind
        if kind == "const":
            if g.data is False:
                self.contradiction = True
            return
        if kind == "and":
            for a in g.args:
                self._assume(self.normalize(a))
                if self.contradiction:
                    return
            return
        if kind == "or":
            self.disjunctions.append(g)
            return
        if kind in ("var", "not"):
            if T.not_(g) in self.literals:
                self.contradiction = True
            self.literals.add(g)
            self.rewriter.epoch += 1
            return
        t = g.args[0]
        self.register(t)
        v = self.value(t)
        self._narrow_term(t, self.d.restrict(kind, v))
        if kind == "ne":
            k, p, c = self.split(t)
            target = Fraction(-c) / k
            if t.sort is REAL or target.denominator == 1:
                target = target if t.sort is REAL else int(target)
                self.excluded.setdefault(p, set()).add(target)
                self.rewriter.epoch += 1
                new = self._shave(p, self.val[p], self.excluded[p])
                self._narrow(p, new)
                if target == 0 and p.kind == "mul":
                    for f in p.args:
                        self._assume(T.ne(f, T.ZERO))
        self.propagate()
        if kind == "eq" and not self.contradiction:
            solved = solve_for_variable(g, self.preferred_eliminations)
            if solved is not None:
                self._substitute(*solved)

    def _recheck_disjunctions(self) -> None:
        if not self.disjunctions or self.contradiction:
            return
        pending = self.disjunctions
        self.disjunctions = []
        for g in pending:
            g = self.normalize(g)
            if g.kind != "or":
                self._assume(g)
                continue
            open_ = [a for a in g.args if self.truth(a) is not False]
            if any(self.truth(a) is True for a in open_):
                continue
            if not open_:
                self.contradiction = True
                return
            if len(open_) == 1:
                self._assume(open_[0])
            else:
                self.disjunctions.append(g)

    def _substitute(self, x: Term, e: Term) -> None:
        """Bind ``x = e`` and move every key that mentions ``x`` to its new normal form."""
        affected: set[Term] = set()
        stack = [x]
        while stack:
            p = stack.pop()
            for q in self.parents.get(p, ()):
                if q not in affected:
                    affected.add(q)
                    stack.append(q)
        self.rewriter.bind(x, e)
        order = [x] + sorted(affected, key=lambda t: t.id)
        moved = []
        for old in order:
            if old not in self.val:
                continue
            v = self.val.pop(old)
            excluded = self.excluded.pop(old, None)
            for c in self._children(old):
                ps = self.parents.get(c)
                if ps is not None:
                    ps.pop(old, None)
            self.parents.pop(old, None)
            moved.append((old, v, excluded))
        for old, v, excluded in moved:
            new = self.normalize(old)
            self.register(new)
            self._narrow_term(new, v)
            if excluded:
                k, p, c = self.split(new)
                if p is None:
                    if any(c == e_ for e_ in excluded):
                        self.contradiction = True
                    continue
                for e_ in excluded:
                    target = (Fraction(e_) - c) / k
                    if new.sort is REAL or target.denominator == 1:
                        self.excluded.setdefault(p, set()).add(target if new.sort is REAL else int(target))
        self.propagate()

    # ------------------------------------------------------------ queries

    def bounds(self, t: Term) -> tuple[object, object]:
        t = self.normalize(t)
        if t.sort is BOOL:
            raise TypeError("bounds() takes a numeric term")
        self.register(t)
        return self.d.bounds(self.value(t))

    def keys(self) -> Iterable[Term]:
        return self.val.keys()
