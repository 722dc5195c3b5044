"""Every rewrite row of every phase (:data:`absint.reasoning.rules.ROWS`: the constructors'
CONSTRUCT rows, NAME and SUBSTITUTE, then DECIDE, EXPAND, PRESENT, PRESENT_FIXED and MULTIPLY_OUT), checked the same way, generated from the
table: instances are enumerated from pools of small terms, each row must match some of them
(a row never reached checks nothing), and wherever the row's side conditions hold its result
must equal the original, by brute force over a box and by Z3. A planted wrong row of each
phase is caught by both.

A construct row rewrites ``kind(*operands)`` before the application is a term, so its original
side is computed from the operands' values with :data:`absint.lang.ops.OPS` (the meaning the
evaluator uses) and written in SMT-LIB from the operands' text. Divisors can be zero: where the
original has no value (SMT-LIB's ``x div 0`` is unspecified) brute force skips the point and
Z3, which reads it as an uninterpreted function, is the check. A row's conditions are the
conjunction of its groups, each the disjunction of its terms; results are built with no
normalisation (``again`` is the identity), which keeps the value.

A present-fixed row's match reads a value from a reasoner that has assumed some facts (a
point, a remainder), so its instances come from terms under facts (:data:`UNDER_FACTS`), its
sub-terms shown as written or folded by the exact presentation rows, and each is checked
twice: where its own conditions hold, and where the facts hold (the value it read must be
the one they fix: a misread value is wrong there). simplify's prover must prove every such
match, and refute a misread one.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import attrs
import pytest

from absint.lang import terms as T
from absint.lang.evaluator import NotEvaluable, evaluate
from absint.lang.kinds import DIV, ITE, LE, LIN, MAX, MIN, MOD, NOT, POW, RDIV
from absint.lang.ops import COMPARISON_KINDS, OPS, Undefined
from absint.lang.printer import to_smtlib
from absint.lang.rewriting import Phase, Row, by_kind
from absint.reasoning import rules
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.simplify import fixed_proved
from benchmarks.generators import PRELUDE_TEXT

x, y, m = (T.var(n, T.INT) for n in "xym")
r = T.var("r", T.REAL)
b = T.var("b", T.BOOL)
k = T.const

# ---------------------------------------------------------------- the construct phase's operands

INTS = (x, y, k(0), k(1), k(-1), k(3), k(-4), k(7), T.add(T.scale(x, 6), k(5)), T.sub(x, y), T.add(x, k(2)),
        T.scale(y, 3), T.div(x, y), T.mul(x, y), T.add(T.scale(x, -2), T.scale(y, 4), k(6)), T.scale(x, -1))
REALS = (r, k(Fraction(1, 2), T.REAL), k(Fraction(-5, 2), T.REAL), T.rdiv(T.add(x, k(1)), k(4)),
         T.add(r, k(1)), T.to_real(y), T.add(T.scale(r, -3), k(1)))
NUMBERS = INTS + REALS
CONDITIONS = (T.TRUE, T.FALSE, b, T.le(x, y), T.lt(y, x), T.le(y, x), T.eq(x, k(1)), T.ne(x, y), T.not_(b),
              T.le(r, k(1)), T.lt(r, T.ZERO), T.distinct(*(T.var(f"d{i}", T.INT) for i in range(13))))


def operand_tuples(kind):
    """Operands for ``kind``: pairs and singles of numbers, ite's condition and branches, and
    the prelude's ceiling idiom (``ite(to_real(to_int r) = r, to_int r, to_int r + 1)``)."""
    if kind == ITE:
        floor = T.to_int(r)
        idiom = (T.eq(T.to_real(floor), r), floor, T.add(floor, k(1)))
        branches = NUMBERS[:8] + (T.le(x, k(0)), b)
        return [idiom, *itertools.product(CONDITIONS, branches, branches)]
    if kind == NOT:
        return [(c,) for c in CONDITIONS]
    pool = INTS if kind in (DIV, MOD) else NUMBERS  # div and mod refuse Real operands first
    return list(itertools.product(pool, repeat=OPS[kind].arity[0]))


