"""Witness points: a few models of the facts kept at hand, to answer UNKNOWN at once.

A question that holds at one model of the facts and fails at another is undecidable by
any sound reasoner, so the layers after the interval check (difference bounds, named
sums, isl, expansion, case splits) need not be asked. Such questions are most of what
PyTorch asks of a jagged program (``u3 == 0``, ``u3 != 0``, ``u3 <= 1`` of every length
of a split; a prefix sum before its ``torch._check``), and each one cost isl a slice of
up to 36 atoms: 641 of 1,407 questions of a prefix-sum split over 128 lengths.

A point assigns every variable a value and satisfies every fact taken in so far. Points
start at the example (backed hints, else 0) and are *repaired* when a fact breaks them:
one variable of the broken constraint moves just far enough, the constraints over that
variable are checked again, and what it broke is repaired the same way, a few levels
deep, within a budget of moves; a point that cannot be repaired is dropped. When the
points show a question only one way, a copy of one is repaired to show it the other
way. Sums over variables are kept per point and moved by ``coefficient * step``, so a
move costs the constraints its variable is in, not their length.

Nothing here ever decides a question: a wrong point can only leave open a question a
layer would have decided (a precision loss the corpus pins catch), never give a wrong
TRUE or FALSE. The property tests check every point against the evaluator.

Facts are taken in lazily, when a question needs the points. Under a checkpoint a point is
changed only as a copy (the one a checkpoint saw stays as it was), so a rollback gives back
the very points, and the state, of a reasoner never given what was rolled back.
"""

from __future__ import annotations

import itertools
import math
import operator
from fractions import Fraction
from collections.abc import Sequence
from typing import Iterable, Iterator, Mapping

import attrs

from absint.lang import terms as T
from absint.lang.dag import subterms
from absint.lang.evaluator import NotEvaluable, evaluate, truth_at
from absint.lang.kinds import AND, DEF, EQ, LE, LIN, LT, NE, NOT, OR, VAR, Kind
from absint.lang.sorts import BOOL, INT
from absint.lang.terms import Term
from absint.reasoning.trail import Trail

# Python's own min, bound at import: PyTorch's non-strict export replaces builtins.min for
# the whole trace with a Python wrapper that folds a list one pair at a time through a
# lambda (torch/_export/non_strict_utils.py, _override_builtin_ops), which made the
# smallest-degree search of a repair one Python call a summand
_smallest = min

#: points kept (the first, grown from the example, is never evicted)
MAX_POINTS = 8
#: variable moves one repair may try, all levels together
MOVES_PER_REPAIR = 24
#: what one repair may spend checking the constraints over moved variables, in units of one
#: sum's check (a constraint with nonlinear atoms weighs its size): a variable read by
#: thousands of constraints over products (a corpus file's input size) is not moved
WORK_PER_REPAIR = 2048
#: a constraint's size is counted up to this
MAX_SIZE = 1 << 20
#: points a question is evaluated at before it is normalised (the base and the fill points:
#: what shows PyTorch's questions about unbacked sizes open); the rest after the layers
QUICK_POINTS = 3
#: the early look (:meth:`Witnesses.open_early`) is taken for a reasoner's first questions,
#: then only while at least one in EARLY_HIT_SHARE of them was shown open (every
#: EARLY_RESAMPLE-th question still looks, so questions that turn open get it back); and only
#: when the facts it must first take in are no more than the question's summands (what a
#: hit saves is normalising the question). Work on a quarter of the corpus (Python calls):
#: 0.93 of looking always; torchrec EBC 0.98, the prefix-sum split 1.00. "always" looks at
#: every short question (:data:`LONG_QUESTION`) and at the long ones where it pays
EARLY_LOOKS = ("always", "where it pays")
EARLY_TRIAL = 16
EARLY_HIT_SHARE = 4
EARLY_RESAMPLE = 8
#: a question with more summands than this is tallied apart for the early look: the prefix
#: sums of a jagged program are rarely shown open as asked (one needs a point made for it,
#: after the layers), its questions about one size nearly always are; tallied together,
#: the hits on the short ones kept the look on every prefix sum (a quarter of each one's
#: time in a 256-length prefix-sum split, compiling and evaluating it for nothing)
LONG_QUESTION = 8
#: compiled questions kept
KEPT_QUESTIONS = 512
#: where an Int variable with no example value (an unbacked size) starts, one point each: the
#: values PyTorch asks about of every size (``u == 0``, ``u != 0``, ``u <= 1``, ``u == 1``), so
#: that those questions are shown open without a repair each
FILLS = (0, 1, 2)
#: a sum with more plain summands than this has its value kept per point (:func:`_kept_linear_value`)
#: and its summand in fewest constraints kept (:meth:`Witnesses._fewest_readers`)
LONG_LINEAR = 16
#: entries a point's memo holds at most (evaluated terms and kept sums): emptied when full
KEPT_POINT_MEMO = 4096
#: an open pair is restricted to the guard's variables lazily when they are more than one
#: in LAZY_PAIR of the points' variables (:meth:`Witnesses.open_pair`)
LAZY_PAIR = 8
#: how deep a repair follows what its moves break
REPAIR_DEPTH = 3
#: a move that breaks more constraints than this is not tried
MAX_BROKEN = 2


