"""The inputs that pass every assert, described: constants, equalities, ranges, relations.

Soundness here means *equivalence*: the description holds exactly where the conjunction
of the asserts holds. It is built from the asserts themselves, so equivalence holds by
construction:

1. forward: each conjunct of each assert, in order, is dropped when absint proves it
   implied by what was kept so far (``Reasoner.decide`` is TRUE only when sound), else
   kept in the reasoner's normal form under the kept facts (equivalent under them);
2. the kept constraints are sorted into specialised constants, equalities binding a
   symbol, per-symbol bounds (merged; an excluded end value shaves the range), residue
   sets (:mod:`absint.inputs.residues`, only where exact) and the remaining relations;
3. backward: a constraint the others imply (proved on a fresh reasoner over its
   neighbourhood: any subset of the others is a sound premise) is dropped.

No step approximates, so ``exact`` is true; it is there for a future step that must.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Iterable, Sequence

import attrs

from absint.inputs.residues import divisors, residue_set, residue_term
from absint.lang import terms as T
from absint.lang.kinds import AND, CONST, EQ, LE, LIN, LT, NE, VAR, Kind
from absint.lang.program import Program
from absint.lang.printer import symbol as smt_symbol, to_smtlib
from absint.lang.terms import INT, Term
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Truth

#: how many other constraints a redundancy check may assume (its neighbourhood, nearest first)
MAX_PREMISES = 32
#: whether the forward and backward passes use isl (layer 2): without it the corpus is
#: described in about 4/5 of the CPU time, for about 0.5% more constraints (a constraint
#: only isl proves implied is kept; never a wrong one dropped)
RELATIONAL = False


@attrs.frozen(slots=True)
class SymbolRange:
    """``lo <= symbol <= hi`` (None: unbounded on that side) and ``symbol mod modulus`` in
    ``residues`` (modulus 1, residues (0,): no congruence)."""

    symbol: str
    lo: int | None
    hi: int | None
    modulus: int = 1
    residues: tuple[int, ...] = (0,)

    def to_json(self) -> dict:
        return {"symbol": self.symbol, "lo": self.lo, "hi": self.hi, "modulus": self.modulus,
                "residues": list(self.residues)}


@attrs.frozen(slots=True)
class Item:
    """One constraint of a description: ``kind`` is specialized, equality, lo, hi, residues
    or relation; ``symbol`` the variable it is about (None for a relation); ``term`` the
    constraint itself; ``value`` the constant, right-hand side, bound or (modulus, residues);
    ``origin`` where it was kept (for a symbol's range, its last constraint's position)."""

    kind: str
    symbol: Term | None
    term: Term
    value: object = None
    origin: int = 0  # the position (in the forward order) of the last constraint it comes from


@attrs.frozen(slots=True)
class ValidInputs:
    """The description of a program's valid inputs (see the module docstring).

    ``contradiction``: the index (from 0) of the assert after which no input passes, or
    None; then the description is the one constraint ``false``."""

    asserts: int
    items: tuple[Item, ...]
    symbols: tuple[Term, ...] = ()
    contradiction: int | None = None
    exact: bool = True
    reason: str | None = None

    @property
    def specialized(self) -> dict[str, object]:
        return {i.symbol.data: i.value for i in self.items if i.kind == "specialized"}

    @property
    def equalities(self) -> list[tuple[str, Term]]:
        return [(i.symbol.data, i.value) for i in self.items if i.kind == "equality"]

    @property
    def ranges(self) -> list[SymbolRange]:
        return ranges_of(self.items)

    @property
    def relations(self) -> list[Term]:
        return [i.term for i in self.items if i.kind == "relation"]

    def constraints(self) -> list[Term]:
        """Every constraint as a term; their conjunction is equivalent to the asserts'."""
        if self.contradiction is not None:
            return [T.FALSE]
        return [i.term for i in self.items]

    @property
    def size(self) -> int:
        """Constraints counted as stated: a constant, an equality, a range (with its
        residues) or a relation is one each."""
        return (len(self.specialized) + len(self.equalities) + len(self.ranges)
                + len(self.relations)) if self.contradiction is None else 1

    def smtlib(self) -> list[str]:
        if self.contradiction is not None:
            return ["false"]
        return [smtlib_of(i) for i in self.items]

    def to_json(self) -> dict:
        return {"asserts": self.asserts, "contradiction": self.contradiction,
                "specialized": self.specialized,
                "equalities": [[n, to_smtlib(e)] for n, e in self.equalities],
                "ranges": [r.to_json() for r in self.ranges],
                "relations": [readable_smtlib(t) for t in self.relations],
                "smtlib": self.smtlib(), "exact": self.exact, "reason": self.reason}