def _promoted(kind, operands):
    """The operands as the constructor hands them to its rows (a mixed pair made Real)."""
    if kind in (MIN, MAX, RDIV) or (kind == ITE and all(a.sort is not T.BOOL for a in operands[1:])):
        head = operands[:1] if kind == ITE else ()
        rest = operands[1:] if kind == ITE else operands
        if any(a.sort is T.REAL for a in rest) or kind == RDIV:
            rest = tuple(T.to_real(a) for a in rest)
        return head + tuple(rest)
    return operands


# ---------------------------------------------------------------- the other phases' terms

ATOMS = (x, y, m, k(1), k(2), k(3), k(-1), T.add(x, k(1)), T.sub(m, k(1)), T.scale(y, 2))
PRODUCTS = (T.mul(x, y), T.mul(m, x), T.mul(m, y), T.mul(m, m), T.mul(k(8), m), T.scale(T.mul(m, x), 2))
DIVISORS = (x, y, m, T.sub(m, k(1)), T.add(y, k(2)), T.mul(m, y), T.neg(m), T.scale(m, 2), T.div(x, m),
            T.div(x, k(2)), T.mod(x, m), k(2), k(3))
QUOTIENTS = tuple(q for f in (T.div, T.mod) for a in ATOMS + PRODUCTS for d in DIVISORS
                  if (q := f(a, d)).kind in (DIV, MOD))
FACTORS = (x, y, m, T.sub(m, k(1)), T.add(y, k(2)), k(2))


def _terms_of_kinds():
    """Terms of every kind a non-construct row applies to, built by the constructors."""
    yield from QUOTIENTS
    yield from (T.div(T.mul(c, x), T.div(x, d)) for c in (k(1), k(2), y) for d in (m, k(2), k(3)))
    yield from (T.mul(f, q) for f in FACTORS for q in QUOTIENTS if q.args[1] in (f, T.scale(f, 2), k(2), k(3)))
    yield from (T.mul(d, T.rdiv(a, d)) for d in FACTORS for a in (x, y))
    yield from (T.mul(T.to_real(a), T.to_real(c)) for a in (x, m) for c in (y, T.add(y, k(1))))
    yield from (T.add(x, T.scale(q, c)) for q in QUOTIENTS if q.kind == DIV and q.args[1].kind == T.CONST
                for c in (2, 3, 4, 6))
    yield from (f(a, c) for f in (T.minimum, T.maximum) for a in ATOMS[:4] + (T.div(x, m),) for c in ATOMS[:6])
    yield from (T.ite(cond, a, c) for cond in (T.le(m, k(0)), T.ge(m, k(1)), T.eq(m, k(0)), T.ne(x, y))
                for a, c in ((x, y), (T.div(x, m), k(0)), (k(0), T.mod(x, m))))
    for compare in (T.eq, T.ne, T.le, T.lt):
        yield from (compare(T.mul(m, a), T.mul(m, c)) for a in (x, y, T.add(x, k(1))) for c in (y, x))
        yield from (compare(T.rdiv(a, d), k(1)) for a in (x, T.mul(x, m)) for d in (m, T.add(y, k(2))))
        yield from (compare(T.scale(T.to_real(a), Fraction(1, 2)), T.to_real(y)) for a in (x, T.add(x, m)))
        yield from (compare(T.scale(q, c), k(v)) for q in QUOTIENTS if q.kind == DIV and q.args[1] in DIVISORS[:6]
                    for c in (-2, 1, 3) for v in (-3, 0, 2))
        yield from (compare(T.add(T.scale(f(x, y), c), m), k(v)) for f in (T.minimum, T.maximum)
                    for c in (-2, 1) for v in (0, 3))
    # products of sums, multiplied out (and one too large to be)
    yield from (T.mul(a, c) for a in (T.add(x, k(1)), T.sub(x, y), T.add(T.scale(m, 2), y, k(-3)))
                for c in (y, T.add(y, k(2)), T.sub(m, k(1))))
    yield T.mul(T.add(x, y), T.add(m, k(2)), x)
    yield T.mul(*(T.add(T.var(f"d{i}", T.INT), T.scale(x, 1 + i), k(1)) for i in range(4)))
    yield from (T.or_(T.le(x, c), T.le(x, T.add(c, k(2)))) for c in (y, k(1)))
    yield from (T.and_(T.le(x, c), T.le(x, T.add(c, k(2))), T.ge(y, m)) for c in (y, k(1)))
    yield from (T.or_(T.eq(x, k(c)), T.eq(T.mod(x, k(2)), k(0))) for c in (2, 4, 3))
    # presentation: constant divisions that fold
    yield from (T.div(T.add(T.div(a, k(c)), k(j)), k(d)) for a in (x, T.add(x, y)) for c in (2, 3)
                for j in (0, 1, 2) for d in (2, 3))
    yield from (T.div(T.add(T.scale(x, 4), k(2)), k(6)), T.div(T.add(T.scale(x, 6), T.scale(y, 9), k(3)), k(12)),
                T.mod(T.add(T.scale(x, 4), k(2)), k(8)), T.mod(T.add(T.scale(x, 6), T.scale(y, 3)), k(9)),
                T.mod(T.mod(x, k(6)), k(3)), T.mod(T.add(T.scale(T.mod(x, k(8)), 3), y, k(1)), k(4)),
                T.add(y, T.scale(T.div(T.div(x, k(2)), k(2)), 3)), T.add(x, T.div(T.add(T.scale(y, 2), k(4)), k(6))))


    # names: a named sum, sums that write one out (scaled, with a constant), a name beside one
    yield NAMED
    yield from (T.add(T.scale(nx, c), T.scale(ny, 2 * c), k(j)) for c in (1, -1, 2) for j in (0, 5))
    yield T.add(NAMED, nx, T.scale(ny, 2))


