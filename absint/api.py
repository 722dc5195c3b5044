"""The compiler API: sympy expressions in, verdicts and bounds out, in microseconds.

A compiler (PyTorch's Dynamo/Inductor first) keeps one :class:`ShapeReasoner`
per compilation: it declares its symbols (backed ones with their example value,
unbacked ones without), adds facts as it learns them, and asks thousands of
cheap questions in between. Expressions use sympy or PyTorch's sympy
vocabulary (read by class name, see :mod:`absint.readers.sympy_bridge`); torch is not
needed.

The hot path is ``decide``: the translation of each expression is memoised
(sympy expressions are hashable), and the reasoner below answers from the
facts it closed when they arrived.
"""

from __future__ import annotations

import math
from typing import Iterable

import sympy

from absint.lang import terms as T
from absint.lang.evaluator import evaluate as evaluate_term, truth_at
from absint.reasoning.reasoner import INT32_MAX, INT32_MIN, Reasoner
from absint.readers.sympy_bridge import SympyToTerms, TermsToSympy, UnsupportedExpression
from absint.lang.terms import BOOL, INT, REAL, Sort, Term
from absint.reasoning.verdict import Layer, Truth, Verdict

#: the verdict on a guard that is syntactically one of the facts
_SELF_IMPLIED = Verdict.true(Layer.NORMAL_FORM)


class DataDependentGuardError(RuntimeError):
    """A branch on unbacked symbols that the facts do not decide.

    ``symbols``: the unbacked symbols of the guard; ``guard``: the guard;
    ``suggestions``: facts (sympy) each of which, added with ``assume`` (in
    PyTorch: ``torch._check``), would decide it; ``ranges``: the current numeric
    range of each unbacked symbol.
    """

    def __init__(self, symbols: tuple, guard, suggestions: list, ranges: dict):
        self.symbols = symbols
        self.guard = guard
        self.suggestions = suggestions
        self.ranges = ranges
        names = ", ".join(str(s) for s in symbols)
        rng = ", ".join(f"{s} in [{_fmt(lo)}, {_fmt(hi)}]" for s, (lo, hi) in ranges.items())
        facts = "; ".join(str(f) for f in suggestions)
        super().__init__(
            f"could not decide the guard {guard} on data-dependent (unbacked) symbols {names} "
            f"(current ranges: {rng}); any one of these facts would decide it: {facts}")


def _fmt(v) -> str:
    if v == math.inf:
        return "oo"
    if v == -math.inf:
        return "-oo"
    return str(v)


