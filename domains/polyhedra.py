"""Integer polyhedra on one small block of variables, backed by isl (islpy).

Exact where intervals are not: ``u0 <= u1, u1 <= u2`` entails ``u0 <= u2``.
isl's cost grows about cubically with the number of variables, so the engine
only ever gives it the slice of variables a guard touches (see
:mod:`domains.packing`). Every isl call runs under ``set_max_operations``;
running out of operations is reported as ``None`` (UNKNOWN), never a hang.
Objects are built through the isl API, never by formatting strings.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import attrs
import islpy as isl

DEFAULT_MAX_OPERATIONS = 200_000
#: integer points of a polyhedron kept as witnesses (see :meth:`Polyhedron.satisfiable_with`)
MAX_WITNESSES = 16
#: questions a polyhedron's witnesses missed before it probes for points near its lower
#: bounds (:meth:`Polyhedron._probe`): a polyhedron asked once never pays for probes (an
#: ``entails`` of an equality, which asks isl of both sides, is one question)
PROBE_AFTER_MISSES = 2
#: the probes: every bounded-below variable at least this far above its lower bound
PROBE_OFFSETS = (1, 2)
_SET = isl.dim_type.set
_PARAM = isl.dim_type.param


@attrs.frozen(slots=True)
class LinearConstraint:
    """``sum coef_i * x_i + const >= 0`` (or ``== 0`` when ``equality``); integer coefficients."""

    coefs: tuple[tuple[int, int], ...]
    const: int
    equality: bool = False

    def negated(self) -> list["LinearConstraint"]:
        """The integer complement as a disjunction: ``L >= 0`` fails iff ``-L - 1 >= 0``."""
        flipped = tuple((i, -c) for i, c in self.coefs)
        if not self.equality:
            return [LinearConstraint(flipped, -self.const - 1)]
        return [LinearConstraint(self.coefs, self.const - 1), LinearConstraint(flipped, -self.const - 1)]

    def holds_at(self, point: Sequence[int]) -> bool:
        value = self.const + sum(c * point[i] for i, c in self.coefs)
        return value == 0 if self.equality else value >= 0


class Polyhedron:
    """A conjunction of integer linear constraints over variables ``0..n-1``
    (and optional parameters ``n..n+p-1``, used for symbolic bounds)."""

    def __init__(self, n: int, n_params: int = 0, max_operations: int = DEFAULT_MAX_OPERATIONS,
                 ctx: isl.Context | None = None):
        self.ctx = ctx or isl.Context()
        self.n = n
        self.n_params = n_params
        self.max_operations = max_operations
        names = [f"x{i}" for i in range(n)]
        params = [f"p{i}" for i in range(n_params)]
        self.space = isl.Space.create_from_names(self.ctx, set=names, params=params)
        self._local = isl.LocalSpace.from_space(self.space)
        self.bset = isl.BasicSet.universe(self.space)
        #: integer points of ``bset`` that isl found: a question whose constraint one of
        #: them satisfies is satisfiable without asking isl again (PyTorch asks ``u == 0``,
        #: ``u != 0``, ``u == 1``, ``u < 2`` of each size; most have a known point)
        self._witnesses: list[tuple[int, ...] | isl.Point] = []
        #: bounds of single variables among the constraints (dim -> [lo, hi], None where
        #: open): a constraint outside this box is unsatisfiable without asking isl
        self._box: dict[int, list] = {}
        #: questions asked, questions the witnesses did not answer (the last one counted),
        #: and whether the probes were run
        self._questions = self._misses = self._missed_at = 0
        self._probed = False

    def _dim(self, i: int) -> tuple[isl.dim_type, int]:
        return (_SET, i) if i < self.n else (_PARAM, i - self.n)

    def _constraint(self, c: LinearConstraint) -> isl.Constraint:
        con = (isl.Constraint.equality_alloc if c.equality else isl.Constraint.inequality_alloc)(self._local)
        for i, v in c.coefs:
            dt, pos = self._dim(i)
            con = con.set_coefficient_val(dt, pos, _val(self.ctx, v))
        return con.set_constant_val(_val(self.ctx, c.const))

    def add(self, c: LinearConstraint) -> None:
        self.bset = self.bset.add_constraint(self._constraint(c))
        self._witnesses.clear()
        self._misses, self._probed = 0, False
        if len(c.coefs) == 1:
            self._bound(c)

    def _bound(self, c: LinearConstraint) -> None:
        """``v*x + k >= 0`` (or ``== 0``) as bounds of ``x``, rounded to integers."""
        (i, v), k = c.coefs[0], c.const
        box = self._box.setdefault(i, [None, None])
        if v > 0 or c.equality:  # x >= ceil(-k / v)
            lo = -(k // v) if v > 0 else -(-k // -v)
            box[0] = lo if box[0] is None else max(box[0], lo)
        if v < 0 or c.equality:  # x <= floor(k / -v)
            hi = k // -v if v < 0 else -k // v
            box[1] = hi if box[1] is None else min(box[1], hi)

    def _outside_box(self, c: LinearConstraint) -> bool:
        """Whether no point of the variables' bounds satisfies ``c`` (an over-approximation
        of the polyhedron, so ``c`` is then unsatisfiable on it)."""
        low = high = c.const
        for i, v in c.coefs:
            lo, hi = self._box.get(i, (None, None))
            top, bottom = (hi, lo) if v > 0 else (lo, hi)
            high = None if high is None or top is None else high + v * top
            low = None if low is None or bottom is None else low + v * bottom
        if c.equality:
            return (high is not None and high < 0) or (low is not None and low > 0)
        return high is not None and high < 0

    def add_all(self, cs: Iterable[LinearConstraint]) -> None:
        for c in cs:
            self.add(c)

    def _guarded(self, call):
        self.ctx.set_max_operations(self.max_operations)
        self.ctx.reset_operations()
        try:
            return call()
        except (isl.Error, Unreadable):
            return None
        finally:
            self.ctx.set_max_operations(0)

    def is_empty(self) -> bool | None:
        return self._guarded(self.bset.is_empty)

    def entails(self, c: LinearConstraint, same_question: bool = False) -> bool | None:
        """True if every integer point satisfies ``c``; None when isl ran out of budget.
        ``same_question``: part of the caller's previous question (see :meth:`_satisfiable`)."""
        self._questions += 0 if same_question else 1
        for neg in c.negated():
            possible = self._satisfiable(neg)
            if possible is None:
                return None
            if possible:
                return False
        return True

    def satisfiable_with(self, c: LinearConstraint, same_question: bool = False) -> bool | None:
        """Whether some integer point also satisfies ``c``; None when isl ran out of budget.
        A kept witness that satisfies ``c`` answers without isl; otherwise isl's sample
        point (as costly as its emptiness test) answers and is kept. ``same_question``: part
        of the caller's previous question (see :meth:`_satisfiable`)."""
        self._questions += 0 if same_question else 1
        return self._satisfiable(c)

    def _satisfiable(self, c: LinearConstraint) -> bool | None:
        """:meth:`satisfiable_with` within the current question: its misses count once. A
        guard's entailment asks isl of each side of an equality and then, when it is not
        entailed, whether it can hold; counted as misses, every polyhedron of the corpus
        (asked one question each) paid for the probes: two more sample points."""
        if self.n_params == 0 and any(c.holds_at(p) for p in self._witness_coordinates()):
            return True
        if self._outside_box(c):
            return False
        if self.n_params == 0:
            if self._missed_at != self._questions:
                self._misses, self._missed_at = self._misses + 1, self._questions
            if self._misses >= PROBE_AFTER_MISSES and not self._probed and self._probe() and \
                    any(c.holds_at(p) for p in self._witness_coordinates()):
                return True
        point = self._guarded(lambda: self.bset.add_constraint(self._constraint(c)).sample_point())
        if point is None:
            return None
        if point.is_void():
            return False
        if self.n_params == 0:
            self._keep(point)
        return True

    def _probe(self) -> bool:
        """Keep isl's points with every bounded-below variable at least 1 and at least 2
        above its lower bound, where there are such points; whether any was kept. A
        polyhedron asked many questions is usually asked the same few of each variable
        (PyTorch: ``u == 0``, ``u == 1``, ``u < 2`` of each size): the first points isl finds
        sit on the lower bounds, these two answer the rest for every variable at once."""
        self._probed = True
        lows = [(i, lo) for i, (lo, _) in self._box.items() if lo is not None and i < self.n]
        kept = False
        for offset in PROBE_OFFSETS if lows else ():
            bset = self.bset
            for i, lo in lows:
                bset = bset.add_constraint(self._constraint(LinearConstraint(((i, 1),), -(lo + offset))))
            point = self._guarded(bset.sample_point)
            if point is not None and not point.is_void():
                self._keep(point)
                kept = True
        return kept

    def _keep(self, point: isl.Point) -> None:
        """Kept as isl's point: most polyhedra answer one question, and reading a point's
        coordinates costs a call per dimension (:meth:`_witness_coordinates` does it once)."""
        if len(self._witnesses) >= MAX_WITNESSES:
            self._witnesses.pop(0)
        self._witnesses.append(point)

    def _witness_coordinates(self) -> list[tuple[int, ...]]:
        if any(isinstance(p, isl.Point) for p in self._witnesses):
            read = (self._coordinates(p) if isinstance(p, isl.Point) else p for p in self._witnesses)
            self._witnesses = [p for p in read if p is not None]
        return self._witnesses

    def _coordinates(self, p: isl.Point) -> tuple[int, ...] | None:
        """A point's coordinates; None for one that islpy cannot hand over: isl's sample of
        an unbounded set can have a coordinate of tens of thousands of digits, past Python's
        limit on reading an int from a string (islpy converts through one)."""
        try:
            return tuple(_int(p.get_coordinate_val(_SET, i)) for i in range(self.n))
        except Unreadable:
            return None

    def parametric_maximum(self, coefs: Sequence[tuple[int, int]], const: int):
        """The maximum of ``sum coefs + const`` over the variables, as pieces
        ``(condition_constraints, param_coefs, const, denominator)`` over the parameters;
        None when unbounded or out of budget."""

        def compute():
            aff = isl.Aff.zero_on_domain(self._local)
            for i, v in coefs:
                dt, pos = self._dim(i)
                dt = isl.dim_type.in_ if dt == _SET else dt
                aff = aff.set_coefficient_val(dt, pos, _val(self.ctx, v))
            aff = aff.set_constant_val(_val(self.ctx, const))
            # max over x of aff(x, p): add y = aff as a fresh dimension and project the others out
            target = isl.Set.from_basic_set(self.bset)
            graph = isl.Map.from_aff(aff).intersect_domain(target).range()
            return graph.dim_max(0)

        pw = self._guarded(compute)
        if pw is None:
            return None
        pieces = []
        pw.foreach_piece(lambda dom, aff: pieces.append((dom, aff)))
        try:
            return [self._piece(dom, aff) for dom, aff in pieces]
        except (_NotANumber, Unreadable):
            return None

    def _piece(self, dom, aff):
        if aff.is_nan():
            raise _NotANumber
        den = _int(aff.get_denominator_val())
        pcoefs = {j: _int(aff.get_coefficient_val(_PARAM, j).mul(_val(self.ctx, den))) for j in range(self.n_params)}
        return dom, pcoefs, _int(aff.get_constant_val().mul(_val(self.ctx, den))), den

    def gist(self, cs: Iterable[LinearConstraint]) -> list[LinearConstraint] | None:
        """The constraints still needed of ``cs`` where this polyhedron holds (isl gist):
        ``gist ∩ self = cs ∩ self``. An empty list: ``cs`` is entailed. None when isl
        ran out of budget or the answer needs local (existential) variables."""

        def compute():
            guard = isl.BasicSet.universe(self.space)
            for c in cs:
                guard = guard.add_constraint(self._constraint(c))
            g = guard.gist(self.bset)
            if g.dim(isl.dim_type.div):
                return None
            out = []
            for con in g.get_constraints():
                coefs = tuple((i, v) for i in range(self.n + self.n_params)
                              if (v := _int(con.get_coefficient_val(*self._dim(i)))) != 0)
                out.append(LinearConstraint(coefs, _int(con.get_constant_val()), con.is_equality()))
            return out

        return self._guarded(compute)