#: the variables of the named sum: no other test writes a sum of them, which the name (kept in
#: the process's term table) would then fold
nx, ny = T.var("nx", T.INT), T.var("ny", T.INT)
NAMED = T.define(T.add(nx, T.scale(ny, 2), k(1)), name="n")
TERMS = tuple(dict.fromkeys(_terms_of_kinds()))

#: the substitution phase's tables of stated equalities (what a driver's facts state)
STATED = ({x: T.add(y, k(1))}, {m: k(2), y: T.scale(x, 2)}, {T.div(x, k(2)): m, T.mul(x, y): T.sub(m, k(1))})

# ---------------------------------------------------------------- the present-fixed phase's terms, under facts

#: facts, and terms under them: values they fix (a sum, a product, an embedding, a min, an ite,
#: a remainder), quotients whose dividend's remainder they fix, and multiples of such quotients
#: (``4*((4*x + 8) div 16)`` only once its quotient is folded to ``(x + 2) div 4``), and terms
#: whose values or remainders they leave open
UNDER_FACTS = (
    ((T.eq(m, k(2)),), (T.add(m, k(1)), T.mul(m, m), T.add(T.to_real(m), k(Fraction(1, 2), T.REAL)),
                        T.minimum(m, k(3)), T.ite(T.le(x, y), m, k(2)), T.div(T.add(T.scale(m, 5), k(1)), k(2)),
                        T.mul(m, x))),
    ((T.eq(T.mod(x, k(4)), k(1)),), (T.div(T.add(x, k(3)), k(4)), T.div(T.add(x, k(6)), k(4)),
                                     T.mod(T.add(x, k(1)), k(4)), T.scale(T.div(x, k(4)), 8),
                                     T.add(y, T.scale(T.div(x, k(2)), 6)),
                                     T.scale(T.div(T.add(T.scale(x, 4), k(8)), k(16)), 4), T.div(T.add(x, k(2)), k(4)),
                                     T.div(T.add(T.scale(x, 2), k(3)), k(4)), T.div(T.add(y, k(1)), k(2)))),
    ((T.eq(T.mod(x, k(6)), k(3)), T.ge(y, k(1))), (T.div(T.add(x, k(2)), k(3)), T.add(T.scale(T.div(x, k(3)), 3), y),
                                                   T.scale(T.div(T.scale(x, 2), k(6)), 12))),
    ((T.eq(T.mod(x, k(16)), k(0)), T.ge(x, k(0))), (T.scale(T.div(T.scale(x, 4), k(16)), 4), T.div(x, k(8)))),
)
_REASONERS: dict[tuple, Reasoner] = {}


def reasoner(facts: tuple) -> Reasoner:
    """One reasoner per set of facts, kept (a match reads bounds, which only registers keys)."""
    if facts not in _REASONERS:
        r = _REASONERS[facts] = Reasoner()
        for f in facts:
            r.assume(f)
    return _REASONERS[facts]


def _folded(t: T.Term) -> T.Term:
    """A sub-term as presented by the exact presentation rows (equal to it at every integer)."""
    return rules.rewrite_exact(t, rules.PRESENT_BY_KIND)