_FIRST, _SECOND = operator.itemgetter(0), operator.itemgetter(1)
_KIND, _DATA = operator.attrgetter("kind"), operator.attrgetter("data")


@attrs.frozen(slots=True, eq=False)
class Constraint:
    """One conjunct of a fact, or of a question's side: ``sum linear + rest + const <kind> 0``
    for a comparison, where ``linear`` holds the variables that occur only as plain
    summands (those a repair may move); ``kind`` None: evaluated whole (and/or, literals)."""

    term: Term
    kind: Kind | None
    linear: tuple[tuple[str, object], ...]
    rest: tuple[tuple[Term, object], ...]
    const: object
    names: tuple[str, ...]
    #: what checking it at a point costs: 1 for a sum kept per point, else its size
    weight: int = 1
    #: an and/or's operands, each a constraint (an and/or whose operands are not all
    #: comparisons or and/ors is evaluated whole: kind None)
    parts: tuple = ()
    #: ``linear`` as its names and its coefficients: the sum at a point is then added up by
    #: ``map`` in C (a prefix sum of 256 lengths is evaluated at every point, per question)
    linear_names: tuple = attrs.field(kw_only=True, default=attrs.Factory(lambda c: tuple(map(_FIRST, c.linear)), takes_self=True))
    linear_coefs: tuple = attrs.field(kw_only=True, default=attrs.Factory(lambda c: tuple(map(_SECOND, c.linear)), takes_self=True))
    #: ``names`` as a set, made once: whether a point covers them is asked at every point
    name_set: frozenset = attrs.field(kw_only=True, default=attrs.Factory(lambda c: frozenset(c.names), takes_self=True))
    #: a long sum's names and coefficients as a key (None for a short one): what a point
    #: keeps its value under, and what the first summand in fewest constraints is kept under
    body: "_Sum | None" = attrs.field(init=False, default=attrs.Factory(
        lambda c: _Sum(c.linear_names, c.linear_coefs) if len(c.linear) > LONG_LINEAR else None, takes_self=True))
    #: ``body`` without the last summand: the previous prefix sum's
    shorter: "_Sum | None" = attrs.field(init=False, default=attrs.Factory(
        lambda c: _Sum(c.linear_names[:-1], c.linear_coefs[:-1]) if c.body is not None else None, takes_self=True))

    @property
    def simple(self) -> bool:
        """A comparison of a sum of variables: its value is kept per point."""
        return self.kind in _COMPARISONS and not self.rest


class _Sum:
    """A long sum's names and coefficients, as a dict key hashed once (a tuple's hash is
    computed at every lookup: O(summands) each time a point is asked its value)."""

    __slots__ = ("names", "coefs", "_hash")

    def __init__(self, names: tuple[str, ...], coefs: tuple) -> None:
        self.names, self.coefs = names, coefs
        self._hash = hash((names, coefs))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Sum) and self.names == other.names and self.coefs == other.coefs


@attrs.define(slots=True)
class _Tally:
    """The early look on one class of questions: looked at, shown open, passed by."""

    asked: int = 0
    opened: int = 0
    passed: int = 0

    def pays(self) -> bool:
        """During the trial, and while one in :data:`EARLY_HIT_SHARE` was shown open; else
        every :data:`EARLY_RESAMPLE`-th question (counted as passed by otherwise)."""
        if self.asked < EARLY_TRIAL or self.opened * EARLY_HIT_SHARE >= self.asked:
            return True
        self.passed += 1
        return self.passed % EARLY_RESAMPLE == 0


@attrs.define(slots=True, eq=False)
class Point:
    """Values by variable name, the value of each simple constraint's sum there, and a memo
    emptied whenever a value moves: the evaluator's values of the other terms there (the
    facts of a file share their sub-terms, and checking them one after another reuses it)
    and the long sums' values under their :class:`_Sum` keys (:func:`_kept_linear_value`)."""

    values: dict
    sums: dict = attrs.Factory(dict)
    memo: dict = attrs.Factory(dict)
    #: the generation it was made in (:meth:`Witnesses._writable`)
    generation: int = 0
    #: the value an Int variable with no example value starts at here (:data:`FILLS`)
    fill: int = 0

    def copy(self, generation: int) -> "Point":
        return Point(dict(self.values), dict(self.sums), generation=generation, fill=self.fill)


