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

from contextlib import contextmanager
from typing import ContextManager, Iterable, Iterator

import attrs
import sympy

from absint.api import inputs
from absint.api.errors import ConflictingSymbol, DataDependentGuardError, UndefinedAtHints
from absint.inputs.description import ValidInputs, describe
from absint.lang import terms as T
from absint.lang.evaluator import NotEvaluable, evaluate as evaluate_term, truth_at
from absint.lang.terms import BOOL, INT, Sort, Term
from absint.readers.sympy_bridge import SympyToTerms, TermsToSympy, default_sort_of
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.trail import Checkpoint, tentatively, truncate
from absint.reasoning.verdict import Layer, Truth, Verdict
from absint.search import engine
from absint.validation.check import VALIDATION_CASES, equivalence

#: the verdict on a guard that is syntactically one of the facts
_SELF_IMPLIED = Verdict.true(Layer.NORMAL_FORM)


@attrs.frozen(slots=True, eq=False)
class ApiCheckpoint:
    """A :class:`ShapeReasoner` checkpoint: the reasoner's, and how far the API's own
    records and memos reached (each only grows between checkpoints)."""

    inner: Checkpoint
    lengths: tuple[int, ...]
    undecided: dict
    undecided_length: int
    translations: tuple
    printed: tuple