def fixed_matches(row: Row):
    """``(facts, reasoner, term, match)`` for each term under facts ``row`` matches, its sub-terms
    shown as written and as folded."""
    for facts, terms in UNDER_FACTS:
        r = reasoner(facts)
        for t in terms:
            for shown in ((lambda s: s), _folded):
                match = row.match(t, shown, r.bounds) if t.kind in row.kinds else None
                if match is not None:
                    yield facts, r, t, match

# ---------------------------------------------------------------- instances, brute force, Z3

#: the box: x, y, m small, with r and b set from them (two readings each)
POINTS = [{"x": vx, "y": vy, "m": vm, "r": vr, "b": vb, "nx": vx - vm, "ny": vy + vm}
          for vx, vy, vm in itertools.product(range(-3, 4), range(-2, 3), range(-2, 4))
          for vr, vb in ((Fraction(vx, 2), (vx + vm) % 2 == 0),)]
DECLARATIONS = "".join(f"(declare-const {n} Int)" for n in ("x", "y", "m", "nx", "ny", *(f"d{i}" for i in range(13))))
DECLARATIONS += "(declare-const r Real)(declare-const b Bool)\n"
#: instances of one row checked by brute force, and by Z3
MAX_INSTANCES, MAX_Z3 = 40, 6


@attrs.frozen
class Instance:
    """One rewrite a row makes: the original (a term, or a construct row's kind and
    operands), the condition under which it holds, and its result."""

    kind: object
    operands: tuple
    original: T.Term | None
    condition: T.Term
    result: T.Term

    def original_value(self, point):
        if self.original is not None:
            return _value(self.original, point)
        op = OPS[self.kind]
        values = [_value(a, point) for a in self.operands]
        if op.strict and any(isinstance(v, Undefined) for v in values):
            return Undefined("operand")
        shell = attrs.make_class("Shell", ["sort"])(T.REAL if any(a.sort is T.REAL for a in self.operands) else T.INT)
        try:
            return op.meaning(shell, values)
        except (NotEvaluable, ZeroDivisionError, OverflowError) as e:
            return Undefined(str(e))

    def original_smtlib(self) -> str:
        if self.original is not None:
            return to_smtlib(self.original)
        if self.kind in COMPARISON_KINDS:
            zero = "0.0" if self.operands[0].sort is T.REAL else "0"
            return f"({OPS[self.kind].smtlib} {to_smtlib(self.operands[0])} {zero})"
        if self.kind in (MIN, MAX):  # the prelude's min2/max2 are Int functions
            a, c = (to_smtlib(t) for t in self.operands)
            return f"(ite ({'<=' if self.kind == MIN else '>='} {a} {c}) {a} {c})"
        return f"({OPS[self.kind].smtlib} {' '.join(to_smtlib(a) for a in self.operands)})"


def _value(t, point):
    try:
        return evaluate(t, point)
    except NotEvaluable as e:
        return Undefined(str(e))


def _condition(row: Row, match) -> T.Term:
    if row.conditions is None:
        return T.TRUE
    return T.and_(*(T.or_(*group) for group in row.conditions(match, lambda s: s)))


