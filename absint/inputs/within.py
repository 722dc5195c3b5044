"""``--within``: the asserts that can fail for an input inside declared ranges.

For assert ``i``, an input *makes it fail* when it lies inside the declaration, passes
asserts ``0..i-1`` and violates assert ``i``: an input that fails the asserts first at
``i``. So every concrete point is a counterexample to exactly one assert, its first
failing one, and one pool of candidate points serves all asserts: the example point
moved into the ranges, each declared symbol moved alone to its range ends, its hint's
neighbours and the middle, small domains exhaustively, and seeded random points.

The declaration: each named symbol in its range; a backed symbol it does not name keeps
its example value, unless an assert *defines* it (the first ``x = rhs`` for it, ``rhs``
not constant: ``x_stride0 = x_size1 * x_size2``), then it is that definition, recomputed
at every point (so a defining assert never fails); unbacked symbols are free.

An assert the pool leaves open is searched for on its own: the declaration and asserts
``0..i-1`` with the assert's negation, searched by :mod:`absint.search.engine` (from the
example point outwards, then labellings and draws, which move unbacked symbols too: ``u0 >=
0`` on a length nothing bounds fails at ``u0 = -1``), within :data:`SEARCH_SECONDS` of CPU
per file. A negation absint refutes proves the assert.

Every counterexample reported is checked by the evaluator (inside the ranges, asserts
``0..i-1`` hold, assert ``i`` is false). An assert absint proves implied by the declaration
and the asserts before it is silent; one neither proved nor refuted by a checked point is
*undecided*, never a violation, and says why (the search found no point, its budget was
spent, a symbol it cannot draw).
"""

from __future__ import annotations

import itertools
import math
import random
import re
import time
from typing import Iterable, Mapping, Sequence

import attrs

from absint.inputs.description import solved
from absint.lang import terms as T
from absint.lang.evaluator import NotEvaluable, evaluate, truth_at
from absint.lang.kinds import CONST, EQ
from absint.lang.printer import brief, brief_infix
from absint.lang.program import Program
from absint.lang.terms import INT, Term
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Truth
from absint.search import engine

#: random points in the pool (deterministic: seeded)
RANDOM_POINTS = 200
#: a declaration with at most this many points is enumerated whole
EXHAUSTIVE = 4096
#: rounds of recomputing the symbols that asserts define
DEFINITION_ROUNDS = 4
#: points the search engine checks for one assert the pool left open, and its CPU seconds
SEARCH_POINTS = 200
SEARCH_SECONDS_EACH = 1.0
#: CPU seconds per file for those searches (the asserts after it stay undecided, saying so)
SEARCH_SECONDS = 5.0

_RANGE = re.compile(r"\s*([^=,\s]+)\s*=\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*")


class BadDeclaration(ValueError):
    """A ``--within`` text that does not parse, or names a symbol the program lacks."""


@attrs.frozen(slots=True)
class Violation:
    """Assert ``index`` (from 0) can fail: ``counterexample`` is a checked input (every
    symbol's value), or None when the assert is undecided."""

    index: int
    position: str | None
    guard: str
    counterexample: dict[str, int] | None
    shown: tuple[str, ...] = ()
    text: str = ""  # the guard in infix, as a reader writes it
    reason: str | None = None  # why an undecided assert is undecided

    def to_json(self) -> dict:
        out = {"index": self.index, "position": self.position, "guard": self.guard, "text": self.text,
               "counterexample": self.counterexample}
        if self.counterexample is None:
            out["reason"] = self.reason
        return out

    def message(self) -> str:
        where = self.position or f"assert {self.index}"
        if self.counterexample is None:
            return f"{where}: guard {self.text} may fail (undecided: {self.reason})"
        values = ", ".join(f"{n}={self.counterexample[n]}" for n in self.shown)
        return f"{where}: guard {self.text} can fail: {values}"