class Witnesses:
    """The points, the constraints they satisfy, and which constraints read each variable."""

    def __init__(self, trail: Trail, max_points: int = MAX_POINTS, early_look: str = "where it pays"):
        if early_look not in EARLY_LOOKS:
            raise ValueError(f"early_look must be one of {', '.join(EARLY_LOOKS)}, not {early_look!r}")
        self.early_always = early_look == "always"
        self.trail = trail
        self.max_points = max_points
        self.constraints: list[Constraint] = []
        #: conjuncts assumed outside any checkpoint and not compiled yet: a file whose guards
        #: the interval layer decides never needs its facts as constraints (see :meth:`assume`)
        self._raw: list[Term] = []
        self._taken = 0  # constraints the points satisfy (the rest are pending)
        self._limit = 0  # constraints a repair must keep: the first ``_limit``
        #: name -> [(constraint index, coefficient of a plain summand, or None)]
        self._readers: dict[str, list[tuple[int, object]]] = {}
        self._weight: dict[str, int] = {}  # name -> the weight of the constraints reading it
        self._sorts: dict[str, object] = {}
        self._term_info: dict[Term, tuple[frozenset[str], int]] = {}  # see :meth:`_info`
        self._questions: dict[Term, Constraint] = {}  # see :meth:`_question`
        self._walked: set[int] = set()
        self._defaults: dict[str, object] = {}
        self.points: list[Point] = [Point({})]
        #: a point may be changed in place while a checkpoint is open only if made in this
        #: generation (since the newest mark or restore): any other is in a checkpoint's list
        self._generation = 0
        self._rebuild_after = 0  # a failed rebuild is tried again past twice as many constraints
        self._spread_done = False  # whether the points for :data:`FILLS` were made
        self.opened = 0  # questions answered UNKNOWN by the points
        #: the last question shown open, and the two points that showed it (true, false)
        self.last_open: Term | None = None
        self._last_points: tuple[Point, Point] | None = None
        self.last_names: tuple[str, ...] = ()  # the variables of the last question asked
        self.made = 0  # points made for a question
        #: the early look's tallies, of short and long questions (:data:`LONG_QUESTION`):
        #: cost statistics only, never rolled back
        self._tallies = (_Tally(), _Tally())
        #: bumped whenever a constraint comes or goes: what :attr:`_fewest` is kept for
        self._readers_version = 0
        #: a long sum (:class:`_Sum`) -> (readers version, place of the first summand in fewest
        #: constraints, their count)
        self._fewest: dict[_Sum, tuple[int, int, int]] = {}

    @property
    def early_asked(self) -> int:
        """Questions the early look was taken for."""
        return sum(t.asked for t in self._tallies)

    @property
    def early_opened(self) -> int:
        """Questions the early look showed open."""
        return sum(t.opened for t in self._tallies)

    @property
    def early_passed(self) -> int:
        """Questions the early look passed by (it was not paying)."""
        return sum(t.passed for t in self._tallies)

    # ------------------------------------------------------------ checkpoints

    def mark(self) -> tuple:
        """What :meth:`restore` puts back: the points as a checkpoint sees them."""
        self._flush()
        self._generation += 1
        return tuple(self.points), self._taken, self._rebuild_after, self._spread_done

    def restore(self, mark: tuple) -> None:
        points, self._taken, self._rebuild_after, self._spread_done = mark
        self.points = list(points)
        self._taken = min(self._taken, len(self.constraints))
        self._generation += 1

    def _writable(self, k: int) -> Point:
        """Point ``k``, replaced by a copy first if a checkpoint saw it."""
        p = self.points[k]
        if self.trail.recording and p.generation != self._generation:
            p = p.copy(self._generation)
            self.points[k] = p
        return p

    # ------------------------------------------------------------ facts

    def example(self, values: Mapping[str, object]) -> None:
        """Example values (backed hints): where a variable starts in a new point."""
        self._defaults.update(values)

    def assume(self, fact: Term) -> None:
        """Take ``fact`` in (its conjuncts, as constraints the points must satisfy); a conjunct
        asked as a question first (an assert is decided, then assumed) is compiled once."""
        if not self.trail.recording:
            self._raw.extend(_conjuncts(fact))
            return
        self._flush()
        for c in _conjuncts(fact):
            self._add(c)

    def _flush(self) -> None:
        """Compile the conjuncts :meth:`assume` kept raw, in order (before a checkpoint opens,
        so that a rollback never takes them back, and before the points take facts in)."""
        if self._raw:
            raw, self._raw = self._raw, []
            for c in raw:
                self._add(c)

    def _add(self, c: Term) -> None:
        compiled = self._questions.get(c)
        self._add_constraint(compiled if compiled is not None else _compile(c, self._info, self._sorts))

    def _add_constraint(self, c: Constraint) -> None:
        i = len(self.constraints)
        self.constraints.append(c)
        coefs = dict(c.linear) if c.simple else {}  # a sum moves with its plain summands
        readers, weight = self._readers, self._weight
        for name in c.names:
            entry = (i, coefs.get(name))
            if name in readers:
                readers[name].append(entry)
            else:
                readers[name] = [entry]
            weight[name] = weight.get(name, 0) + c.weight
        self._readers_version += 1
        self.trail.push(self._pop_constraint)

    def _pop_constraint(self) -> None:
        c = self.constraints.pop()
        for name in c.names:
            self._readers[name].pop()
            self._weight[name] -= c.weight
        self._readers_version += 1
        self._taken = min(self._taken, len(self.constraints))

    def _take_pending(self) -> None:
        """Bring the points up to every constraint: each broken one repaired or the point dropped."""
        self._flush()
        while self._taken < len(self.constraints):
            i = self._taken
            c = self.constraints[i]
            self._limit = i + 1
            self._spread(c.names)
            kept = []
            for k in range(len(self.points)):
                p = self._writable(k)
                self._cover(p, c)
                if c.simple:
                    p.sums[i] = _linear_value(c, p.values)
                if self._holds(p, i) or self._repair(p, i):
                    kept.append(p)
            self.points = kept
            self._taken += 1
        if not self.points and len(self.constraints) >= self._rebuild_after and not self.trail.recording:
            self._rebuild()

    def _rebuild(self) -> None:
        """A point grown from the example through every constraint in order, or none (then
        not tried again before the constraints double)."""
        p = Point({}, generation=self._generation)
        for i, c in enumerate(self.constraints):
            self._cover(p, c)
            if c.simple:
                p.sums[i] = _linear_value(c, p.values)
        for i in range(len(self.constraints)):
            self._limit = i + 1
            if not self._holds(p, i) and not self._repair(p, i):
                self._rebuild_after = 2 * len(self.constraints) + 1
                return
        self._keep(p)

    def _cover(self, p: Point, c: Constraint) -> None:
        """Give ``p`` a value for each variable of ``c`` it has none for. A long sum whose
        previous prefix sum ``p`` keeps a value of (:func:`_kept_linear_value`) has every name
        but its last there already (a point's variables are never taken away): a prefix sum
        of 512 lengths is then one lookup a point, not 512."""
        values = p.values
        if c.shorter is not None and not c.rest and c.linear_names[-1] in values and c.shorter in p.memo:
            return
        if values.keys() >= c.name_set:  # the common case, in C
            return
        for name in c.names:
            if name not in values:
                values[name] = self._default(name, p.fill)

    def _default(self, name: str, fill: int = 0):
        v = self._defaults.get(name)
        if v is not None:
            return v
        sort = self._sorts.get(name)
        return False if sort is BOOL else fill if sort is INT else 0

    def _spread(self, names: Iterable[str]) -> None:
        """Once an Int variable without an example value comes, a copy of the first point
        for each other of :data:`FILLS` (they satisfy every fact so far: only variables no
        fact has read yet take other values in them)."""
        if self._spread_done or not self.points:
            return
        base = self.points[0]
        if not any(n not in base.values and n not in self._defaults and self._sorts.get(n) is INT for n in names):
            return
        self._spread_done = True
        for fill in FILLS[1:]:
            q = base.copy(self._generation)
            q.fill = fill
            self.points.insert(1, q)

    # ------------------------------------------------------------ questions

    def open(self, g: Term, repair: bool = True) -> bool:
        """Whether the points (or, with ``repair``, a point made for it) show ``g`` both true
        and false: then no sound reasoner decides it. False says nothing."""
        self._take_pending()
        if not self.points:
            return False
        self._limit = len(self.constraints)
        question = self._question(g)
        names = question.names
        self._spread(names)
        self.last_names = names
        at: dict[bool, Point] = {}
        for p in self.points if repair else self.points[:QUICK_POINTS]:
            self._cover(p, question)
            t = _truth(question, p)
            if t is not None and t not in at:
                at[t] = p
                if len(at) == 2:
                    return self._opened(g, at[True], at[False])
        if len(at) != 1 or not repair:
            return False
        shown, = at
        made = self._made_for(g, want=not shown)
        if made is None:
            return False
        return self._opened(g, *((at[True], made) if shown else (made, at[False])))

    def open_early(self, g: Term) -> bool:
        """``open(g, repair=False)`` before ``g`` is normalised, where that pays: it saves
        the normalisation and the interval check of a question the points show open, and
        costs bringing the points up to every fact and compiling ``g`` for one that is not."""
        summands = _summands(g)
        tally = self._tallies[summands > LONG_QUESTION]
        if not self._early_pays(summands, tally):
            return False
        tally.asked += 1
        shown = self.open(g, repair=False)
        tally.opened += shown
        return shown

    def _early_pays(self, summands: int, tally: "_Tally") -> bool:
        if self.early_always and summands <= LONG_QUESTION:
            return True
        if not self.early_always and len(self.constraints) + len(self._raw) - self._taken > summands:
            return False
        return tally.pays()

    def _question(self, g: Term) -> Constraint:
        """``g`` compiled, kept for the next questions: a guard is asked before it is
        normalised and after, and PyTorch asks the same ones again as facts arrive."""
        c = self._questions.get(g)
        if c is None:
            c = self._questions[g] = _compile(g, self._info, self._sorts)
            if len(self._questions) > KEPT_QUESTIONS:
                del self._questions[next(iter(self._questions))]
        return c

    def _opened(self, g: Term, true_at: Point, false_at: Point) -> bool:
        self.opened += 1
        self.last_open, self._last_points = g, (true_at, false_at)
        return True

    def _info(self, t: Term) -> tuple[frozenset[str], int]:
        """The variable names of ``t`` and its size (capped), kept by term: a file's facts
        share their sub-terms, which are then walked once (their sorts noted on the way)."""
        cache = self._term_info
        got = cache.get(t)
        if got is not None:
            return got
        for x in subterms(t, skip=self._walked):
            self._walked.add(x.id)
            if x.kind == VAR:
                self._sorts.setdefault(x.data, x.sort)
                cache[x] = (frozenset((x.data,)), 1)
                continue
            parts = [cache[a] for a in x.args]
            names = frozenset().union(*(n for n, _ in parts)) if parts else frozenset()
            cache[x] = (names, min(MAX_SIZE, 1 + sum(n for _, n in parts)))
        return cache[t]

    def _made_for(self, g: Term, want: bool) -> Point | None:
        """A copy of a point repaired so that ``g`` is ``want`` there, or None. The newest
        point is tried first and replaced by its copy (the base point, grown from the
        example, is kept): one point then gathers the values PyTorch asks about one
        variable after another (``u3 != 0`` after ``u2 != 0``), and the pool does not turn
        over while a program's questions go by."""
        side = g if want else T.not_(g)
        targets = [self._question(c) for c in _conjuncts(side)]  # g itself is compiled already
        fixed = len(FILLS) if self._spread_done else 1  # the base and fill points stay as they are
        for k in dict.fromkeys((len(self.points) - 1, 0)):
            q = self.points[k].copy(self._generation)
            if all(self._repair_target(q, t) for t in targets) and \
                    all(_target_holds(t, q) for t in targets):
                if k < fixed:
                    self._keep(q)
                else:
                    self.points[k] = q
                self.made += 1
                return q
        return None

    def last_pair(self, names: Iterable[str] | None = None) -> tuple[dict, dict] | None:
        """The two points that showed the last open question (true, false), restricted to
        ``names`` (all their variables: None). Read at once: a point may move later."""
        if self._last_points is None:
            return None
        if names is None:
            return tuple(dict(p.values) for p in self._last_points)
        return tuple(_restricted(p.values, names) for p in self._last_points)

    def open_pair(self, names: tuple[str, ...]) -> "Sequence[dict] | None":
        """:meth:`last_pair` restricted to ``names``, read lazily (:class:`OpenPair`) when
        the names are more than a few of the points' variables."""
        if self._last_points is None:
            return None
        values = tuple(p.values for p in self._last_points)
        if len(names) * LAZY_PAIR < len(values[0]):
            return tuple(_restricted(v, names) for v in values)
        return OpenPair(tuple(map(dict.copy, values)), tuple(names))

    def _keep(self, q: Point) -> None:
        self.points.append(q)
        if len(self.points) > self.max_points:
            del self.points[len(FILLS) if self._spread_done else 1]

    # ------------------------------------------------------------ repair

    def _holds(self, p: Point, i: int) -> bool:
        c = self.constraints[i]
        if c.simple:
            return _satisfied(c.kind, p.sums[i])
        return _target_holds(c, p)

    def _repair(self, p: Point, i: int) -> bool:
        journal: list = []
        ok = self._fix(p, self.constraints[i], i, frozenset(), REPAIR_DEPTH, [MOVES_PER_REPAIR, WORK_PER_REPAIR],
                       journal)
        if not ok:
            self._undo(p, journal, 0)
        return ok

    def _repair_target(self, p: Point, target: Constraint) -> bool:
        """``target`` (no constraint of the facts) made to hold at ``p``, every fact kept."""
        journal: list = []
        ok = self._fix(p, target, None, frozenset(), REPAIR_DEPTH, [MOVES_PER_REPAIR, WORK_PER_REPAIR], journal)
        if not ok:
            self._undo(p, journal, 0)
        return ok

    def _fix(self, p: Point, c: Constraint, i: int | None, frozen: frozenset, depth: int,
             budget: list[int], journal: list) -> bool:
        """Make ``c`` (constraint ``i`` of the facts, or a target when None) hold at ``p`` by
        moving one of its plain variables (not ``frozen``), then mending what that broke,
        ``depth`` levels; every constraint over a moved variable holds when this returns True."""
        if self._satisfies(p, c, i):
            return True
        if c.kind == OR:
            return any(self._fix(p, d, None, frozen, depth, budget, journal) for d in c.parts)
        if c.kind == AND:
            return all(self._fix(p, d, None, frozen, depth, budget, journal) for d in c.parts) and \
                self._satisfies(p, c, i)
        for name, new in self._moves(p, c, frozen):
            if budget[0] <= 0:
                return False
            cost = self._weight.get(name, 0)
            if cost > budget[1]:
                continue
            budget[0] -= 1
            budget[1] -= cost
            mark = len(journal)
            self._move(p, name, new, journal)
            if self._satisfies(p, c, i) and self._mended(p, name, frozen | {name}, depth, budget, journal) \
                    and self._satisfies(p, c, i):
                return True
            self._undo(p, journal, mark)
        return False

    def _mended(self, p: Point, name: str, frozen: frozenset, depth: int, budget: list[int], journal: list) -> bool:
        """Whether the constraints over ``name`` that a move broke hold again, few of them
        mended ``depth`` levels deep."""
        broken = self._broken(p, name)
        if not broken:
            return True
        if depth <= 0 or len(broken) > MAX_BROKEN:
            return False
        return all(self._fix(p, self.constraints[j], j, frozen, depth - 1, budget, journal) for j in broken) and \
            all(self._holds(p, j) for j in broken)

    def _broken(self, p: Point, name: str) -> list[int]:
        """The constraints over ``name`` (that a repair must keep) that ``p`` breaks."""
        limit, constraints, sums = self._limit, self.constraints, p.sums
        out = []
        for j, coef in self._readers.get(name, ()):
            if j >= limit:
                continue
            if coef is not None:  # a sum kept per point: compared where it is
                if not _satisfied(constraints[j].kind, sums[j]):
                    out.append(j)
            elif not self._holds(p, j):
                out.append(j)
        return out

    def _satisfies(self, p: Point, c: Constraint, i: int | None) -> bool:
        return self._holds(p, i) if i is not None else _target_holds(c, p)

    def _moves(self, p: Point, c: Constraint, frozen: frozenset) -> Iterator[tuple[str, object]]:
        """``(variable, new value)`` that make ``c`` hold, the variable in fewest constraints
        first (lazily: a repair rarely needs more than the first)."""
        if c.kind not in _COMPARISONS:
            return
        value = _value(c, p)
        if value is None:
            return
        if not c.linear:
            return
        first = self._fewest_readers(c)
        for name, coef in itertools.chain((c.linear[first],), self._others_by_degree(c.linear, first)):
            if name in frozen:
                continue
            for step in _steps(c.kind, value, coef, self._sorts.get(name) is INT):
                yield name, p.values[name] + step

    def _degrees(self, names: tuple[str, ...]) -> list[int]:
        """Each name's degree (the constraints reading it), counted by map in C."""
        return list(map(len, map(self._readers.get, names, itertools.repeat(()))))

    def _fewest_readers(self, c: Constraint) -> int:
        """The place of the first plain summand of ``c`` in fewest constraints (a repair's
        first move). For a long sum, kept while the constraints stay
        (:attr:`_readers_version`): the next prefix sum (one more summand, last) then
        compares only that one."""
        names = c.linear_names
        if c.body is None:
            degrees = self._degrees(names)
            return degrees.index(_smallest(degrees))
        kept = self._fewest.get(c.body)
        if kept is not None and kept[0] == self._readers_version:
            return kept[1]
        shorter = self._fewest.get(c.shorter)
        if shorter is not None and shorter[0] == self._readers_version:
            _, first, least = shorter
            last = len(self._readers.get(names[-1], ()))
            if last < least:
                first, least = len(names) - 1, last
        else:
            degrees = self._degrees(names)
            least = _smallest(degrees)
            first = degrees.index(least)
        if len(self._fewest) >= KEPT_QUESTIONS:
            self._fewest.clear()
        self._fewest[c.body] = (self._readers_version, first, least)
        return first

    def _others_by_degree(self, linear, first: int) -> Iterator:
        """The summands but the one at ``first``, in fewest constraints first (a stable order):
        sorted only when asked for (a repair rarely needs a second candidate)."""
        degrees = self._degrees(tuple(map(_FIRST, linear)))
        yield from (linear[i] for i in sorted(range(len(linear)), key=degrees.__getitem__) if i != first)

    def _move(self, p: Point, name: str, new, journal: list) -> None:
        old = p.values[name]
        journal.append((name, old))
        p.values[name] = new
        p.memo.clear()
        delta = new - old
        sums = p.sums
        for j, coef in self._readers.get(name, ()):
            if coef is not None and j in sums:
                sums[j] += coef * delta

    def _undo(self, p: Point, journal: list, mark: int) -> None:
        while len(journal) > mark:
            name, old = journal.pop()
            now = p.values[name]
            p.values[name] = old
            p.memo.clear()
            delta = old - now
            for j, coef in self._readers.get(name, ()):
                if coef is not None and j in p.sums:
                    p.sums[j] += coef * delta