class Unreadable(Exception):
    """An isl integer islpy cannot hand over: it converts through a string, and Python refuses
    to read an int of more than ``sys.get_int_max_str_digits()`` digits (isl's sample of an
    unbounded set can have tens of thousands). Read as isl running out of budget."""


class _NotANumber(Exception):
    """A piece of a parametric maximum that is NaN (unbounded)."""


def _int(v: isl.Val) -> int:
    try:
        return v.to_python()
    except ValueError as e:
        raise Unreadable(str(e)[:80]) from None


def _val(ctx: isl.Context, v: int) -> isl.Val:
    """An isl integer of any size, built arithmetically (no string parsing) and without
    recursion: a numeral of thousands of digits (the reader accepts them) is Horner's rule
    over base-2**62 digits."""
    if -(2**62) < v < 2**62:
        return isl.Val.int_from_si(ctx, v)
    digits = []
    rest = abs(v)
    while rest:
        rest, low = divmod(rest, 2**62)
        digits.append(low)
    base = isl.Val.int_from_si(ctx, 2**31).mul(isl.Val.int_from_si(ctx, 2**31))
    out = isl.Val.int_from_si(ctx, 0)
    for d in reversed(digits):
        out = out.mul(base).add(isl.Val.int_from_si(ctx, d))
    return out.neg() if v < 0 else out