def parse_ranges(text: str) -> dict[str, tuple[int, int]]:
    """``'x=1..64,y=32..512'`` as ``{'x': (1, 64), 'y': (32, 512)}``."""
    out: dict[str, tuple[int, int]] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        m = _RANGE.fullmatch(part)
        if m is None:
            raise BadDeclaration(f"cannot read range {part.strip()!r} (expected NAME=LO..HI)")
        name, lo, hi = m.group(1), int(m.group(2)), int(m.group(3))
        if lo > hi:
            raise BadDeclaration(f"empty range {name}={lo}..{hi}")
        out[name] = (lo, hi)
    if not out:
        raise BadDeclaration("no ranges given")
    return out


def check_names(program: Program, declared: Mapping[str, tuple[int, int]]) -> None:
    known = {s.name: s for s in program.symbols}
    missing = [n for n in declared if n not in known]
    if missing:
        raise BadDeclaration(f"no symbol named {', '.join(missing)}")
    real = [n for n in declared if known[n].sort is not INT]
    if real:
        raise BadDeclaration(f"{', '.join(real)} is not an Int symbol")


def violations(program: Program, declared: Mapping[str, tuple[int, int]], seed: int = 0,
               assumed: Sequence[Term] = (), followers: Sequence[tuple[str, Term]] = ()
               ) -> tuple[list[Violation], list[Violation]]:
    """(violations, undecided) of ``program``'s asserts within ``declared``; ``assumed``:
    facts (a preset's) that every input considered satisfies, ahead of the asserts (a
    counterexample satisfies them too; indices stay the program's asserts'); ``followers``:
    ``(symbol, value)`` for the symbols those facts determine from others (a stride from its
    tensor's sizes), recomputed at every point unless declared or defined by an assert."""
    check_names(program, declared)
    facts = [f.term for f in program.facts]
    definitions = defining_equalities(program, declared, facts)
    defined = {n for n, _ in definitions.values()}
    follow = tuple((n, v) for n, v in followers if n not in declared and n not in defined)
    first_failure = pool_failures(program, declared, facts, definitions, seed, assumed, follow)
    r = declaration(program, declared, definitions, follow)
    for t in assumed:
        r.assume(t)
    found: list[Violation] = []
    undecided: list[Violation] = []
    search = FailureSearch(program, declared, facts, definitions, assumed, seed, follow)
    for fact in program.facts:
        point = first_failure.get(fact.index)
        if point is None and fact.index not in definitions and r.decide(fact.term).truth is not Truth.TRUE:
            point, reason = search.failure(r, fact.index)
            if point is None and reason is not None:
                undecided.append(_violation(fact, None, reason))
        if point is not None:
            found.append(_violation(fact, point))
        r.assume(fact.term)
        if r.contradiction:  # no input inside the declaration passes asserts 0..i
            break
    return found, undecided


class FailureSearch:
    """Points that make one assert fail first, drawn from the declaration, the asserts
    before it and its negation; every point checked by the evaluator as the pool's are."""

    def __init__(self, program: Program, declared, facts: list[Term], definitions, assumed, seed: int,
                 follow: Sequence[tuple[str, Term]] = ()):
        self.program, self.declared, self.facts = program, declared, facts
        self.definitions, self.assumed, self.seed, self.follow = definitions, assumed, seed, follow
        self.variables = [s.term for s in program.symbols]
        self.hints = program.hints()
        self.fixed = fixed_symbols(program, declared, definitions, follow)
        self.spent = 0.0

    def failure(self, r: Reasoner, index: int) -> tuple[dict[str, int] | None, str | None]:
        """``(point, None)``; ``(None, None)`` when the negation is refuted (the assert holds
        throughout); else ``(None, reason)``."""
        if self.spent >= SEARCH_SECONDS:
            return None, f"the search's {SEARCH_SECONDS:g} s for this file were spent"
        start = time.process_time()
        try:
            return self._search(r, index)
        finally:
            self.spent += time.process_time() - start

    def _search(self, r: Reasoner, index: int) -> tuple[dict[str, int] | None, str | None]:
        with r.tentatively():
            r.assume(T.not_(self.facts[index]))
            if r.contradiction:
                return None, None
            query = engine.Query(lambda p: self._fails_first(p, index), tuple(self.variables), self.hints,
                                 engine.names_in(self.facts[index]), seed=self.seed + index)
            found = engine.find_point(r, query, SEARCH_POINTS, min(SEARCH_SECONDS_EACH, SEARCH_SECONDS - self.spent))
        return found.point, None if found.point is not None else found.why

    def _fails_first(self, point: dict[str, int], index: int) -> bool:
        return (inside(point, self.declared) and all(point.get(n) == v for n, v in self.fixed.items())
                and follows(point, self.follow) and all(truth_at(t, point) is True for t in self.assumed)
                and first_failing(self.facts, point) == index)