def smtlib_of(item: Item) -> str:
    """An item as SMT-LIB as a person would write it: ``(<= 2 s0)``, ``(= y (* 2 x))``,
    ``(<= u0 u1)`` (the canonical term reads ``(<= (+ u0 (* (- 1) u1)) 0)``)."""
    if item.kind in ("equality", "specialized"):
        rhs = item.value if item.kind == "equality" else T.const(item.value)
        return f"(= {smt_symbol(item.symbol.data)} {to_smtlib(rhs)})"
    if item.kind == "lo":
        return f"(<= {to_smtlib(T.const(item.value))} {smt_symbol(item.symbol.data)})"
    if item.kind == "hi":
        return f"(<= {smt_symbol(item.symbol.data)} {to_smtlib(T.const(item.value))})"
    if item.kind == "residues":
        m, rs = item.value
        xm = f"(mod {smt_symbol(item.symbol.data)} {m})"
        eqs = [f"(= {xm} {r})" for r in rs]
        return eqs[0] if len(eqs) == 1 else f"(or {' '.join(eqs)})"
    return readable_smtlib(item.term)


def readable_smtlib(c: Term) -> str:
    """A comparison ``P - N + k <op> 0`` as ``(op P' N')`` with positive coefficients on
    both sides and the constant on the side where it is positive; others as they are."""
    if c.kind not in (LE, LT, EQ, NE) or c.args[0].kind not in (LIN, VAR):
        return to_smtlib(c)
    coefs, k = T.linear_parts(c.args[0])
    sort = c.args[0].sort
    left = T.make_linear(sort, {a: v for a, v in coefs.items() if v > 0}, k if k > 0 else 0)
    right = T.make_linear(sort, {a: -v for a, v in coefs.items() if v < 0}, -k if k < 0 else 0)
    if c.kind == NE:
        return f"(not (= {to_smtlib(left)} {to_smtlib(right)}))"
    op = {LE: "<=", LT: "<", EQ: "="}[c.kind]
    return f"({op} {to_smtlib(left)} {to_smtlib(right)})"


def ranges_of(items: Iterable[Item]) -> list[SymbolRange]:
    """Bounds and residue sets gathered per symbol, in the order symbols first appear."""
    found: dict[Term, dict] = {}
    for i in items:
        if i.kind in ("lo", "hi", "residues"):
            found.setdefault(i.symbol, {})[i.kind] = i.value
    out = []
    for x, parts in found.items():
        m, rs = parts.get("residues", (1, (0,)))
        out.append(SymbolRange(x.data, parts.get("lo"), parts.get("hi"), m, tuple(rs)))
    return out


# ------------------------------------------------------------------ the three steps


def describe(facts: Sequence[Term], symbols: Sequence[Term], backed: Iterable[Term] = ()) -> ValidInputs:
    """The description of the inputs satisfying every fact (in order); ``symbols`` in
    declaration order (later ones are the ones an equality binds), ``backed`` the inputs
    with example values (the reasoner eliminates them first, as ``analyze`` does)."""
    backed = list(backed)
    kept, contradiction = forward(facts, backed)
    if contradiction is not None:
        return ValidInputs(len(facts), (), tuple(symbols), contradiction)
    done = substituted(kept)
    items = None if done is None else sort_constraints(done[0], {x: k for k, x in enumerate(symbols)}, done[1])
    if items is None:  # the bounds of a symbol cross: no input passes
        return ValidInputs(len(facts), (), tuple(symbols), max(len(facts) - 1, 0))
    return ValidInputs(len(facts), tuple(drop_redundant(items, backed)), tuple(symbols))