def instances(row: Row) -> list[Instance]:
    """The rewrites ``row`` makes on the pools, at most :data:`MAX_INSTANCES`, spread over them."""
    out = []
    if row.phase is Phase.CONSTRUCT:
        for kind in row.kinds:
            for operands in operand_tuples(kind):
                try:
                    operands = _promoted(kind, operands)
                    match = row.match(*operands)
                    if match is not None:
                        out.append(Instance(kind, operands, None, T.TRUE, row.result(match, lambda s: s)))
                except TypeError:  # a sort the constructor refuses before any row
                    continue
    elif row.phase is Phase.PRESENT_FIXED:
        for facts, _, t, match in fixed_matches(row):
            result = row.result(match, lambda s: s)
            out.append(Instance(t.kind, (), t, T.and_(*facts), result))
            out.append(Instance(t.kind, (), t, _condition(row, match), result))
        out = list(dict.fromkeys(out))
    elif row.phase is Phase.SUBSTITUTE:
        for values in STATED:
            for t in values:
                match = row.match(t, values) if t.kind in row.kinds else None
                if match is not None:
                    out.append(Instance(t.kind, (), t, _condition(row, match), row.result(match, lambda s: s)))
    else:
        for t in TERMS:
            match = row.match(t, t) if t.kind in row.kinds else None
            if match is not None:
                out.append(Instance(t.kind, (), t, _condition(row, match), row.result(match, lambda s: s)))
    step = max(1, len(out) // MAX_INSTANCES)
    return out[::step][:MAX_INSTANCES]


def brute_force_failures(row: Row) -> list:
    """The instances with a point of the box where the condition holds and the two sides
    differ; fails when no point of any instance was checked (a vacuous check)."""
    failures, checked = [], 0
    for inst in instances(row):
        for point in POINTS:
            if _value(inst.condition, point) is not True:
                continue  # the row claims nothing here (or its condition has no value)
            want = inst.original_value(point)
            if isinstance(want, Undefined):
                continue  # an unspecified x div 0 may be any value: Z3's check covers those
            checked += 1
            got = _value(inst.result, point)
            if isinstance(got, Undefined) or want != got:
                failures.append((inst, point))
                break
    assert checked, f"{row.name!r}: no point of the box where its condition holds and the original has a value"
    return failures


def z3_disagreements(row: Row, limit: int = MAX_Z3) -> list:
    """The instances (of the first ``limit``) where Z3 finds the condition true and the two
    sides apart; an instance Z3 cannot answer in time counts as neither."""
    z3 = pytest.importorskip("z3")
    out = []
    for inst in instances(row)[:limit]:
        text = PRELUDE_TEXT + DECLARATIONS + f"(assert {to_smtlib(inst.condition)})\n"
        text += f"(assert (not (= {inst.original_smtlib()} {to_smtlib(inst.result)})))"
        solver = z3.Solver()
        solver.set("timeout", 5000)
        solver.add(z3.parse_smt2_string(text))
        if solver.check() == z3.sat:
            out.append(inst)
    return out


def _id(row: Row) -> str:
    return f"{row.phase.value}: {row.name}"


@pytest.mark.parametrize("row", rules.ROWS, ids=_id)
def test_every_row_applies_and_keeps_the_value_by_brute_force(row):
    assert instances(row), f"no term of the pools reaches {row.name!r}: the test would check nothing"
    assert brute_force_failures(row) == []


@pytest.mark.parametrize("row", [row for row in rules.ROWS if row.kinds != (POW,)], ids=_id)
def test_every_row_agrees_with_z3(row):
    assert z3_disagreements(row) == []


def test_powers_agree_with_z3_where_it_answers():
    """Z3 reads ``^`` as a non-linear function it may not decide; the natural powers it does."""
    z3 = pytest.importorskip("z3")
    text = PRELUDE_TEXT + DECLARATIONS
    text += f"(assert (not (= (^ (+ x y) 3) {to_smtlib(T.power(T.add(x, y), k(3)))})))"
    solver = z3.Solver()
    solver.add(z3.parse_smt2_string(text))
    assert solver.check() == z3.unsat


def test_every_phase_has_rows_and_each_is_in_one_table():
    assert {row.phase for row in rules.ROWS} == set(Phase)
    assert len({_id(row) for row in rules.ROWS}) == len(rules.ROWS)
    for kind, rows in T._ROWS_BY_KIND.items():
        assert rows == tuple(row for row in T.CONSTRUCTION if kind in row.kinds)
    assert rules.BY_KIND == by_kind(rules.RULES, Phase.DECIDE)
    assert rules.FIXED_BY_KIND == by_kind(rules.RULES, Phase.PRESENT_FIXED)
    assert rules.MULTIPLY_OUT_BY_KIND == by_kind(rules.RULES, Phase.MULTIPLY_OUT)
    assert not any(row.phase is Phase.PRESENT for rows in rules.BY_KIND.values() for row in rows)
    assert all(row.conditions is None for rows in rules.PRESENT_BY_KIND.values() for row in rows)


@pytest.mark.parametrize("row", rules.FIXED_ROWS, ids=_id)
def test_simplify_proves_every_present_fixed_match(row):
    """What a match read is what the facts fix: the driver's prover (layers 0-1) proves it."""
    found = [(t, match) for _, r, t, match in fixed_matches(row) if not fixed_proved(r, row, match)]
    assert found == []


def _off_by_one(row: Row) -> Row:
    def result(match, again):
        t = row.result(match, again)
        return T.not_(t) if t.sort is T.BOOL else T.add(t, T.const(1, t.sort))

    return attrs.evolve(row, name=f"planted: {row.name}, off by one", result=result)


def _row(name: str) -> Row:
    return next(row for row in rules.ROWS if row.name == name)


def _misread(row: Row) -> Row:
    """``row`` with every bound it reads one too high: a point, a remainder off by one."""
    def match(t, shown, bounds):
        return row.match(t, shown, lambda s: tuple(v + 1 for v in bounds(s)))

    return attrs.evolve(row, name=f"planted: {row.name}, the value read one too high", match=match)


#: present-fixed rows whose match misreads the value the facts fix (their result is right for
#: the value read, so only the facts tell): the driver's prover and the checks must catch them
MISREAD = tuple(_misread(row) for row in rules.FIXED_ROWS)


#: per phase, wrong rows the checks must catch: a result off by one (or negated), and a side
#: condition dropped or a meaning misread
PLANTED = (
    _off_by_one(_row("multiples of a constant divisor leave the quotient")),
    Row("planted: Euclidean quotient read as truncation", Phase.CONSTRUCT, (DIV,),
        lambda a, d: T.Binary(a, d) if a.kind == d.kind == T.CONST and d.data else None,
        lambda m, _: T.const(int(m.left.data / m.right.data))),
    Row("planted: the remainder keeps the divisor's sign", Phase.CONSTRUCT, (MOD,),
        lambda a, d: T.Binary(a, d) if a.kind == d.kind == T.CONST and d.data else None,
        lambda m, _: T.const(m.left.data % m.right.data)),
    Row("planted: an integer inequality divided by its gcd, rounding down", Phase.CONSTRUCT, (LE,),
        lambda d: T.Divided(d, g) if d.kind == LIN and d.sort is T.INT and (g := math.gcd(*d.data[0])) > 1 else None,
        lambda m, _: T._divided(LE, m.difference, m.by, m.difference.data[1] // m.by)),
    _off_by_one(_row("dividend below the divisor")),
    attrs.evolve(_row("common factor of dividend and divisor"), name="planted: common factor, unconditional",
                 conditions=None),
    _off_by_one(_row("divisor times its quotient is the dividend less the remainder")),
    attrs.evolve(_row("a quotient by a positive divisor compared is bounds on the dividend"),
                 name="planted: quotient bounds, the divisor's sign unchecked", conditions=None),
    _off_by_one(_row("a bound on a max/min is the and/or of bounds on its operands")),
    _off_by_one(_row("nested constant quotients are one quotient")),
    _off_by_one(_row("a common content leaves a smaller constant remainder")),
    *MISREAD,
    _off_by_one(_row("a quotient whose dividend's remainder is fixed moves the constant out")),
    _off_by_one(_row("a product of sums is the sum of its monomials")),
    _off_by_one(_row("a named sum is its definition")),
    attrs.evolve(_row("a sum written out is the name equal to it"), name="planted: the name's constant dropped",
                 result=lambda m, _: T.add(T.scale(m.name, m.scale), *m.named)),
    _off_by_one(_row("a term a stated equality fixes is its value")),
)


def test_a_planted_wrong_row_of_every_phase():
    assert {row.phase for row in PLANTED} == set(Phase)


@pytest.mark.parametrize("row", PLANTED, ids=_id)
def test_a_planted_wrong_row_is_caught_by_brute_force_and_z3(row):
    assert brute_force_failures(row)
    assert z3_disagreements(row, limit=MAX_INSTANCES)


@pytest.mark.parametrize("row", MISREAD, ids=_id)
def test_simplify_refutes_every_misread_value(row):
    matches = list(fixed_matches(row))
    assert matches and not any(fixed_proved(r, row, match) for _, r, _, match in matches)


def test_the_power_rows_fold_only_exact_integers():
    assert T.power(T.const(2), T.const(-1)).kind == POW
    assert T.power(T.const(4, T.REAL), T.const(Fraction(1, 2), T.REAL)) is T.const(2, T.REAL)
    assert T.mod(T.add(T.scale(x, 6), k(5)), k(-4)) is T.mod(T.add(T.scale(x, 2), k(1)), k(4))
    assert T.div(x, k(0)).kind == DIV and T.mod(x, k(0)).kind == MOD