def declaration(program: Program, declared: Mapping[str, tuple[int, int]],
                definitions: dict[int, tuple[str, Term]], follow: Sequence[tuple[str, Term]] = ()) -> Reasoner:
    """A reasoner that knows the declaration: each declared symbol in its range, each
    other backed symbol at its example value, or equal to its definition (an assert's, or
    the value a preset's facts give it)."""
    r = Reasoner(backed=[s.term for s in program.symbols if s.backed])
    fixed = fixed_symbols(program, declared, definitions, follow)
    terms = {s.name: s.term for s in program.symbols}
    for name, value in follow:
        r.assume(T.eq(terms[name], value))
    for s in program.symbols:
        if s.name in declared:
            lo, hi = declared[s.name]
            r.assume(T.ge(s.term, T.const(lo)))
            r.assume(T.le(s.term, T.const(hi)))
        elif s.name in fixed:
            r.assume(T.eq(s.term, T.const(s.hint, s.sort)))
    for index in definitions:
        r.assume(program.facts[index].term)
    return r


def _violation(fact, point: dict[str, int] | None, reason: str | None = None) -> Violation:
    pos = fact.position
    shown = tuple(sorted(v.data for v in T.free_vars(fact.term)))
    return Violation(fact.index, None if pos is None else str(pos), brief(fact.term), point, shown,
                     brief_infix(fact.term), reason)


# ------------------------------------------------------------------ the pool of points


def pool_failures(program: Program, declared: Mapping[str, tuple[int, int]], facts: list[Term],
                  definitions: dict[int, tuple[str, Term]], seed: int,
                  assumed: Sequence[Term] = (), follow: Sequence[tuple[str, Term]] = ()) -> dict[int, dict[str, int]]:
    """For each assert index, the first pool point whose first failing assert it is
    (checked by the evaluator: every point lies inside the declaration: declared symbols
    in range, other backed ones at their example value or their definition)."""
    base = base_point(program, declared, facts)
    fixed = fixed_symbols(program, declared, definitions, follow)
    out: dict[int, dict[str, int]] = {}
    for moved in candidates(base, program, declared, seed):
        point = complete(moved, [*definitions.values(), *follow])
        if not inside(point, declared) or any(point[n] != v for n, v in fixed.items()) or not follows(point, follow):
            continue
        if not all(truth_at(facts[i], point) for i in definitions):
            continue
        if not all(truth_at(t, point) is True for t in assumed):
            continue
        i = first_failing(facts, point)
        if i is not None and i not in out:
            out[i] = point
    return out


def fixed_symbols(program: Program, declared, definitions: dict[int, tuple[str, Term]],
                  follow: Sequence[tuple[str, Term]] = ()) -> dict[str, object]:
    """The backed symbols the declaration keeps at their example value: neither declared nor
    defined by an assert nor following a preset's facts."""
    defined = {n for n, _ in definitions.values()} | {n for n, _ in follow}
    return {s.name: s.hint for s in program.symbols
            if s.hint is not None and s.name not in declared and s.name not in defined}


def base_point(program: Program, declared: Mapping[str, tuple[int, int]], facts: list[Term]) -> dict[str, int]:
    """The example point, declared symbols clipped into their ranges; an unbacked symbol
    at the value nearest 1 that the asserts allow (absint's bounds after all of them)."""
    point: dict[str, int] = {}
    unbacked = [s for s in program.symbols if s.hint is None and s.sort is INT]
    r = Reasoner() if unbacked else None
    for f in facts if r is not None else ():
        r.assume(f)
    for s in program.symbols:
        if s.name in declared:
            lo, hi = declared[s.name]
            h = s.hint if isinstance(s.hint, int) and not isinstance(s.hint, bool) else lo
            point[s.name] = min(max(h, lo), hi)
        elif s.hint is not None:
            point[s.name] = s.hint
        elif s.sort is INT:
            lo, hi = (-math.inf, math.inf) if r.contradiction else r.bounds(s.term)
            point[s.name] = int(min(max(1, lo), hi))
    return point