class ShapeReasoner:
    """Facts about the integer symbols of one compilation, and questions about them.

    ``budget`` bounds propagation steps per fact (a positive int); ``relational=False``
    turns the isl layer off (faster, weaker). Bad arguments raise ``TypeError`` or
    ``ValueError`` at once, naming the argument (see ``docs/api.md``).
    """

    def __init__(self, *, budget: int | None = None, relational: bool = True):
        # a compiler's questions are mostly open: the points look at each one first
        self._reasoner = Reasoner(budget=inputs.budget_value(budget), relational=bool(relational), early_look="always")
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
        """Declare a symbol (a ``sympy.Symbol``, or a name for an integer one); returns the symbol.

        An ``integer=True`` symbol (as PyTorch's sizes are) is Int; any other is Real:
        ``Symbol("x", real=True)`` can be ``1/2``.

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
        sort = default_sort_of(symbol)
        lo, hi = inputs.finite(lower), inputs.finite(upper)
        if hint is not None:
            hint = inputs.hint_value(hint, sort, name)
        self._symbols[name] = symbol
        self._sorts[name] = sort
        x = T.var(name, sort)
        if hint is not None:
            self._hints[name] = hint
        facts = inputs.assumption_facts(symbol, x)
        if size_like:
            facts.append((sympy.Ge(symbol, 0, evaluate=False), T.ge(x, T.const(0, sort))))
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
            self._reasoner.example({name: hint})  # where the witness points start
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
        if self._undecided:
            self._undecided = {}  # a new dict: a checkpoint may hold the old one
        # a fact implies itself (and each of its conjuncts): a compiler asks a guard again
        # after recording it, and that answer needs no work at all
        if isinstance(expr, sympy.Basic):
            for e in (expr.args if isinstance(expr, sympy.And) else ()) + (expr,):
                self._decided.setdefault(e, _SELF_IMPLIED)

    # ------------------------------------------------------------ checkpoints

    def checkpoint(self) -> ApiCheckpoint:
        """A point to :meth:`rollback` to: the facts, declarations, recorded guards and
        every memo (a decided expression, a translation resting on a divisor's sign) as
        they are now."""
        return ApiCheckpoint(self._reasoner.checkpoint(), tuple(len(c) for c in self._records()),
                             self._undecided, len(self._undecided), self._to_term.mark(),
                             self._to_sympy.mark())

    def rollback(self, cp: ApiCheckpoint) -> None:
        """Back to ``cp``: what was assumed, declared, recorded or decided since is
        forgotten (a verdict reached under facts taken back is no longer valid). Newer
        checkpoints are discarded; rolling back to ``cp`` again is fine; another
        reasoner's checkpoint raises ``CheckpointError``."""
        if not isinstance(cp, ApiCheckpoint):
            raise TypeError(f"rollback() takes a ShapeReasoner checkpoint, got {type(cp).__name__}")
        self._reasoner.rollback(cp.inner)  # refuses another reasoner's or a closed one first
        for c, n in zip(self._records(), cp.lengths):
            truncate(c, n)
        self._undecided = cp.undecided
        truncate(self._undecided, cp.undecided_length)
        self._to_term.restore(cp.translations)
        self._to_sympy.restore(cp.printed)

    def commit(self, cp: ApiCheckpoint) -> None:
        """Keep what happened since ``cp`` and close it (and newer ones)."""
        if not isinstance(cp, ApiCheckpoint):
            raise TypeError(f"commit() takes a ShapeReasoner checkpoint, got {type(cp).__name__}")
        self._reasoner.commit(cp.inner)

    def tentatively(self) -> ContextManager[ApiCheckpoint]:
        """``with r.tentatively(): ...``: what the block assumes, declares or asks is taken
        back when it ends (by an exception too)."""
        return tentatively(self)

    def _records(self) -> tuple:
        """The API's append-only records and memos (``_undecided`` aside: a fact replaces it)."""
        return (self._symbols, self._hints, self._sorts, self._facts, self._guards, self._decided)

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
            expr = inputs.expression(expr, "decide()")
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

    def simplify(self, expr):
        """``expr`` as the simplest expression found equal to it under the facts, in sympy:
        its constant (``sympy.Integer``) when the facts fix it; nested constant divisions
        folded, decided ``Min``/``Max``/``Piecewise`` resolved (see ``docs/outputs.md``)."""
        return self._to_sympy(self._reasoner.simplify(self._numeric(expr)).term)

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
        guard = inputs.expression(guard, "evaluate()")
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
        try:
            value = bool(evaluate_term(t, self._hints))
        except NotEvaluable as e:
            raise UndefinedAtHints(f"the guard {guard} has no value at the example point ({e})") from None
        recorded = guard if value else sympy.Not(guard)
        self._guards.append(recorded)
        self.assume(recorded)
        return value

    def residual(self, expr):
        """The part of a guard the facts do not already imply, as sympy: ``true``
        when implied, ``false`` when refuted, else a conjunction equivalent to
        ``expr`` under the facts (implied conjuncts dropped, linear ones reduced by
        isl's gist); what a compiler needs to check at run time."""
        expr = inputs.expression(expr, "residual()")
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

    def equivalent(self, a, b) -> Verdict:
        """Whether ``a`` and ``b`` are the same under the facts: equal numbers, or Boolean
        expressions implying each other (a simplifier's input and output). TRUE: proved
        (with case splits on min/max/ite and divisions); FALSE: ``.counterexample`` is a
        point {symbol name: value} where the facts hold and they differ, confirmed by the
        evaluator; else UNKNOWN."""
        ta, tb = self._term_of(a, "equivalent()"), self._term_of(b, "equivalent()")
        if (ta.sort is BOOL) != (tb.sort is BOOL):
            raise TypeError(f"equivalent() compares two numbers or two Booleans, got {a} and {b}")
        with self._validation_cases():
            return equivalence(self._reasoner, self._reasoner.facts, self._hints, ta, tb, equiv=True)

    def counterexample(self, guard) -> dict | None:
        """A point {symbol name: value} where every fact holds and ``guard`` does not
        (confirmed by the evaluator), or None when the search finds none (which proves nothing)."""
        t = self._bool(guard)
        return engine.counterexample(self._reasoner, self._reasoner.facts, T.not_(t), self._hints)

    def _term_of(self, expr, where: str) -> Term:
        return self._to_term(inputs.expression(expr, where))

    @contextmanager
    def _validation_cases(self):
        """Validation affords the larger case-split budget (constant divisors too)."""
        saved = self._reasoner.cases
        self._reasoner.cases = VALIDATION_CASES
        try:
            yield
        finally:
            self._reasoner.cases = saved

    def sample(self, symbols, n: int, seed: int | None = None):
        """``n`` points that satisfy the facts, as graph fuzzers get shapes from Z3: a
        :class:`absint.search.sampling.Samples` whose ``status`` is ``"sat"`` (``points``:
        dicts from each of ``symbols``, sympy symbols or names, to an int; every point is
        checked against every fact), ``"impossible"`` (the facts are contradictory: proved,
        never an empty list) or ``"unknown"``. Draws are near-uniform (exactly uniform where
        a variable's range is mostly solutions), independent, and repeatable with ``seed``.
        The reasoner is left as it was. Only Int symbols can be sampled (``ValueError``)."""
        from absint.search.sampling import Unsampleable, sample

        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"sample(): n must be an int >= 0, got {n!r}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise TypeError(f"sample(): seed must be an int or None, got {seed!r}")
        names = list(dict.fromkeys(name for s in symbols for name in inputs.symbol_names([s], "sample()")))
        wanted = {name: self._symbols.get(name) or sympy.Symbol(name, integer=True) for name in names}
        try:
            found = sample(self._reasoner, n, seed, [self.term(s) for s in wanted.values()])
        except Unsampleable as e:
            raise ValueError(f"sample(): {e}") from None
        points = tuple({s: p[name] for name, s in wanted.items()} for p in found.points)
        return attrs.evolve(found, points=points)

    def find(self, *goals, nodes: int | None = None, seconds: float | None = None, seed: int = 0):
        """Values of the declared symbols at which every fact and every goal holds:
        a :class:`absint.api.find.FindResult` whose ``status`` is ``"found"`` (``point``:
        symbol -> value, checked by the evaluator), ``"impossible"`` (``facts``: the
        facts that contradict the goals; a proof) or ``"unknown"`` (the budget, ``nodes``
        values tried and ``seconds`` of wall time, was spent). The search runs under a
        checkpoint: the reasoner is left as it was. See ``docs/solve.md``."""
        from absint.api import find as finding

        budget = finding.budget_of(nodes, seconds)
        terms = [self._bool(g) for g in goals]
        facts = self._facts if len(self._facts) == len(self._reasoner.facts) else \
            [self._to_sympy(t) for t in self._reasoner.facts]
        return finding.find(self._reasoner, self._symbols, self._sorts, self._hints, facts, terms, budget, seed)

    def valid_inputs(self) -> ValidInputs:
        """The inputs that satisfy every fact so far, described (``absint inputs``):
        specialised constants, equalities, per-symbol ranges with residue sets, and the
        relations left, equivalent to the facts' conjunction; see ``docs/inputs.md``."""
        symbols = [T.var(n, s) for n, s in self._sorts.items()]
        return describe(self._reasoner.facts, symbols, [T.var(n, self._sorts[n]) for n in self._hints])

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
            sort = default_sort_of(symbol)
            self._sorts[name] = sort
            self._symbols[name] = symbol
            for fact, t in inputs.assumption_facts(symbol, T.var(name, sort)):
                self._assume_term(fact, t)
        elif self._symbols.get(name, symbol) != symbol:
            raise ConflictingSymbol(f"two different sympy symbols are named {name} ({self._symbols[name]!r} "
                                    f"with {_assumptions(self._symbols[name])}, and one with "
                                    f"{_assumptions(symbol)}): absint would read them as one variable")
        return sort

    def _sign_of(self, t: Term) -> int | None:
        r = self._reasoner
        if r.decide(T.gt(t, T.ZERO)).truth is Truth.TRUE:
            return 1
        if r.decide(T.lt(t, T.ZERO)).truth is Truth.TRUE:
            return -1
        return None

    def _bool(self, expr) -> Term:
        t = self._to_term(inputs.expression(expr, "a Boolean argument"))
        if t.sort is not BOOL:
            raise TypeError(f"expected a Boolean expression, got {expr}")
        return t

    def _numeric(self, expr) -> Term:
        t = self._to_term(inputs.expression(expr, "a numeric argument"))
        if t.sort is BOOL:
            raise TypeError(f"expected a numeric expression, got {expr}")
        return t

    def _symbolic(self, expr, in_terms_of, upper: bool) -> list | None:
        expr = inputs.expression(expr, "upper_bound()" if upper else "lower_bound()")
        t = self._numeric(expr)
        names = set(self._hints) if in_terms_of is None else inputs.symbol_names(in_terms_of, "in_terms_of")
        if all(v.data in names for v in T.free_vars(t)):  # already over the wanted symbols
            return [expr]
        params = [T.var(n, self._sorts.get(n, INT)) for n in sorted(names)]
        r = self._reasoner
        pieces = r.upper_bound(t, params) if upper else r.lower_bound(t, params)
        if pieces is None:
            return None
        return [self._to_sympy(p) for p in pieces]

    def _data_dependent(self, guard, t: Term, unbacked: list[str]) -> DataDependentGuardError:
        symbols = tuple(self._symbols.get(n, sympy.Symbol(n, integer=True)) for n in unbacked)
        ranges = {s: self._reasoner.bounds(T.var(s.name, self._sorts.get(s.name, INT))) for s in symbols}
        suggestions = [guard, sympy.Not(guard)]
        for s, (lo, _) in ranges.items():  # size-like facts, the usual torch._check(u >= 0)
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


_SHOWN = ("integer", "real", "positive", "nonnegative", "negative", "nonpositive", "nonzero", "even", "odd")


def _assumptions(symbol: sympy.Symbol) -> str:
    true = [k for k in _SHOWN if symbol.assumptions0.get(k)]
    return "assumptions " + (", ".join(true) if true else "none")