class ShapeReasoner:
    """Facts about the integer symbols of one compilation, and questions about them.

    ``budget`` bounds propagation steps per fact; ``relational=False`` turns the
    isl layer off (faster, weaker).
    """

    def __init__(self, *, budget: int | None = None, relational: bool = True):
        self._reasoner = Reasoner(budget=budget, relational=relational)
        self._symbols: dict[str, sympy.Symbol] = {}
        self._hints: dict[str, int] = {}
        self._sorts: dict[str, Sort] = {}
        self._facts: list = []
        self._guards: list = []
        self._decided: dict = {}  # expr -> TRUE/FALSE verdict (stays valid as facts grow)
        self._undecided: dict = {}  # expr -> UNKNOWN (valid until the next fact)
        self._to_term = SympyToTerms(sort_of=self._sort_of, sign_of=self._sign_of)
        self._to_sympy = TermsToSympy(self._symbols)

    # ------------------------------------------------------------ symbols and facts

    def declare(self, symbol, hint: int | None = None, lower=None, upper=None,
                size_like: bool = False) -> sympy.Symbol:
        """Declare an integer symbol (a ``sympy.Symbol`` or a name; returns the symbol).

        A *backed* symbol has a ``hint`` (its example value), an *unbacked* one
        (``.item()``, ``.tolist()``, ``nonzero``) has none. ``lower``/``upper``
        add the facts ``lower <= symbol <= upper`` (as ``torch._check`` /
        ``constrain_range``; infinite or None means unbounded); ``size_like``
        adds ``symbol >= 0`` and nothing more. The symbol's own sympy assumptions
        (``positive``, ``nonnegative``, ``even``, ...) are facts too: sympy already
        simplifies the caller's expressions with them. Hints are never used to
        prove anything, only to choose a branch in :meth:`evaluate`.
        """
        if isinstance(symbol, str):
            symbol = sympy.Symbol(symbol, integer=True)
        if not isinstance(symbol, sympy.Symbol):
            raise TypeError(f"declare() takes a sympy Symbol or a name, got {type(symbol).__name__}")
        name = symbol.name
        if name in self._sorts:
            raise ValueError(f"symbol {name} is already declared (or was used, as unbacked, before declare)")
        lo, hi = _finite(lower), _finite(upper)
        if hint is not None:
            hint = int(hint)
        self._symbols[name] = symbol
        self._sorts[name] = INT
        x = T.var(name, INT)
        if hint is not None:
            self._hints[name] = hint
        facts = _assumption_facts(symbol, x)
        if size_like:
            facts.append((sympy.Ge(symbol, 0, evaluate=False), T.ge(x, T.ZERO)))
        if lo is not None:  # built as terms: sympy would fold Ge(s, 1) to True for a positive s
            facts.append((sympy.Ge(symbol, lo, evaluate=False), T.ge(x, self._numeric(lo))))
        if hi is not None:
            facts.append((sympy.Le(symbol, hi, evaluate=False), T.le(x, self._numeric(hi))))
        if hint is not None:
            point = {**self._hints, name: hint}
            for fact, t in facts:  # a bound over unbacked symbols is not evaluable: None
                if truth_at(t, point) is False:
                    del self._symbols[name], self._sorts[name], self._hints[name]
                    raise ValueError(f"hint {hint} of {name} contradicts its declaration: {fact}")
            self._reasoner.prefer_to_eliminate([x])  # equalities eliminate input sizes first
        for fact, t in facts:
            self._assume_term(fact, t)
        return symbol

    def assume(self, expr) -> None:
        """Add a fact: a sympy relation, a Boolean combination of them (``And``), or True.

        Contradictory facts make every guard vacuously TRUE; see :attr:`contradiction`.
        """
        self._assume_term(expr, self._bool(expr))

    def _assume_term(self, expr, t: Term) -> None:
        self._facts.append(expr)
        self._reasoner.assume(t)
        self._to_term.forget_unsure()
        self._undecided.clear()
        # a fact implies itself (and each of its conjuncts): a compiler asks a guard again
        # after recording it, and that answer needs no work at all
        if isinstance(expr, sympy.Basic):
            for e in (expr.args if isinstance(expr, sympy.And) else ()) + (expr,):
                self._decided.setdefault(e, _SELF_IMPLIED)

    @property
    def contradiction(self) -> bool:
        """Whether the facts contradict each other (a bug upstream, or in the caller)."""
        return self._reasoner.contradiction

    def facts(self) -> list:
        """The facts assumed so far (declared ranges and recorded guards included), in order."""
        return list(self._facts)

    def guards(self) -> list:
        """The guards :meth:`evaluate` recorded from hints, in order (each as it holds)."""
        return list(self._guards)

    # ------------------------------------------------------------ questions

    def decide(self, expr) -> Verdict:
        """TRUE if the facts imply ``expr``, FALSE if they refute it, else UNKNOWN;
        ``.by`` names the layer that decided.

        Answers are memoised per expression: TRUE and FALSE for good (facts only
        accumulate, so what they imply or refute stays so), UNKNOWN until the next fact.
        """
        if not isinstance(expr, sympy.Basic):
            expr = sympy.sympify(expr)
        v = self._decided.get(expr)
        if v is not None:
            return v
        v = self._undecided.get(expr)
        if v is not None:
            return v
        t = self._to_term.term(expr)
        if t.sort is not BOOL:
            raise TypeError(f"decide() takes a Boolean expression, got {expr}")
        v = self._reasoner.decide(t)
        (self._undecided if v.truth is Truth.UNKNOWN else self._decided)[expr] = v
        return v

    def statically_known_true(self, expr) -> bool:
        return self.decide(expr).truth is Truth.TRUE

    def statically_known_false(self, expr) -> bool:
        return self.decide(expr).truth is Truth.FALSE

    def bounds(self, expr) -> tuple:
        """Numeric ``(lo, hi)`` of a numeric expression: ints (Fractions for real
        expressions), ``-math.inf``/``math.inf`` where unbounded."""
        return self._reasoner.bounds(self._numeric(expr))

    def upper_bound(self, expr, in_terms_of: Iterable | None = None) -> list | None:
        """Symbolic upper bounds of ``expr`` over the symbols ``in_terms_of``
        (default: the backed symbols): ``expr <= min(pieces)``; one piece when the
        bound is a single expression (``u0 <= s0*s1`` gives ``[s0*s1]``), a
        constant when only a number is known; None when nothing is."""
        return self._symbolic(expr, in_terms_of, upper=True)

    def lower_bound(self, expr, in_terms_of: Iterable | None = None) -> list | None:
        """Symbolic lower bounds: ``expr >= max(pieces)``; see :meth:`upper_bound`."""
        return self._symbolic(expr, in_terms_of, upper=False)

    def fits_int32(self, *exprs) -> Verdict:
        """TRUE if every expression provably lies in ``[-2**31, 2**31 - 1]`` (numel,
        storage size, an index ``sum(stride_i * (size_i - 1)) + offset``), FALSE
        if one provably lies outside, else UNKNOWN. ``.by``: the costliest layer used."""
        return self._reasoner.fits_int32(*(self._numeric(e) for e in exprs))

    def evaluate(self, guard) -> bool:
        """The compiler's branch on ``guard``.

        Decided by the facts: the answer. Otherwise, if every symbol of the guard
        is backed: the answer at the hints, which is then recorded as a fact (the
        guard or its negation) and in :meth:`guards`. Otherwise (unbacked symbols):
        :class:`DataDependentGuardError`.
        """
        if not isinstance(guard, sympy.Basic):
            guard = sympy.sympify(guard)
        t = self._bool(guard)
        v = self._reasoner.decide(t)
        if v.truth is Truth.TRUE:
            return True
        if v.truth is Truth.FALSE:
            return False
        names = sorted(s.name for s in guard.free_symbols)
        unbacked = [n for n in names if n not in self._hints]
        if unbacked:
            raise self._data_dependent(guard, t, unbacked)
        value = bool(evaluate_term(t, self._hints))
        recorded = guard if value else sympy.Not(guard)
        self._guards.append(recorded)
        self.assume(recorded)
        return value

    def residual(self, expr):
        """The part of a guard the facts do not already imply, as sympy: ``true``
        when implied, ``false`` when refuted, else a conjunction equivalent to
        ``expr`` under the facts (implied conjuncts dropped, linear ones reduced by
        isl's gist); what a compiler needs to check at run time."""
        if not isinstance(expr, sympy.Basic):
            expr = sympy.sympify(expr)
        conjuncts = list(expr.args) if isinstance(expr, sympy.And) else [expr]
        terms = [self._bool(c) for c in conjuncts]
        kept = self._reasoner.residual(terms)
        if not kept:
            return sympy.true
        if any(k is T.FALSE for k in kept):
            return sympy.false
        original = {}
        for c, t in zip(conjuncts, terms):
            original.setdefault(self._reasoner.normalize(t), c)
        out = [original[k] if k in original else self._to_sympy(k) for k in kept]
        return sympy.And(*out)

    # ------------------------------------------------------------ terms (for callers below sympy)

    def term(self, expr) -> Term:
        """The term absint reads ``expr`` as (memoised)."""
        return self._to_term(expr)

    def to_sympy(self, t: Term):
        """A term back in sympy, over the caller's own symbols."""
        return self._to_sympy(t)

    @property
    def reasoner(self) -> Reasoner:
        """The term-level reasoner underneath (for tools that already have terms)."""
        return self._reasoner

    # ------------------------------------------------------------ internals

    def _sort_of(self, symbol: sympy.Symbol) -> Sort:
        name = symbol.name
        sort = self._sorts.get(name)
        if sort is None:  # undeclared: an unbacked symbol of the sort its assumptions say
            sort = INT if symbol.is_integer else REAL
            self._sorts[name] = sort
            self._symbols.setdefault(name, symbol)
            for fact, t in _assumption_facts(symbol, T.var(name, sort)):
                self._assume_term(fact, t)
        return sort

    def _sign_of(self, t: Term) -> int | None:
        r = self._reasoner
        if r.decide(T.gt(t, T.ZERO)).truth is Truth.TRUE:
            return 1
        if r.decide(T.lt(t, T.ZERO)).truth is Truth.TRUE:
            return -1
        return None

    def _bool(self, expr) -> Term:
        t = self._to_term(expr)
        if t.sort is not BOOL:
            raise TypeError(f"expected a Boolean expression, got {expr}")
        return t

    def _numeric(self, expr) -> Term:
        t = self._to_term(expr)
        if t.sort is BOOL:
            raise TypeError(f"expected a numeric expression, got {expr}")
        return t

    def _symbolic(self, expr, in_terms_of, upper: bool) -> list | None:
        t = self._numeric(expr)
        if in_terms_of is None:
            names = set(self._hints)
        else:
            names = {s if isinstance(s, str) else s.name for s in in_terms_of}
        if all(v.data in names for v in T.free_vars(t)):  # already over the wanted symbols
            return [expr if isinstance(expr, sympy.Basic) else sympy.sympify(expr)]
        params = [T.var(n, self._sorts.get(n, INT)) for n in sorted(names)]
        r = self._reasoner
        pieces = r.upper_bound(t, params) if upper else r.lower_bound(t, params)
        if pieces is None:
            return None
        return [sympy.sympify(p.data) if p.kind == "const" else self._to_sympy(p) for p in pieces]

    def _data_dependent(self, guard, t: Term, unbacked: list[str]) -> DataDependentGuardError:
        symbols = tuple(self._symbols.get(n, sympy.Symbol(n, integer=True)) for n in unbacked)
        ranges = {s: self._reasoner.bounds(T.var(s.name, self._sorts.get(s.name, INT))) for s in symbols}
        suggestions = [guard, sympy.Not(guard)]
        for s, (lo, _) in ranges.items():  # size-like facts, the usual torch._check_is_size
            for k in (0, 1):
                if lo < k:
                    cand = sympy.Ge(s, k)
                    if self._decided_with(cand, t):
                        suggestions.append(cand)
                        break
        return DataDependentGuardError(symbols, guard, suggestions, ranges)

    def _decided_with(self, fact, guard: Term) -> bool:
        """Whether ``fact`` added to the facts would decide ``guard`` (replayed on a
        fresh reasoner: this is the error path, not the hot one)."""
        trial = Reasoner(backed=[T.var(n, INT) for n in self._hints])
        for f in self._reasoner.facts:
            trial.assume(f)
        trial.assume(self._to_term(fact))
        return trial.decide(guard).truth is not Truth.UNKNOWN


