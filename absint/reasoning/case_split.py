"""Bounded case splitting: a guard the layers leave open, decided branch by branch.

Intervals cannot see that ``max(a, b) = b`` under ``a <= b``, nor that
``x - (x div y)*y = x mod y`` once ``y > 0``: each needs the case an atom's meaning
turns on. A *split point* is an atom whose value is one of its operands (or a fresh
pair of unknowns) depending on a condition:

- ``min(a, b)``/``max(a, b)``: branch ``a <= b`` and branch ``b < a``, the atom replaced
  by the operand the branch selects;
- ``ite(c, a, b)``: branch ``c`` (the atom is ``a``) and branch ``not c`` (``b``);
- ``x div y``/``x mod y`` with a symbolic ``y``: branches ``y >= 1`` and ``y <= -1``, in
  each of which both atoms become fresh unknowns ``q``, ``r`` with ``x = y*q + r`` and
  ``0 <= r <= |y| - 1`` (Euclidean division), and a branch ``y = 0`` that keeps them
  opaque: SMT-LIB's ``x div 0`` is an unspecified value, not one we may choose;
- with :attr:`CaseBudget.constant_divisors`, ``x div m``/``x mod m`` for a constant
  ``m``: one branch, the same decomposition (so ``(x mod 6) mod 3 = x mod 3`` follows
  from ``x = 6q + r``, ``0 <= r <= 5``: ``x mod 3`` and ``r mod 3`` fold alike);
- an integer variable of an ``and``/``or`` whose bounds leave at most
  :data:`MAX_VALUE_CASES` values: one branch per value, the variable replaced by it (so
  ``0 <= u <= 1 or u <= -1`` follows from ``-1 <= u <= 1``, which no conjunct decides
  alone). Tried after the atoms above; the bounds are sound, so the values cover every point;
- an equality (or disequality) over a single integer variable ``x``, a term of its sum and
  under a nonlinear atom (a ``div``, ``mod`` or product), when assuming the equality leaves ``x`` at most
  :data:`MAX_VALUE_CASES` values: a branch where it fails (holds) and one branch per value
  (:func:`guard_value_cases`). ``u0 + (3*u0 mod 4) - 1 = 0`` with ``u0 >= 0`` holds
  only where ``u0 <= 1``, and is false at both values: FALSE, which no layer reads off a
  remainder's bounds;
- apart (:func:`disjunction_decide`, a back-off of its own), a disjunction the facts keep
  with at most :data:`MAX_DISJUNCT_CASES` disjuncts not refuted, each over a variable of the
  guard: one branch per such disjunct (the disjunction holds, so they cover every point).

Each branch is explored under a checkpoint of the reasoner (assume its conditions,
decide the guard with the atom replaced, roll back), and may split again on what the
replaced guard still holds, :data:`MAX_CASE_DEPTH` levels and :data:`MAX_CASE_BRANCHES`
branches in all. The branches cover every point (each point satisfies the conditions
of some branch, with the fresh unknowns taking its quotient and remainder), so: TRUE
iff every branch not found contradictory is TRUE (no branch left means the facts
themselves are contradictory: vacuously TRUE), FALSE iff every such branch is FALSE,
otherwise UNKNOWN. A contradiction the reasoner finds is always real, so skipping
such a branch is sound.
"""

from __future__ import annotations

from typing import Iterator, Protocol

import attrs

from absint.lang import terms as T
from absint.lang.dag import subterms
from absint.lang.kinds import AND, CONST, DIV, EQ, ITE, LE, LT, MAX, MIN, MOD, MUL, NE, OR, VAR
from absint.lang.terms import INT, Term
from absint.reasoning.verdict import Truth, Verdict

#: branches explored (leaves and inner nodes) for one question: 2**4, four binary splits
MAX_CASE_BRANCHES = 16
#: nested splits along one path
MAX_CASE_DEPTH = 4
#: propagation steps per fact assumed in a branch (``decide``'s default budget); a branch
#: cut short keeps sound, wider values
BRANCH_PROPAGATION = 50
#: after ``n`` split questions in a row that settled nothing, only every ``1 + n // 16``-th
#: candidate is split (as isl's back-off): programs full of real guards over min/max
#: do not pay a split on each
SPLIT_BACKOFF_STREAK = 16

#: an ``and``/``or`` left open is split on a variable with at most this many values left
MAX_VALUE_CASES = 4
#: a disjunction the facts keep is a split of a guard over its variables when at most this
#: many of its disjuncts are not refuted; at most :data:`MAX_DISJUNCTIONS` tried per question
MAX_DISJUNCT_CASES = 4
MAX_DISJUNCTIONS = 2