class OpenPair(Sequence):
    """``(true_at, false_at)`` of an open guard, restricted to its variables when first read:
    an open prefix sum names hundreds of lengths, and PyTorch's bridge only asks whether
    there is a pair. The points' values are copied when it is made (a point moves later):
    copying a dict is one pass in C, restricting it a lookup a name."""

    __slots__ = ("_values", "_names", "_pair")

    def __init__(self, values: tuple[dict, dict], names: tuple[str, ...]) -> None:
        self._values, self._names, self._pair = values, names, None

    def _read(self) -> tuple[dict, dict]:
        if self._pair is None:
            self._pair = tuple(_restricted(v, self._names) for v in self._values)
            self._values = None
        return self._pair

    def __getitem__(self, i):
        return self._read()[i]

    def __len__(self) -> int:
        return 2

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (OpenPair, tuple)):
            return tuple(self) == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._read())


def _restricted(values: dict, names: Iterable[str]) -> dict:
    """``values`` on ``names`` (those it has), read in C when it has them all: an open prefix
    sum's pair names every length."""
    names = tuple(names)
    try:
        return dict(zip(names, map(values.__getitem__, names)))
    except KeyError:
        return {n: values[n] for n in names if n in values}


# ---------------------------------------------------------------- constraints


def _conjuncts(t: Term) -> list[Term]:
    out, todo = [], [t]
    while todo:
        x = todo.pop()
        if x.kind == AND:
            todo.extend(reversed(x.args))
        else:
            out.append(x)
    return out




