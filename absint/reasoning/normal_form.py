"""Layer 0: terms in normal form under the equalities learnt so far, and the rewrite rules.

Equalities ``x = e`` with a unit coefficient on a variable ``x`` become a
substitution; a term is normalised by rebuilding it bottom-up through the
canonicalising constructors of :mod:`absint.lang.terms`, so ``x = 64`` folds every
term over ``x`` and ``stride1 = size2`` makes their products the same atom. Then the
conditional rules of :mod:`absint.reasoning.rules` for its kind are tried, their side
conditions asked of the facade (layers 0 and 1).

The substitution is kept *lazily* solved: a binding's right-hand side was
normal when it was added, and only later bindings can occur in it, so
normalising recursively terminates without rewriting old bindings.
"""

from __future__ import annotations

import operator
from collections import Counter
from fractions import Fraction
from itertools import filterfalse

from absint.lang import terms as T
from absint.lang.kinds import CONST, LIN, VAR
from absint.lang.terms import INT, REAL, Term
from absint.reasoning.facade import Facade
from absint.lang.rewriting import Row, holds, rewrite
from absint.reasoning.rules import BY_KIND, EXPAND_BY_KIND
from absint.reasoning.trail import Trail

#: a term with more children than this has those already normal dropped before its walk
SHORT_WALK = 8
#: a rule whose side conditions keep failing is retried after 1, 2, 4, ... up to 2**12 epochs
MAX_RETRY_DOUBLINGS = 12