def defining_equalities(program: Program, declared, facts: list[Term]) -> dict[int, tuple[str, Term]]:
    """Assert index -> ``(x, rhs)``: the first assert ``x = rhs`` of each backed symbol the
    declaration does not name, ``rhs`` not constant (``x_stride0 = x_size1*x_size2``)."""
    order = {s.term: k for k, s in enumerate(program.symbols)}
    free = {s.name for s in program.symbols if s.hint is not None and s.name not in declared}
    out: dict[int, tuple[str, Term]] = {}
    seen: set[str] = set()
    for i, f in enumerate(facts):
        if f.kind != EQ:
            continue
        s = solved(f, {x: (k if x.data in free else -1 - k) for x, k in order.items()})
        if s is not None and s[0].data in free and s[0].data not in seen and s[1].kind != CONST:
            seen.add(s[0].data)
            out[i] = (s[0].data, s[1])
    return out


def complete(point: dict[str, int], definitions: list[tuple[str, Term]]) -> dict[str, int]:
    """``point`` with the defined symbols recomputed from the others, a few rounds."""
    point = dict(point)
    for _ in range(DEFINITION_ROUNDS):
        changed = False
        for name, rhs in definitions:
            try:
                v = evaluate(rhs, point)
            except NotEvaluable:
                continue
            if isinstance(v, int) and point.get(name) != v:
                point[name] = v
                changed = True
        if not changed:
            break
    return point


def follows(point: Mapping[str, int], follow: Sequence[tuple[str, Term]]) -> bool:
    """Whether each following symbol has its value at ``point`` (by the evaluator)."""
    for name, value in follow:
        try:
            if evaluate(value, point) != point.get(name):
                return False
        except NotEvaluable:
            return False
    return True


def candidates(base: dict[str, int], program: Program, declared: Mapping[str, tuple[int, int]],
               seed: int) -> Iterable[dict[str, int]]:
    """The base point, each declared symbol moved alone, the whole declaration when
    small, then random points."""
    yield base
    values = {n: values_of(n, lo, hi, base[n]) for n, (lo, hi) in declared.items()}
    for n, vs in values.items():
        for v in vs:
            yield {**base, n: v}
    sizes = [hi - lo + 1 for lo, hi in declared.values()]
    if math.prod(sizes) <= EXHAUSTIVE:
        names = list(declared)
        for combo in itertools.product(*(range(lo, hi + 1) for lo, hi in declared.values())):
            yield {**base, **dict(zip(names, combo))}
        return
    rng = random.Random(seed)
    for _ in range(RANDOM_POINTS):
        yield {**base, **{n: rng.choice(vs) if rng.random() < 0.3 else rng.randint(*declared[n])
                          for n, vs in values.items()}}


def values_of(name: str, lo: int, hi: int, at: int) -> list[int]:
    near = [lo, lo + 1, lo + 2, hi, hi - 1, hi - 2, at - 2, at - 1, at + 1, at + 2, (lo + hi) // 2]
    return [v for v in dict.fromkeys(near) if lo <= v <= hi]


def inside(point: Mapping[str, int], declared: Mapping[str, tuple[int, int]]) -> bool:
    return all(lo <= point[n] <= hi for n, (lo, hi) in declared.items())


def first_failing(facts: list[Term], point: Mapping[str, int]) -> int | None:
    """The index of the first assert false at ``point``; None if all hold, or if one
    before the first false has no value there (``x div 0``: we cannot say it passed)."""
    memo: dict = {}
    for i, f in enumerate(facts):
        v = truth_at(f, point, memo)
        if v is None:
            return None
        if not v:
            return i
    return None