_COMPARISONS = frozenset(T.COMPARISON_KINDS)


def _compile(t: Term, info, sorts: dict) -> Constraint:
    """``t`` as a constraint: a comparison split into its plain variable summands and the
    rest, an and/or of such into its parts; ``info(term)``: a term's variable names and
    size (kept per reasoner); ``sorts``: where the sorts of variables are noted."""
    kind = t.kind
    if kind in (AND, OR) and all(a.kind in _COMPARISONS or a.kind in (AND, OR) for a in t.args):
        parts = tuple(_compile(a, info, sorts) for a in t.args)
        names = tuple(dict.fromkeys(n for c in parts for n in c.names))
        return Constraint(t, kind, (), (), 0, names, sum(c.weight for c in parts), parts)
    if kind not in _COMPARISONS:
        names, size = info(t)
        return Constraint(t, None, (), (), 0, tuple(names), size)
    plain = _plain_sum(t.args[0], sorts)
    if plain is not None:
        names, coefs, const, name_set = plain
        distinct = names if len(name_set) == len(names) else tuple(dict.fromkeys(names))
        return Constraint(t, t.kind, tuple(zip(names, coefs)), (), const, distinct, 1,
                          linear_names=names, linear_coefs=coefs, name_set=name_set)
    coefs, const = T.linear_parts(t.args[0])
    if any(a.kind == DEF for a in coefs):  # a named sum compared: its variables are summands
        coefs, const = T.without_definitions(coefs, const)
    rest = [(a, v) for a, v in coefs.items() if a.kind != VAR]
    inside: set[str] = set()
    size = 1
    for a, _ in rest:
        names, n = info(a)
        inside.update(names)
        size += n
    for a in coefs:
        if a.kind == VAR and a.data not in sorts:
            sorts[a.data] = a.sort
    linear = tuple((a.data, v) for a, v in coefs.items() if a.kind == VAR and a.data not in inside)
    rest += [(a, v) for a, v in coefs.items() if a.kind == VAR and a.data in inside]
    names = tuple(dict.fromkeys([n for n, _ in linear] + sorted(inside)))
    return Constraint(t, t.kind, linear, tuple(rest), const, names, size if rest else 1)