class NormalForm:
    """A substitution on variables, the normal form it induces, and the rules' driver.

    The driver owns matching (the first row of the term's kind whose conditions are
    proved wins), memoisation, and the retry: facts only accumulate, so a side condition
    once proved stays proved, and a term whose rule matched but whose conditions are not
    (yet) proved is memoised only tentatively, until the network's knowledge epoch has
    advanced by 1, 2, 4, ... (a condition that keeps failing costs less and less, and a
    late success is still found). ``facade`` None: no conditional rules.

    While a checkpoint is open, bindings and memo entries (final and tentative) are
    logged in ``trail``: a memo entry may rest on a side condition proved by facts that
    a rollback takes back. ``fired`` counts work done and is not rolled back.
    """

    __slots__ = ("facade", "trail", "bindings", "fired", "_memo", "_volatile", "_tentative", "_unproved",
                 "_sums", "_last_shorter")

    def __init__(self, facade: Facade | None = None, trail: Trail | None = None) -> None:
        self.facade = facade
        self.trail = Trail() if trail is None else trail
        self.bindings: dict[Term, Term] = {}
        #: how often each rule (by name) rewrote a term: tests read it to show coverage
        self.fired: Counter[str] = Counter()
        self._memo: dict[Term, Term] = {}
        self._volatile = False
        #: a row matched the term being rewritten and its conditions were not proved
        self._unproved = False
        #: results that rest on an unproved side condition: (epoch until which it is reused,
        #: the result, how often the condition failed)
        self._tentative: dict[Term, tuple[int, Term, int]] = {}
        #: a long sum's (atoms, coefficients, constant) -> its atoms' normal forms added up
        #: (:meth:`_linear`, before the rules), when none of them was tentative
        self._sums: dict[tuple, Term] = {}
        #: the last long sum asked for its shorter key, and that key (:meth:`_shorter_key`)
        self._last_shorter: tuple = (None, None)

    def _epoch(self) -> int:
        return self.facade.network.epoch if self.facade is not None else 0

    def normalize(self, t: Term) -> Term:
        r = self._memo.get(t)
        if r is not None:
            return r
        if not t.args and t.kind != VAR:
            return t
        for s in self._pending(t):  # children first, so that no call below recurses deeply
            self._normalize_once(s)
        return self._normalize_once(t)

    def known_form(self, t: Term) -> Term | None:
        """``t``'s normal form if the memo holds it (a tentative one is not given out)."""
        return self._memo.get(t)

    def _known(self, t: Term) -> bool:
        if t in self._memo or (not t.args and t.kind != VAR):
            return True
        tentative = self._tentative.get(t)
        return tentative is not None and self._epoch() < tentative[0]

    def _pending(self, t: Term) -> list[Term]:
        """The sub-terms (and bindings) of ``t`` still to normalise, children first and left
        to right: the order in which a recursive normalisation would finish them."""
        out: list[Term] = []
        seen: set[int] = {t.id}
        below = self._below(t)
        if len(below) > SHORT_WALK:
            below = self._unknown(t, below)
        stack: list[tuple[Term, bool]] = [(c, False) for c in reversed(below)]
        while stack:
            s, done = stack.pop()
            if done:
                out.append(s)
                continue
            if s.id in seen or self._known(s):
                continue
            seen.add(s.id)
            stack.append((s, True))
            below = self._below(s)
            if len(below) > SHORT_WALK:
                below = self._unknown(s, below)
            stack.extend((c, False) for c in reversed(below))
        return out

    def _unknown(self, t: Term, below: tuple[Term, ...]) -> list[Term]:
        """A long sum's children without those already memoised, dropped in C: a prefix
        sum's atoms are normal already, and testing each in the walk was most of it (a short
        one is walked as it is, which costs less than filtering it). A sum whose shorter one
        (all atoms but the last) :attr:`_sums` keeps has every other atom's normal form in the
        memo (it is kept only when they were final, and goes with them): only the last is
        looked up, not 512 in a memo of thousands."""
        if t.kind == LIN and self._shorter_key(t) in self._sums:
            return [a for a in below[-1:] if a not in self._memo]
        return list(filterfalse(self._memo.__contains__, below))

    def _shorter_key(self, t: Term) -> tuple:
        """``t``'s atoms and coefficients but the last, and its constant: the key its shorter
        sum is kept under in :attr:`_sums` (made once for the walk and the sum of one term)."""
        last, key = self._last_shorter
        if last is not t:
            coefs, c = t.data
            key = (t.args[:-1], coefs[:-1], c)
            self._last_shorter = (t, key)
        return key

    def _below(self, t: Term) -> tuple[Term, ...]:
        if t.kind == VAR:
            b = self.bindings.get(t)
            return () if b is None else (b,)
        return t.args

    def _normalize_once(self, t: Term) -> Term:
        r = self._memo.get(t)
        if r is not None:
            return r
        tentative = self._tentative.get(t)
        if tentative is not None and self._epoch() < tentative[0]:
            self._volatile = True
            return tentative[1]
        outer = self._volatile
        self._volatile = False
        r = self._normalize(t)
        if self._volatile:
            fails = 0 if tentative is None else min(tentative[2] + 1, MAX_RETRY_DOUBLINGS)
            self.trail.set_item(self._tentative, t, (self._epoch() + (1 << fails), r, fails))
        else:
            self.trail.set_item(self._memo, t, r)
        self._volatile = outer or self._volatile
        return r

    def _normalize(self, t: Term) -> Term:
        k = t.kind
        if k == VAR:  # a variable a fact binds is its binding (the substitution row)
            if t not in self.bindings:
                return t
            return self.normalize(rewrite(T.SUBSTITUTING, (t, self.bindings), None, T.stated))
        r = self._linear(t) if k == LIN else T.rebuild(t, tuple(self.normalize(a) for a in t.args))
        rules = BY_KIND.get(r.kind)
        if rules and self.facade is not None:
            r = self._rewrite(t, r, rules)
        return r

    def _rewrite(self, t: Term, r: Term, rules: tuple[Row, ...]) -> Term:
        """The result of the first rule that matches ``r`` and whose conditions are proved."""
        outer, self._unproved = self._unproved, False
        out = rewrite(rules, (t, r), self.normalize, self._row_proved)
        unproved, self._unproved = self._unproved, outer
        if out is None:
            self._volatile = self._volatile or unproved  # retried later: facts may prove it
            return r
        return out

    def rewrite_monomials(self, t: Term) -> Term:
        """The sum ``t`` with each monomial rewritten by the first :data:`EXPAND_BY_KIND` row
        whose conditions are proved (``t`` itself when none applies): a decision step's
        reading of one open guard, not a normal form (facts never meet these rows)."""
        coefs, c = T.linear_parts(t)
        out, changed = [], False
        for a, v in coefs.items():
            e = rewrite(EXPAND_BY_KIND.get(a.kind, ()), (a, a), self.normalize, self._row_proved)
            if e is not None:
                a, changed = e, True
            out.append(T.scale(a, v))
        return T.add(T.const(c, t.sort), *out) if changed else t

    def _row_proved(self, row: Row, m) -> bool:
        """The prover of the rows the normal form drives: counts a row it proves (it fires),
        notes one it does not (the term is then retried later)."""
        truth = self._known_truth if row.known_keys_only else self.facade.truth
        if holds(row, m, self.normalize, lambda c: truth(c) is True):
            self.fired[row.name] += 1
            return True
        self._unproved = True
        return False

    def _known_truth(self, c: Term) -> bool | None:
        """``facade.truth`` of a comparison whose key the network holds already (None for
        one it does not: asking would register it)."""
        network = self.facade.network
        if c.kind in T.COMPARISON_KINDS:
            key = network.split(c.args[0])[1]
            if key is not None and network.key_value(key) is None:
                return None
        return self.facade.truth(c)

    def _linear(self, t: Term) -> Term:
        """The sum of ``t``'s atoms' normal forms. A long one is kept (:attr:`_sums`): the next
        prefix sum, ``t`` and one atom more (the newest, so last), is the kept one plus
        that atom's normal form, spliced in (``-s + u0 + ... + uk`` with ``s`` bound to
        ``u0 + ... + un`` is the last one's ``-u(k) - ... - un`` without ``-uk``)."""
        if len(t.args) <= LONG_SCAN:
            return self._added_up(t)
        coefs, c = t.data
        args = t.args
        shorter = self._sums.get(self._shorter_key(t))
        r = None
        if shorter is not None:
            r = T.plus_atom(shorter, self.normalize(args[-1]), coefs[-1])
        if r is None:
            r = self._added_up(t)
        if not self._volatile:
            self.trail.set_item(self._sums, (args, coefs, c), r)
        return r

    def _added_up(self, t: Term) -> Term:
        coefs, c = t.data
        memo = self._memo
        args = t.args
        i = _first_not_normal(args, memo)
        if i is None:
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
            if nk == CONST:
                c = c + v * na.data
            elif nk == LIN:
                nc, n0 = na.data
                c = c + v * n0
                T.accumulate(out, na.args, nc, v)
            else:
                out[na] = out.get(na, 0) + v
        if not changed:
            return t
        return T.make_linear(t.sort, out, c)

    def bind(self, x: Term, e: Term) -> None:
        """Record ``x = e``; ``x`` is an unbound variable, ``e`` normal and free of ``x``."""
        assert x.kind == VAR and x not in self.bindings
        trail = self.trail
        trail.set_item(self.bindings, x, e)
        trail.set_attribute(self, "_memo", {})  # new dicts: a rollback puts the old ones back
        trail.set_attribute(self, "_tentative", {})
        trail.set_attribute(self, "_sums", {})


def _first_not_normal(args: tuple[Term, ...], memo: dict) -> int | None:
    """The index of the first atom the memo does not hold as its own normal form, None when
    every one is normal: most atoms of a large sum are, and a long one is scanned in C (a
    short one, or one whose first atom is not normal, by a loop that stops at once)."""
    if len(args) > LONG_SCAN and memo.get(args[0]) is args[0]:
        try:
            return list(map(operator.is_, map(memo.get, args), args)).index(False)
        except ValueError:
            return None
    for i, a in enumerate(args):
        if memo.get(a) is not a:
            return i
    return None


#: a sum with more atoms than this is scanned for its first non-normal atom in C
LONG_SCAN = 8


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
    if t.kind != LIN:
        if t.kind == VAR:
            return t, T.const(0, t.sort)
        return None
    coefs, c = t.data
    others = [a for a in t.args if a.kind != VAR]
    order = sorted(range(len(t.args)), key=lambda i: (t.args[i] in preferred, i), reverse=True)
    for i in order:
        a, v = t.args[i], coefs[i]
        if a.kind != VAR:
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
    return {s for s in T.subterms(t) if s.kind == VAR}