def describe_program(program: Program, assumed: Sequence[Term] = ()) -> ValidInputs:
    """:func:`describe` of a program's asserts over its symbols; ``assumed`` (a preset's
    facts) ahead of them: the inputs that pass those *and* the asserts. ``asserts`` and
    ``contradiction`` still count the program's asserts only."""
    assumed = list(assumed)
    d = describe(assumed + [f.term for f in program.facts], [s.term for s in program.symbols],
                 [s.term for s in program.symbols if s.backed])
    if not assumed:
        return d
    # a contradiction among the assumed facts alone (over unbacked symbols) is reported
    # at the first assert
    c = None if d.contradiction is None else max(d.contradiction - len(assumed), 0)
    return attrs.evolve(d, asserts=len(program.facts), contradiction=c)


def forward(facts: Sequence[Term], backed: list[Term]) -> tuple[list[Term], int | None]:
    """The conjuncts absint does not prove implied by those kept before them, each in
    normal form; or the index of the fact that makes the facts contradictory."""
    r = Reasoner(backed=backed, relational=RELATIONAL)
    kept: list[Term] = []
    definitions, first_use = T.definitions_in(facts)
    for index, fact in enumerate(facts):
        if index == first_use:
            r.register(definitions)
        for c in conjuncts(fact):
            v = r.decide(c).truth
            if v is Truth.FALSE:
                return kept, index
            if v is not Truth.TRUE:
                kept.append(normalised(r, c))
            r.assume(c)  # an implied one too: its keys, narrowed, answer later guards quickly
            if r.contradiction:
                return kept, index
    return kept, None


def conjuncts(t: Term) -> list[Term]:
    out, stack = [], [t]
    while stack:
        s = stack.pop()
        if s.kind == AND:
            stack.extend(reversed(s.args))
        elif s is not T.TRUE:
            out.append(s)
    return out


def normalised(r: Reasoner, c: Term) -> Term:
    """``c`` in the reasoner's normal form (equivalent under the facts so far) when that
    mentions no more symbols (a binding of ``x = 3`` folds, one of ``s0 = u0 + u1``
    would widen it), else ``c`` itself."""
    n = r.normalize(c)
    if n.kind == CONST or len(T.free_vars(n)) > len(T.free_vars(c)):
        return c
    return n


# ------------------------------------------------------------------ sorting the constraints