def _plain_sum(s: Term, sorts: dict) -> tuple[tuple, tuple, object, frozenset] | None:
    """The names, coefficients, constant and set of names of a sum whose atoms are all
    variables (the common case, read by ``map`` in C: a prefix sum of 256 lengths is
    compiled per question), noting their sorts; None for any other sum."""
    if s.kind != LIN:
        return None
    if not all(map(operator.is_, map(_KIND, s.args), itertools.repeat(VAR))):  # no Python hash of a Kind
        return None
    names = tuple(map(_DATA, s.args))
    name_set = frozenset(names)
    if not sorts.keys() >= name_set:
        for a in s.args:
            sorts.setdefault(a.data, a.sort)
    coefs, const = s.data
    return names, coefs, const, name_set


def _summands(g: Term) -> int:
    """The summands of ``g``'s comparisons: the size of the sums normalising it rewrites."""
    if g.kind in (AND, OR, NOT):
        return sum(_summands(c) for c in g.args)
    if g.kind in T.COMPARISON_KINDS:
        a = g.args[0]
        return len(a.args) if a.kind == LIN else 1
    return 1


def _linear_value(c: Constraint, values: dict):
    return sum(map(operator.mul, c.linear_coefs, map(values.__getitem__, c.linear_names)), c.const)