def _assumption_facts(symbol: sympy.Symbol, x: Term) -> list[tuple[object, Term]]:
    """The sympy assumptions of a symbol as (sympy, term) facts; sympy builds the caller's
    expressions under them (``Ge(s, 1)`` is ``True`` for a positive ``s``)."""
    zero = T.const(0, x.sort)
    out = []

    def fact(rel, term):
        out.append((rel(symbol, 0, evaluate=False), term))

    if symbol.is_positive:
        fact(sympy.Gt, T.gt(x, zero))
    elif symbol.is_nonnegative:
        fact(sympy.Ge, T.ge(x, zero))
    if symbol.is_negative:
        fact(sympy.Lt, T.lt(x, zero))
    elif symbol.is_nonpositive:
        fact(sympy.Le, T.le(x, zero))
    if symbol.is_zero is False and not (symbol.is_positive or symbol.is_negative):
        fact(sympy.Ne, T.ne(x, zero))
    if x.sort is INT and (symbol.is_even or symbol.is_odd):
        parity = 0 if symbol.is_even else 1
        out.append((sympy.Eq(sympy.Mod(symbol, 2), parity, evaluate=False),
                    T.eq(T.mod(x, T.const(2)), T.const(parity))))
    return out


def _finite(v):
    """A bound as given, or None for no bound (None, +-oo, torch's int_oo)."""
    if v is None:
        return None
    if isinstance(v, (int,)) and not isinstance(v, bool):
        return v
    if isinstance(v, float) and math.isinf(v):
        return None
    v = sympy.sympify(v)
    if v.is_infinite or type(v).__name__ in ("IntInfinity", "NegativeIntInfinity"):
        return None
    return v


__all__ = ["ShapeReasoner", "DataDependentGuardError", "UnsupportedExpression", "Verdict", "Truth", "Layer",
           "INT32_MIN", "INT32_MAX"]