def substituted(kept: list[Term], rounds: int = 4) -> tuple[list[Term], set[Term]] | None:
    """``kept`` with each symbol a constraint fixes (``a = 3``) replaced by its value in
    the other constraints (equivalent: the fixing constraint stays), a few rounds, as
    ``b = 2*a + 1`` becomes ``b = 7``; constraints that fold to true are dropped, and
    None if one folds to false. The changed constraints come back in the set (*fresh*):
    the forward pass never decided them in this form, so the backward pass checks them."""
    fresh: set[Term] = set()
    for _ in range(rounds):
        fixed = {}
        for c in kept:
            sv = single_variable(c)
            if sv is not None and c.kind == EQ and Fraction(-sv[2], sv[1]).denominator == 1:
                fixed.setdefault(sv[0], T.const(-sv[2] // sv[1]))
        out = []
        for c in kept:
            n = c if (single_variable(c) or (None,))[0] in fixed else substitute(c, fixed)
            if n is T.FALSE:
                return None
            if n is not T.TRUE:
                out.append(n)
            if n is not c:
                fresh.add(n)
        if out == kept:
            break
        kept = out
    return kept, fresh


def substitute(t: Term, values: dict[Term, Term]) -> Term:
    """``t`` with each variable in ``values`` replaced, rebuilt in canonical form."""
    if not values or not any(v in values for v in T.free_vars(t)):
        return t
    return T.replaced(t, values)



def single_variable(c: Term) -> tuple[Term, int, int] | None:
    """``(x, a, b)`` when ``c`` compares ``a*x + b`` with 0 for one Int variable ``x``."""
    if c.kind not in (LE, EQ, NE):
        return None
    t = c.args[0]
    if t.sort is not INT:
        return None
    if t.kind == VAR:
        return t, 1, 0
    if t.kind == LIN and len(t.args) == 1 and t.args[0].kind == VAR:
        (a,), b = t.data
        return t.args[0], a, b
    return None


def solved(c: Term, order: dict[Term, int]) -> tuple[Term, Term] | None:
    """``(x, rhs)`` with ``c`` equivalent to ``x = rhs``: an Int ``eq`` with a unit
    coefficient on a variable occurring nowhere else in it; the latest declared first."""
    t = c.args[0]
    if c.kind != EQ or t.kind != LIN or t.sort is not INT:
        return None
    coefs, b = t.data
    nonlinear = [a for a in t.args if a.kind != VAR]
    candidates = [(order.get(a, -1), k) for k, a in enumerate(t.args)
                  if a.kind == VAR and coefs[k] in (1, -1)
                  and not any(a in T.free_vars(n) for n in nonlinear)]
    if not candidates:
        return None
    _, k = max(candidates)
    x, v = t.args[k], coefs[k]
    rest = {a: -w * v for a, w in zip(t.args, coefs) if a is not x}
    return x, T.make_linear(INT, rest, -b * v)


def sort_constraints(kept: list[Term], order: dict[Term, int], fresh: set[Term] = frozenset()) -> list[Item] | None:
    """Items of a description equivalent to the conjunction of ``kept``; None if the
    bounds of one symbol leave it no value. An item's origin is its constraint's position
    in ``kept`` (a range's: its last constraint's), -1 if one is in ``fresh``."""
    bounds: dict[Term, list] = {}
    own: dict[Term, list[tuple[Term, int]]] = {}  # other constraints over one Int symbol
    items: list[Item] = []
    last: dict[Term, int] = {}
    for k, c in enumerate(kept):
        if c in fresh:
            k = -1
        sv = single_variable(c)
        if sv is not None:
            x, a, b = sv
            bounds.setdefault(x, [-math.inf, math.inf, set()])
            _narrow(bounds[x], c.kind, a, b)
            last[x] = -1 if min(k, last.get(x, 0)) < 0 else k
            continue
        xs = T.free_vars(c)
        if len(xs) == 1 and xs[0].sort is INT:
            own.setdefault(xs[0], []).append((c, k))
            last[xs[0]] = -1 if min(k, last.get(xs[0], 0)) < 0 else k
            continue
        s = solved(c, order)
        items.append(Item("equality", s[0], c, s[1], k) if s else Item("relation", None, c, None, k))
    ranged = range_items(bounds, own, last)
    return None if ranged is None else ranged + items


def _narrow(box: list, kind: Kind, a: int, b: int) -> None:
    """``a*x + b <kind> 0`` into ``box = [lo, hi, excluded]`` (a != 0)."""
    q = Fraction(-b, a)
    if kind == LE:
        if a > 0:
            box[1] = min(box[1], math.floor(q))
        else:
            box[0] = max(box[0], math.ceil(q))
    elif q.denominator != 1:  # x = 1/2 has no Int solution; x != 1/2 always holds
        if kind == EQ:
            box[0], box[1] = 1, 0
    elif kind == EQ:
        box[0], box[1] = max(box[0], int(q)), min(box[1], int(q))
    else:
        box[2].add(int(q))


def range_items(bounds: dict[Term, list], own: dict[Term, list[tuple[Term, int]]],
                last: dict[Term, int]) -> list[Item] | None:
    """Per symbol: a constant, or its bounds (ends shaved of excluded values, tightened by
    its own constraints that are exactly bounds), the values it excludes inside them,
    and its residue set when that is exact (its other constraints as relations)."""
    out: list[Item] = []
    for x in list(dict.fromkeys([*bounds, *own])):
        lo, hi, excluded = bounds.get(x, [-math.inf, math.inf, set()])
        rest = []
        for c, at in own.get(x, []):
            exact = as_bounds(x, lo, hi, c)
            if exact is None:
                rest.append((c, at))
            else:
                lo, hi = exact
        while lo in excluded:
            lo += 1
        while hi in excluded:
            hi -= 1
        if lo > hi:
            return None
        k = last[x]
        if lo == hi:
            out.append(Item("specialized", x, T.eq(x, T.const(lo)), lo, k))
            continue
        if lo != -math.inf:
            out.append(Item("lo", x, T.ge(x, T.const(lo)), lo, k))
        if hi != math.inf:
            out.append(Item("hi", x, T.le(x, T.const(hi)), hi, k))
        out += [Item("relation", None, T.ne(x, T.const(v)), None, k) for v in sorted(excluded) if lo < v < hi]
        out += _residue_items(x, lo, hi, [(c, at) for c, at in rest if divisors(c)], k)
        out += [Item("relation", None, c, None, at) for c, at in rest if not divisors(c)]
    return out


def as_bounds(x: Term, lo, hi, c: Term) -> tuple[object, object] | None:
    """``(lo', hi')`` when, for ``lo <= x <= hi``, ``c`` holds exactly on ``[lo', hi']``
    (``32 <= (x + 1) div 2`` is ``x >= 63``): the bounds absint derives from ``c`` are
    sound, and if ``c`` is proved throughout them it holds exactly there."""
    q = _ranged(x, lo, hi)
    q.assume(c)
    if q.contradiction:
        return None
    lo2, hi2 = max(lo, q.bounds(x)[0]), min(hi, q.bounds(x)[1])
    check = _ranged(x, lo2, hi2)
    if check.contradiction or check.decide(c).truth is not Truth.TRUE:
        return None
    return lo2, hi2


def _ranged(x: Term, lo, hi) -> Reasoner:
    q = Reasoner()
    if lo != -math.inf:
        q.assume(T.ge(x, T.const(lo)))
    if hi != math.inf:
        q.assume(T.le(x, T.const(hi)))
    return q


def _residue_items(x: Term, lo, hi, constraints: list[tuple[Term, int]], origin: int) -> list[Item]:
    """The largest group of ``constraints`` (taken greedily, in order) that is exactly a
    residue set of ``x``, as one item; the others as relations."""
    group: list[Term] = []
    found: tuple[int, tuple[int, ...]] | None = None
    rest: list[Item] = []
    for c, at in constraints:
        trial = residue_set(x, lo, hi, group + [c])
        if trial is None:
            rest.append(Item("relation", None, c, None, at))
        else:
            group.append(c)
            found = trial
    if found is None or found[0] == 1:  # none, or they hold throughout the range
        return rest
    m, rs = found
    return [Item("residues", x, residue_term(x, m, rs), (m, rs), origin)] + rest


# ------------------------------------------------------------------ redundancy

#: which constraints go first when one of two implies the other: keep the simplest
_DROP_ORDER = {"relation": 0, "residues": 1, "equality": 2, "lo": 3, "hi": 3, "specialized": 4}


#: kinds that are one kept constraint as the forward pass asked about it (a range, a
#: constant or a residue set merges several, which the forward pass never asked about)
_RELATIONS = ("relation", "equality")


def drop_redundant(items: list[Item], backed: list[Term]) -> list[Item]:
    """``items`` without those the others imply; each check on a fresh reasoner over the
    item's neighbourhood (at most :data:`MAX_PREMISES` others sharing symbols with it,
    nearest first): a subset of the others is a sound premise. An item is checked only if
    some premise was kept after it (or was rewritten since): against the ones before it,
    the forward pass already asked (not for a merged range, constant or residue set)."""
    alive = {id(i): i for i in items}
    place = {id(i): k for k, i in enumerate(items)}
    by_var: dict[Term, list[Item]] = {}
    for i in items:
        for v in T.free_vars(i.term):
            by_var.setdefault(v, []).append(i)
    for item in sorted(items, key=lambda i: _DROP_ORDER[i.kind]):
        premises = neighbourhood(item, by_var, alive)
        if item.kind in _RELATIONS and not any(p.origin > item.origin or p.origin < 0 for p in premises):
            continue  # all kept before it: the forward pass found it not implied by them
        r = Reasoner(backed=backed, relational=RELATIONAL)
        for p in sorted(premises, key=lambda p: place[id(p)]):  # bounds before relations
            r.assume(p.term)
        if r.decide(item.term).truth is Truth.TRUE:
            del alive[id(item)]
    return [i for i in items if id(i) in alive]


def neighbourhood(item: Item, by_var: dict[Term, list[Item]], alive: dict[int, Item]) -> list[Item]:
    """The live items sharing a symbol with ``item``, then with those, breadth first."""
    seen_vars: set[Term] = set()
    seen = {id(item)}
    frontier = list(T.free_vars(item.term))
    out: list[Item] = []
    while frontier and len(out) < MAX_PREMISES:
        nxt: list[Term] = []
        for v in frontier:
            if v in seen_vars:
                continue
            seen_vars.add(v)
            for other in by_var.get(v, ()):
                if id(other) in seen or id(other) not in alive:
                    continue
                seen.add(id(other))
                out.append(other)
                nxt.extend(T.free_vars(other.term))
        frontier = nxt
    return out[:MAX_PREMISES]