_SPLIT_KINDS = frozenset((MIN, MAX, ITE, DIV, MOD))
#: atoms that make a comparison over one variable worth bounding under its own assumption
#: (over linear forms, intervals and congruences are already exact in one variable)
_NONLINEAR_KINDS = frozenset((DIV, MOD, MUL))


@attrs.frozen(slots=True)
class CaseBudget:
    """How much splitting one question may do; ``constant_divisors``: also decompose
    ``x div m``/``x mod m`` for a constant ``m`` (off in ``decide``'s default: division by a
    constant is everywhere in compiler programs, and intervals and congruences already
    read it). The default is ``decide``'s: a compiler's question is cheap or UNKNOWN, so a
    branch asks no isl and propagates a short while; validation affords more."""

    branches: int = MAX_CASE_BRANCHES
    depth: int = MAX_CASE_DEPTH
    constant_divisors: bool = False
    #: whether a branch may ask isl, and the propagation steps per fact assumed in it
    #: (None: the reasoner's own)
    relational: bool = False
    propagation: int | None = BRANCH_PROPAGATION
    #: whether unproductive splits make later ones rarer
    backoff: bool = True


@attrs.frozen(slots=True)
class Branch:
    """One branch: facts assumed for it, and atoms replaced by what they equal there."""

    assumptions: tuple[Term, ...]
    replaced: tuple[tuple[Term, Term], ...]


class Splitting(Protocol):
    """What the splitter asks of the reasoner."""

    @property
    def contradiction(self) -> bool: ...

    def checkpoint(self): ...

    def rollback(self, cp) -> None: ...

    def commit(self, cp) -> None: ...

    def assume(self, fact: Term) -> None: ...

    def normalize(self, t: Term) -> Term: ...

    def decide_unsplit(self, guard: Term, relational: bool = True) -> Verdict: ...

    def bounds(self, term: Term) -> tuple[object, object]: ...

    def truth(self, b: Term) -> bool | None: ...

    def kept_disjunctions(self) -> list[Term]: ...

    network: object  # its ``budget``: propagation steps per fact