def _kept_linear_value(c: Constraint, p: Point):
    """:func:`_linear_value` of a long sum, its part without the constant kept in the point's
    memo (emptied whenever a value there moves) under (names, coefficients): the questions
    about one prefix sum share it, and the next prefix sum (one more summand, the newest
    last) adds one product to it. Exact numbers: the sum is the same in any order."""
    memo = p.memo
    part = memo.get(c.body)
    if part is None:
        shorter = memo.get(c.shorter)
        if shorter is not None:
            part = shorter + c.linear_coefs[-1] * p.values[c.linear_names[-1]]
        else:
            part = sum(map(operator.mul, c.linear_coefs, map(p.values.__getitem__, c.linear_names)))
        if len(memo) >= KEPT_POINT_MEMO:  # a point no repair moves would keep every sum asked
            memo.clear()
        memo[c.body] = part
    return part + c.const


def _value(c: Constraint, p: Point):
    """The compared sum of ``c`` at ``p``, or None where it has no value."""
    total = _linear_value(c, p.values) if c.body is None else _kept_linear_value(c, p)
    for atom, coef in c.rest:
        try:
            total += coef * evaluate(atom, p.values, p.memo)
        except NotEvaluable:
            return None
    return total


def _truth(c: Constraint, p: Point) -> bool | None:
    """Whether ``c`` holds at ``p``; None where it has no value there."""
    if c.parts:
        absorbing, undefined = c.kind == OR, False
        for part in c.parts:
            t = _truth(part, p)
            if t is absorbing:
                return absorbing
            undefined = undefined or t is None
        return None if undefined else not absorbing
    if c.kind is None:
        return truth_at(c.term, p.values, p.memo)
    v = _value(c, p)
    return None if v is None else _satisfied(c.kind, v)