class SplitBackoff:
    """The back-off of :data:`SPLIT_BACKOFF_STREAK`: a count of unproductive splits in a row.

    Like the other counters of work done it is not rolled back by a checkpoint; it only
    decides whether an open guard is split, never what a split concludes."""

    __slots__ = ("candidates", "misses")

    def __init__(self) -> None:
        self.candidates = 0
        self.misses = 0

    def admits(self) -> bool:
        self.candidates += 1
        return self.candidates % (1 + self.misses // SPLIT_BACKOFF_STREAK) == 0

    def record(self, settled: bool) -> None:
        self.misses = 0 if settled else self.misses + 1


class _Spent:
    """Branches explored so far in one question (shared by the nested splits)."""

    __slots__ = ("branches",)

    def __init__(self) -> None:
        self.branches = 0


def split_points(g: Term, constant_divisors: bool) -> list[Term]:
    """The atoms of ``g`` a case split can resolve, innermost first (a ``div``/``mod``
    only once per dividend and divisor: both are replaced in the same branch)."""
    out: list[Term] = []
    seen: set[tuple[int, int]] = set()
    for t in subterms(g):
        if t.kind not in _SPLIT_KINDS:
            continue
        if t.kind in (DIV, MOD):
            x, y = t.args
            if (y.kind == CONST and (not constant_divisors or y.data == 0)) or (x.id, abs_id(y)) in seen:
                continue
            seen.add((x.id, abs_id(y)))
        out.append(t)
    return out


def abs_id(y: Term) -> int:
    """Divisors ``m`` and ``-m`` give the same remainder: one key for both."""
    return T.const(abs(y.data)).id if y.kind == CONST else y.id


def cases(atom: Term, g: Term, depth: int) -> list[Branch]:
    """The branches that resolve ``atom`` (fresh unknowns named by ``depth``)."""
    k = atom.kind
    if k in (MIN, MAX):
        a, b = atom.args
        first, second = (a, b) if k == MIN else (b, a)  # min is a where a <= b, max is b
        return [Branch((T.le(a, b),), ((atom, first),)), Branch((T.lt(b, a),), ((atom, second),))]
    if k == ITE:
        c, a, b = atom.args
        return [Branch((c,), ((atom, a),)), Branch((T.not_(c),), ((atom, b),))]
    return _division_cases(atom, g, depth)


def _division_cases(atom: Term, g: Term, depth: int) -> list[Branch]:
    x, y = atom.args
    q = T.var(f"case|q{depth}", INT)  # '|' cannot occur in an SMT-LIB symbol: never a user's
    r = T.var(f"case|r{depth}", INT)
    replaced = tuple((t, q if t.kind == DIV else r) for t in subterms(g)
                     if t.kind in (DIV, MOD) and t.args[0] is x
                     and (t.args[1] is y or (t.kind == MOD and abs_id(t.args[1]) == abs_id(y))))
    defining = (T.eq(x, T.add(T.mul(y, q), r)), T.ge(r, T.ZERO))
    if y.kind == CONST:
        return [Branch(defining + (T.le(r, T.const(abs(y.data) - 1)),), replaced)]
    return [Branch((T.ge(y, T.ONE),) + defining + (T.le(r, T.sub(y, T.ONE)),), replaced),
            Branch((T.le(y, T.const(-1)),) + defining + (T.le(r, T.sub(T.neg(y), T.ONE)),), replaced),
            Branch((T.eq(y, T.ZERO),), ())]


def value_cases(reasoner: Splitting, g: Term) -> list[Branch]:
    """One branch per value of the first integer variable of an ``and``/``or`` ``g`` with at
    most :data:`MAX_VALUE_CASES` values between its bounds; none when there is no such."""
    if g.kind not in (AND, OR):
        return []
    for v in T.free_vars(g):
        if v.sort is not INT:
            continue
        lo, hi = reasoner.bounds(v)
        if isinstance(lo, int) and isinstance(hi, int) and hi - lo < MAX_VALUE_CASES:
            return [Branch((T.eq(v, T.const(k)),), ((v, T.const(k)),)) for k in range(lo, hi + 1)]
    return []


def guard_value_cases(reasoner: Splitting, g: Term) -> Iterator[list[Branch]]:
    """For an equality ``g`` over one integer variable ``x`` under a nonlinear atom: the
    points where ``g`` fails, and one branch per value ``x`` may take where ``g`` holds
    (all FALSE: ``g`` is FALSE); for a disequality, the points where it holds, and one
    branch per value where it fails (all TRUE: TRUE). The values are ``x``'s bounds with the
    equality assumed under a checkpoint: sound bounds, so the branches cover every point."""
    x = _single_nonlinear_variable(g)
    if x is None:
        return
    # only an equality pins a variable: ``= `` is refuted where it holds, ``!=`` proved where
    # it fails (assuming an inequality cost 14% of the corpus's time for no verdict)
    assumed, other = (g, T.not_(g)) if g.kind == EQ else (T.not_(g), g)
    values = _values_under(reasoner, x, assumed)
    if values is not None:
        yield [Branch((other,), ())] + [Branch((T.eq(x, T.const(k)),), ((x, T.const(k)),)) for k in values]


def _single_nonlinear_variable(g: Term) -> Term | None:
    """The one variable of an equality or disequality that is also a term of its sum, when a
    div/mod/product holds it; one walk of ``g``, left at the first other variable (most open
    guards have several: the free variables and the kinds were two whole walks, for each)."""
    if g.kind not in (EQ, NE):
        return None
    atoms = [a for a in T.linear_parts(g.args[0])[0] if a.kind == VAR]
    if len(atoms) != 1 or atoms[0].sort is not INT:
        return None  # x also outside the atoms: ``x mod 4 = 1`` alone bounds x nowhere
    x, nonlinear = atoms[0], False
    for t in subterms(g):
        if t.kind == VAR and t is not x:
            return None
        nonlinear = nonlinear or t.kind in _NONLINEAR_KINDS
    return x if nonlinear else None


def _values_under(reasoner: Splitting, x: Term, assumed: Term) -> range | None:
    """The values ``x``'s bounds leave with ``assumed`` taken (none when that contradicts
    the facts), or None when more than :data:`MAX_VALUE_CASES`."""
    cp = reasoner.checkpoint()
    try:
        reasoner.assume(assumed)
        if reasoner.contradiction:
            return range(0)
        lo, hi = reasoner.bounds(x)
    finally:
        reasoner.rollback(cp)
        reasoner.commit(cp)
    if isinstance(lo, int) and isinstance(hi, int) and hi - lo < MAX_VALUE_CASES:
        return range(lo, hi + 1)
    return None


def split_decide(reasoner: Splitting, g: Term, budget: CaseBudget, backoff: SplitBackoff | None = None) -> Truth:
    """``g`` (normal, undecided) decided by cases; UNKNOWN when a branch is, when the
    branches disagree, when the budget runs out, or when ``backoff`` skips it."""
    if not split_points(g, budget.constant_divisors) and g.kind not in (AND, OR) \
            and _single_nonlinear_variable(g) is None:
        return Truth.UNKNOWN
    if backoff is not None and budget.backoff and not backoff.admits():
        return Truth.UNKNOWN
    with reasoner.network.budget_at_most(budget.propagation):
        truth = _split(reasoner, g, budget, budget.depth, _Spent())
    if backoff is not None:
        backoff.record(truth is not Truth.UNKNOWN)
    return truth


def disjunction_cases(reasoner: Splitting, g: Term) -> Iterator[list[Branch]]:
    """One branch per disjunct not refuted of a disjunction the facts keep, each such disjunct
    over a variable of ``g`` (up to :data:`MAX_DISJUNCTIONS` disjunctions, each with at most
    :data:`MAX_DISJUNCT_CASES` such disjuncts). The disjunction holds wherever the facts do, and a refuted disjunct
    nowhere, so the branches cover every point. A contiguous input's ``size0 == 1 or
    size1 == 0 or stride0 == size1*size2*size3`` gives ``size1 >= 0`` once ``size0``, ``size2``,
    ``size3 >= 2`` and ``stride0 >= 0``: in each disjunct, not in their join."""
    variables = set(T.free_vars(g))
    tried = 0
    for d in reasoner.kept_disjunctions() if variables else ():
        if d.kind != OR or variables.isdisjoint(T.free_vars(d)):
            continue
        open_ = [a for a in d.args if reasoner.truth(a) is not False]
        if len(open_) > MAX_DISJUNCT_CASES or any(variables.isdisjoint(T.free_vars(a)) for a in open_):
            continue  # a disjunct over none of g's variables would leave its branch as open as g
        yield [Branch((a,), ()) for a in open_]
        tried += 1
        if tried == MAX_DISJUNCTIONS:
            return


def disjunction_decide(reasoner: Splitting, g: Term, budget: CaseBudget, backoff: SplitBackoff | None = None) -> Truth:
    """``g`` (normal, undecided) decided in each disjunct of a disjunction the facts keep
    (:func:`disjunction_cases`; a branch may split on its atoms as :func:`split_decide` does);
    UNKNOWN as there. Its own ``backoff``: the other splits' is left as it was."""
    if not reasoner.kept_disjunctions():
        return Truth.UNKNOWN
    if backoff is not None and budget.backoff and not backoff.admits():
        return Truth.UNKNOWN
    with reasoner.network.budget_at_most(budget.propagation):
        truth = _split(reasoner, g, budget, budget.depth, _Spent(), lambda *_: disjunction_cases(reasoner, g))
    if backoff is not None:
        backoff.record(truth is not Truth.UNKNOWN)
    return truth


def _split(reasoner: Splitting, g: Term, budget: CaseBudget, depth: int, spent: _Spent, candidates=None) -> Truth:
    for branches in (candidates or _candidates)(reasoner, g, budget, depth):
        if spent.branches + len(branches) > budget.branches:
            return Truth.UNKNOWN
        spent.branches += len(branches)
        seen: set[Truth] = set()
        for case in branches:
            truth = _branch(reasoner, g, case, budget, depth, spent)
            if truth is not None:
                seen.add(truth)
            if Truth.UNKNOWN in seen or len(seen) > 1:
                break
        if len(seen) <= 1 and Truth.UNKNOWN not in seen:
            return seen.pop() if seen else Truth.TRUE  # no branch left: the facts contradict
        if Truth.UNKNOWN not in seen:
            return Truth.UNKNOWN  # TRUE in one case, FALSE in another
        # a branch stayed open: splitting on this one did not settle it; try the next one
    return Truth.UNKNOWN


def _candidates(reasoner: Splitting, g: Term, budget: CaseBudget, depth: int) -> Iterator[list[Branch]]:
    """The splits to try, in order (lazily: a settled split asks nothing of the next)."""
    for atom in split_points(g, budget.constant_divisors):
        yield cases(atom, g, depth)
    by_value = value_cases(reasoner, g)
    if by_value:
        yield by_value
    yield from guard_value_cases(reasoner, g)


def _branch(reasoner: Splitting, g: Term, case: Branch, budget: CaseBudget, depth: int,
            spent: _Spent) -> Truth | None:
    """The guard's truth in one branch; None when the branch is contradictory."""
    cp = reasoner.checkpoint()
    try:
        for fact in case.assumptions:
            reasoner.assume(fact)
            if reasoner.contradiction:
                return None
        h = reasoner.normalize(T.replaced(g, dict(case.replaced)))  # the branch's values: the substitution row
        truth = reasoner.decide_unsplit(h, budget.relational).truth
        if reasoner.contradiction:
            return None
        if truth is Truth.UNKNOWN and depth > 1:
            truth = _split(reasoner, h, budget, depth - 1, spent)
            if reasoner.contradiction:
                return None
        return truth
    finally:
        reasoner.rollback(cp)
        reasoner.commit(cp)