def _target_holds(c: Constraint, p: Point) -> bool:
    return _truth(c, p) is True


def _satisfied(kind: Kind, v) -> bool:
    if kind == LE:
        return v <= 0
    if kind == LT:
        return v < 0
    if kind == EQ:
        return v == 0
    return v != 0


def _steps(kind: Kind, v, coef, integral: bool) -> list:
    """Steps ``d`` of a variable with coefficient ``coef`` that make ``v + coef*d <kind> 0``
    hold, the smallest first (none where no integer step does)."""
    if kind == NE:
        return [1, -1] if v == 0 else []
    if integral and type(v) is int and type(coef) is int:
        return _integer_steps(kind, v, coef)
    exact = Fraction(-v) / coef
    if kind == EQ:
        if integral and exact.denominator != 1:
            return []
        return [int(exact) if integral else exact]
    if kind == LE:
        d = math.floor(exact) if coef > 0 else math.ceil(exact)
        return [d if integral else exact]
    if integral:  # LT: strictly past the root
        return [math.ceil(exact) - 1 if coef > 0 else math.floor(exact) + 1]
    return [exact - 1 if coef > 0 else exact + 1]


def _integer_steps(kind: Kind, v: int, coef: int) -> list[int]:
    """:func:`_steps` in integers (no Fraction: this is the common case, and the hot one)."""
    if kind == EQ:
        q, r = divmod(-v, coef)
        return [] if r else [q]
    if kind == LE:  # coef*d <= -v
        return [(-v) // coef] if coef > 0 else [-((-v) // -coef)]
    # LT: coef*d <= -v - 1
    return [(-v - 1) // coef] if coef > 0 else [-((-v - 1) // -coef)]
