"""Canonical forms of absint.lang.terms, and soundness of the normalisation they perform.

The property tests at the bottom are the important part: random expression trees
are evaluated directly by a reference interpreter written here (SMT-LIB
semantics) and, after building them through the term constructors or through the
SMT-LIB reader, by absint.lang.evaluator; the two must agree wherever the reference
is defined.
"""

from __future__ import annotations

import functools
import math
import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.lang.evaluator import NotEvaluable, evaluate
from absint.readers.smtlib import parse
from absint.lang.terms import BOOL, INT, REAL

x, y, z, s = (T.var(n, INT) for n in "xyzs")
r, q = T.var("r", REAL), T.var("q", REAL)
p, b = T.var("p", BOOL), T.var("b", BOOL)
c = T.const

from benchmarks.generators import PRELUDE_TEXT as PRELUDE  # noqa: E402


def read_output(expr: str, sort: str = "Int", decls: str = "") -> T.Term:
    """``expr`` read through the prelude, as the term of an output definition."""
    text = (PRELUDE + "(declare-const s Int)(declare-const x Int)(declare-const y Int)"
            "(declare-const r Real)" + decls + f"(define-fun output0_size0 () {sort} {expr})")
    return parse(text).output("output0_size0")


# ---------------------------------------------------------------- interning

def test_structurally_equal_terms_are_the_same_object():
    assert T.add(x, c(1)) is T.add(c(1), x)
    assert T.var("x", INT) is x
    assert T.const(3) is T.const(3)
    assert T.mul(x, y) is T.mul(x, y)


def test_variables_of_different_sorts_are_different_terms():
    assert T.var("x", REAL) is not x


def test_int_and_real_constants_are_different_terms():
    assert T.const(2) is not T.const(Fraction(2), REAL)
    assert T.const(Fraction(2), REAL).sort is REAL


def test_long_forms_differing_in_minus_one_and_minus_two_intern_under_distinct_keys():
    """CPython hashes -1 and -2 alike: under a tuple's hash these 64 forms of one sum share
    one key hash, and each lookup walks the chain comparing 64-atom keys. Long Int sums are
    interned under their weighted hash, which tells them apart; long Real sums under a second
    hash of the negated coefficients."""
    us = [T.var(f"intern_u{i}", INT) for i in range(64)]
    forms = [T.make_linear(INT, {u: (-2 if j <= i else -1) for j, u in enumerate(us)}, 0) for i in range(64)]
    assert len({f.id for f in forms}) == 64
    assert len({T._weighted.get(f) for f in forms}) == 64
    assert len({hash(tuple(f.data[0])) for f in forms}) == 1  # the tuple hash's collision
    assert all(T.make_linear(INT, dict(zip(f.args, f.data[0])), 0) is f for f in forms)
    xs = [T.var(f"intern_r{i}", T.REAL) for i in range(64)]
    reals = [T.make_linear(T.REAL, {x: (-2 if j <= i else -1) for j, x in enumerate(xs)}, 0) for i in range(64)]
    keys = [k for k in T._table if k[0] is T.LIN and k[2] == tuple(xs)]
    assert len(keys) == 64 and len({hash(k) for k in keys}) == 64
    assert len({hash(k[:4]) for k in keys}) == 1  # the plain key: the collision the second hash avoids


def test_a_construction_is_kept_per_table_and_gives_what_the_rows_give():
    """The constructors keep each application's result (the rows read only the operands):
    built again, the same object, the one the rows give; what a fresh table's block built
    is kept with that table and freed with it (a batch run analyses each file in one)."""
    outside = T.lt(T.add(x, y), c(7))
    assert T.lt(T.add(x, y), c(7)) is outside
    assert T._rewritten(T.LT, T.add(x, y, c(-7))) is outside  # the rows' own answer, not the kept one
    with T.fresh_table():
        x2, y2 = T.var("x", INT), T.var("y", INT)
        inside = T.lt(T.add(x2, y2), c(7))
        assert inside is not outside and T._table.get((T.LE, BOOL, inside.args, None)) is inside
        assert any(v is inside for v in T._constructed.values())
    assert not any(v is inside for v in T._constructed.values())
    assert T.lt(T.add(x, y), c(7)) is outside


def test_the_kept_constructions_are_emptied_when_full(monkeypatch):
    monkeypatch.setattr(T, "MAX_CONSTRUCTED", 3)
    with T.fresh_table():
        v = [T.var(f"w{i}", INT) for i in range(6)]
        for i in range(5):
            T.le(v[i], v[i + 1])
            assert len(T._constructed) <= 3
        assert T.le(v[0], v[1]) is T.le(v[0], v[1])


# ---------------------------------------------------------------- comparisons fold

def test_x_less_than_x_is_false():
    assert T.lt(x, x) is T.FALSE
    assert T.lt(r, r) is T.FALSE


def test_commuted_sums_are_equal():
    a = T.var("a", INT)
    assert T.eq(T.add(a, c(1)), T.add(c(1), a)) is T.TRUE


def test_not_x_less_than_x_is_true():
    assert T.not_(T.lt(x, x)) is T.TRUE


def test_int_le_is_divided_by_gcd():
    assert T.le(T.add(T.scale(x, 2), c(4)), c(0)) is T.le(T.add(x, c(2)), c(0))


def test_int_le_rounds_constant_down_after_gcd():
    # 2x <= 3  <=>  x <= 1
    assert T.le(T.scale(x, 2), c(3)) is T.le(x, c(1))


def test_int_lt_becomes_le():
    assert T.lt(x, c(3)) is T.le(x, c(2))


def test_int_equation_without_integer_solution_is_false():
    assert T.eq(T.scale(x, 2), c(3)) is T.FALSE
    assert T.ne(T.scale(x, 2), c(3)) is T.TRUE


def test_int_equation_is_divided_by_gcd_and_sign_normalised():
    assert T.eq(T.scale(x, -2), c(4)) is T.eq(x, c(-2))
    assert T.eq(T.add(T.scale(x, 6), T.scale(y, 9)), c(3)) is T.eq(T.add(T.scale(x, 2), T.scale(y, 3)), c(1))


def test_equality_is_symmetric():
    assert T.eq(x, y) is T.eq(y, x)
    assert T.eq(r, q) is T.eq(q, r)


def test_ge_and_gt_are_le_and_lt_swapped():
    assert T.ge(x, y) is T.le(y, x)
    assert T.gt(r, q) is T.lt(q, r)


def test_real_comparison_is_scaled_to_unit_coefficient():
    assert T.le(T.scale(r, 3), c(Fraction(3), REAL)) is T.le(r, c(Fraction(1), REAL))


def test_mixed_int_real_comparison_promotes_int_side():
    t = T.lt(x, r)
    assert t.args[0].sort is REAL
    assert evaluate(t, {"x": 1, "r": Fraction(3, 2)}) is True


# ---------------------------------------------------------------- negation normal form

def test_not_of_int_le_is_a_le():
    t = T.not_(T.le(x, c(0)))
    assert t.kind == "le"
    assert t is T.gt(x, c(0))


def test_not_of_real_lt_is_a_le():
    t = T.not_(T.lt(r, c(0)))
    assert t.kind == "le"
    assert t is T.ge(r, c(0))


def test_not_of_real_le_is_a_lt():
    assert T.not_(T.le(r, c(0))) is T.gt(r, c(0))


def test_not_of_eq_is_ne_and_back():
    assert T.not_(T.eq(x, y)) is T.ne(x, y)
    assert T.not_(T.ne(x, y)) is T.eq(x, y)


def test_not_is_pushed_through_and_or():
    a, d = T.le(x, c(0)), T.eq(y, c(1))
    assert T.not_(T.and_(a, d)) is T.or_(T.not_(a), T.not_(d))
    assert T.not_(T.or_(a, d)) is T.and_(T.not_(a), T.not_(d))


def test_not_only_wraps_bool_variables():
    assert T.not_(p).kind == "not"
    assert T.not_(T.not_(p)) is p
    for t in (T.not_(T.le(x, y)), T.not_(T.and_(p, T.le(x, y))), T.not_(T.lt(r, q))):
        assert all(u.kind != "not" or u.args[0].kind == "var" for u in T.subterms(t))


# ---------------------------------------------------------------- arithmetic

def test_sum_collects_like_terms():
    assert T.add(x, x, y, T.neg(y)) is T.scale(x, 2)
    assert T.sub(x, x) is T.ZERO


def test_product_is_commutative():
    assert T.mul(x, y) is T.mul(y, x)
    assert T.mul(x, y, z) is T.mul(z, x, y)


def test_constants_scale_products():
    t = T.mul(c(2), x, c(3), y)
    assert t is T.scale(T.mul(x, y), 6)
    assert t.kind == "lin" and t.data == ((6,), 0) and t.args[0].kind == "mul"


def test_product_factors_out_coefficient_content():
    # (2x + 4) * y  ==  2 * ((x + 2) * y)
    assert T.mul(T.add(T.scale(x, 2), c(4)), y) is T.scale(T.mul(T.add(x, c(2)), y), 2)


def test_nested_scaled_products_are_flattened():
    assert T.mul(T.mul(c(2), x, y), z) is T.mul(c(2), x, y, z)


def test_product_with_zero_is_zero():
    assert T.mul(x, c(0), y) is T.ZERO


def test_to_real_is_pushed_into_sums():
    t = T.to_real(T.add(x, c(1)))
    assert t is T.add(T.to_real(x), c(Fraction(1), REAL))


def test_to_int_of_int_over_constant_is_div():
    assert T.to_int(T.rdiv(s, c(2))) is T.div(s, c(2))


def test_ceil_of_int_over_constant_is_div_of_shifted_numerator():
    assert T.ceil(T.rdiv(s, c(2))) is T.div(T.add(s, c(1)), c(2))


def test_to_int_of_int_is_identity():
    assert T.to_int(T.to_real(x)) is x


def test_div_by_constant_splits_off_multiples():
    assert T.div(T.add(T.scale(y, 8), z), c(8)) is T.add(y, T.div(z, c(8)))


def test_div_by_negative_constant_splits_with_sign():
    assert T.div(T.add(T.scale(y, 8), z), c(-8)) is T.add(T.neg(y), T.div(z, c(-8)))


def test_mod_of_multiple_plus_constant_folds():
    assert T.mod(T.add(T.scale(y, 8), c(3)), c(8)) is T.const(3)


def test_mod_drops_multiples_and_sign_of_divisor():
    assert T.mod(T.add(T.scale(y, 8), z), c(-8)) is T.mod(z, c(8))


def test_div_and_mod_of_constants_fold_euclidean():
    assert T.div(c(-7), c(2)) is c(-4)
    assert T.mod(c(-7), c(-2)) is c(1)


def test_div_by_zero_stays_a_term():
    t = T.div(x, c(0))
    assert t.kind == "div"
    with pytest.raises(NotEvaluable):
        evaluate(t, {"x": 1})


def test_min_max_of_constant_difference_fold():
    assert T.minimum(x, T.add(x, c(1))) is x
    assert T.maximum(x, T.add(x, c(1))) is T.add(x, c(1))


def test_min_is_commutative():
    assert T.minimum(x, y) is T.minimum(y, x)


def test_power_with_small_natural_exponent_is_a_product():
    assert T.power(x, c(2)) is T.mul(x, x)
    assert T.power(x, c(0)) is T.ONE


def test_power_of_constants_folds_when_rational():
    assert T.power(c(Fraction(9, 4), REAL), c(Fraction(1, 2), REAL)) is c(Fraction(3, 2), REAL)
    assert T.power(c(Fraction(2), REAL), c(Fraction(1, 2), REAL)).kind == "pow"


def test_int_power_with_non_integer_value_stays_a_term():
    # Int ^ Int is Int in SMT-LIB (Z3); 2 ^ -1 has no integer value, so it is not folded
    t = T.power(c(2), c(-1))
    assert t.kind == "pow" and t.sort is INT
    with pytest.raises(NotEvaluable):
        evaluate(t, {})
    assert T.power(c(2), c(20)) is c(2**20)


def test_arithmetic_on_bool_is_a_type_error():
    with pytest.raises(TypeError):
        T.add(x, p)
    with pytest.raises(TypeError):
        T.div(r, c(2))


# ---------------------------------------------------------------- ite idioms

def test_ite_less_than_is_min():
    assert T.ite(T.lt(x, y), x, y) is T.minimum(x, y)
    assert T.ite(T.le(x, y), x, y) is T.minimum(x, y)


def test_ite_greater_than_is_max():
    assert T.ite(T.gt(x, y), x, y) is T.maximum(x, y)


def test_prelude_min2_and_max2_are_min_and_max():
    assert read_output("(min2 x y)") is T.minimum(x, y)
    assert read_output("(max2 x y)") is T.maximum(x, y)


def test_prelude_ceil_macro_is_recognised_as_ceil():
    assert read_output("(ceil r)") is T.ceil(r)
    assert T.ceil(r).kind == "ceil"


def test_prelude_ceil_of_half_is_div():
    assert read_output("(ceil (/ s 2))") is T.div(T.add(s, c(1)), c(2))


def test_ite_with_negated_condition_is_flipped():
    assert T.ite(T.ne(x, c(0)), y, z) is T.ite(T.eq(x, c(0)), z, y)


def test_ite_with_constant_condition_picks_branch():
    assert T.ite(T.TRUE, x, y) is x
    assert T.ite(T.FALSE, x, y) is y


def test_ite_with_equal_branches_is_the_branch():
    assert T.ite(T.le(x, c(0)), y, y) is y


def test_bool_ite_is_boolean_structure():
    t = T.ite(p, b, T.le(x, c(0)))
    assert t.kind == "or"


# ---------------------------------------------------------------- and / or

def test_and_is_flattened():
    a, d, e = T.le(x, c(0)), T.le(y, c(0)), T.le(z, c(0))
    assert T.and_(a, T.and_(d, e)) is T.and_(a, d, e)
    assert T.or_(T.or_(a, d), e) is T.or_(a, d, e)


def test_and_is_commutative_and_idempotent():
    a, d = T.le(x, c(0)), T.le(y, c(0))
    assert T.and_(a, d) is T.and_(d, a)
    assert T.and_(a, a) is a


def test_and_or_absorb_constants():
    a = T.le(x, c(0))
    assert T.and_(a, T.FALSE) is T.FALSE
    assert T.and_(a, T.TRUE) is a
    assert T.or_(a, T.TRUE) is T.TRUE
    assert T.or_(a, T.FALSE) is a
    assert T.and_() is T.TRUE and T.or_() is T.FALSE


def test_complementary_literals_fold():
    a = T.le(x, c(0))
    assert T.and_(a, T.le(y, c(0)), T.not_(a)) is T.FALSE
    assert T.or_(a, T.not_(a)) is T.TRUE
    assert T.and_(p, T.not_(p)) is T.FALSE
    assert T.or_(T.eq(x, y), T.ne(x, y)) is T.TRUE


def test_implies_is_or_of_negation():
    a, d = T.le(x, c(0)), T.le(y, c(0))
    assert T.implies(a, d) is T.or_(T.not_(a), d)


def test_iff_of_same_term_is_true():
    assert T.iff(p, p) is T.TRUE
    assert T.eq(p, p) is T.TRUE


def test_bool_compared_with_int_is_type_error():
    with pytest.raises(TypeError):
        T.eq(p, x)


# ---------------------------------------------------------------- printing

def test_repr_is_smtlib_text():
    assert repr(T.add(T.scale(x, 2), c(-1))) == "(+ (* 2 x) (- 1))"
    assert repr(T.le(r, c(Fraction(1, 2), REAL))) == "(<= (+ r (- (/ 1.0 2.0))) 0.0)"
    assert repr(T.ne(x, y)) == "(distinct (+ x (* (- 1) y)) 0)"
    assert repr(T.minimum(x, y)) == "(min2 x y)"
    assert repr(T.var("a b", INT)) == "|a b|"


def test_printed_terms_read_back_as_the_same_term():
    for t in (T.add(T.scale(x, 2), c(-1)), T.ceil(T.rdiv(r, y)), T.le(r, c(Fraction(1, 2), REAL)),
              T.and_(T.ne(x, y), T.gt(T.mod(x, y), c(2))), T.maximum(x, T.div(y, c(3)))):
        sort = t.sort.value
        back = parse(PRELUDE + "(declare-const x Int)(declare-const y Int)(declare-const r Real)"
                     f"(define-fun output0_size0 () {sort} {t!r})").output("output0_size0")
        assert back is t


def test_repr_of_a_very_deep_term_does_not_recurse():
    t = x
    for _ in range(5000):
        t = T.mod(T.add(t, c(1)), c(7))
    text = repr(t)
    assert text.startswith("(mod (+ (mod (+ ") and text.count("(mod") == 5000


# ---------------------------------------------------------------- soundness of normalisation
#
# A tree is a tuple: ("var", name), ("int", n), or (op, child, ...). ``sort_of`` gives
# its sort; ``ref`` evaluates it with SMT-LIB semantics; ``build`` makes the term through
# the constructors; ``text`` renders it as SMT-LIB.

INT_VARS = ("x", "y", "z")
UNDEF = object()  # the reference value of an expression that divides by zero
COMPARISONS = ("<", "<=", ">", ">=", "=", "distinct")


def _int_leaf() -> st.SearchStrategy:
    return st.one_of(st.sampled_from(INT_VARS).map(lambda n: ("var", n)),
                     st.integers(-6, 6).map(lambda n: ("int", n)))


def _const() -> st.SearchStrategy:
    return st.integers(-6, 6).map(lambda n: ("int", n))


def _node(ops, *children) -> st.SearchStrategy:
    """``(op, child1, child2, ...)`` for an op drawn from ``ops``."""
    return st.tuples(st.sampled_from(ops), *children).map(lambda t: tuple(t))


def _nary(ops, child, lo=1, hi=3) -> st.SearchStrategy:
    return st.tuples(st.sampled_from(ops), st.lists(child, min_size=lo, max_size=hi)).map(
        lambda t: (t[0], *t[1]))


def _linear(child) -> st.SearchStrategy:
    """``k1*a + k2*b + c`` with coefficients sharing factors, for the gcd and div/mod splitting rules."""
    k = st.sampled_from([-6, -4, -3, -2, 2, 3, 4, 6, 8])
    return st.tuples(k, child, k, child, _const()).map(
        lambda t: ("+", ("*", ("int", t[0]), t[1]), ("*", ("int", t[2]), t[3]), t[4]))


def _choose(options: dict) -> st.SearchStrategy:
    """An operator drawn uniformly, then its operands (one_of would favour the simplest)."""
    names = sorted(options)
    return st.sampled_from(names).flatmap(lambda k: options[k])


@functools.lru_cache(maxsize=None)
def ints(d: int) -> st.SearchStrategy:
    leaf = _int_leaf()
    if d == 0:
        return leaf
    i, rr, bb = ints(d - 1), reals(d - 1), bools(d - 1)
    return _choose({
        "leaf": leaf,
        "arith": _nary(("+", "-", "*"), i),
        "neg": i.map(lambda a: ("neg", a)),
        "scale": _node(("*",), _const(), i),  # coefficients > 1 exercise the gcd rules
        "div_const": _node(("div", "mod"), i, _const()),
        "div_linear": _node(("div", "mod"), _linear(i), st.sampled_from([-4, -2, 2, 3, 4, 8]).map(
            lambda n: ("int", n))),
        "div_expr": _node(("div", "mod"), i, i),
        "floor": _node(("to_int", "ceil", "ceil_idiom"), rr),
        "minmax": _node(("min", "max", "ite_min", "ite_max"), i, i),
        "ite": _node(("ite",), bb, i, i),
    })


@functools.lru_cache(maxsize=None)
def reals(d: int) -> st.SearchStrategy:
    """Trees of sort Real (mixed arithmetic: later operands may be Int)."""
    leaf = st.one_of(st.just(("var", "r")), _int_leaf().map(lambda a: ("to_real", a)))
    if d == 0:
        return leaf
    i, rr, bb = ints(d - 1), reals(d - 1), bools(d - 1)
    num = st.one_of(rr, i)
    return _choose({
        "leaf": leaf,
        "arith": st.tuples(st.sampled_from(("+", "-", "*")), rr, st.lists(num, max_size=2)).map(
            lambda t: (t[0], t[1], *t[2])),
        "neg": rr.map(lambda a: ("neg", a)),
        "scale": _node(("*",), _const(), rr),
        "div_const": _node(("/",), num, _const()),
        "div_linear": _node(("/",), _linear(i), st.sampled_from([2, 3, 4, -2]).map(lambda n: ("int", n))),
        "div_expr": _node(("/",), num, num),
        "to_real": i.map(lambda a: ("to_real", a)),
        "ite": _node(("ite",), bb, rr, rr),
    })


@functools.lru_cache(maxsize=None)
def bools(d: int) -> st.SearchStrategy:
    if d == 0:
        return st.one_of(st.booleans().map(lambda v: ("bool", v)),
                         _node(COMPARISONS, _int_leaf(), _int_leaf()))
    i, rr, bb = ints(d - 1), reals(d - 1), bools(d - 1)
    return _choose({
        "cmp_int": _nary(COMPARISONS, i, 2, 3),
        "cmp_real": _nary(COMPARISONS, rr, 2, 3),
        "cmp_mixed": _node(COMPARISONS, i, rr),
        "cmp_linear": _node(COMPARISONS, _linear(i), _const()),
        "junction": _nary(("and", "or"), bb, 1, 3),
        "not": bb.map(lambda a: ("not", a)),
        "binary": _node(("=>", "=", "xor"), bb, bb),
        "ite": _node(("ite",), bb, bb, bb),
    })


def sort_of(t) -> T.Sort:
    op = t[0]
    if op == "var":
        return REAL if t[1] == "r" else INT
    if op == "int":
        return INT
    if op == "bool" or op in COMPARISONS or op in ("and", "or", "not", "=>", "xor"):
        return BOOL
    if op in ("/", "to_real"):
        return REAL
    if op in ("div", "mod", "to_int", "ceil", "ceil_idiom", "min", "max", "ite_min", "ite_max"):
        return INT
    if op == "ite":
        return sort_of(t[2]) if sort_of(t[2]) is sort_of(t[3]) else REAL
    return REAL if any(sort_of(a) is REAL for a in t[1:]) else INT


def _floor_div(a: int, d: int) -> int:
    """Euclidean quotient, written independently of absint: 0 <= a - d*q < |d|."""
    return a // d if d > 0 else -(a // -d)


def ref(t, env):
    """SMT-LIB value of tree ``t``; UNDEF where it depends on a division by zero."""
    op = t[0]
    if op == "var":
        return env[t[1]]
    if op in ("int", "bool"):
        return t[1]
    if op == "ite":
        cond = ref(t[1], env)
        if cond is UNDEF:
            return UNDEF
        return ref(t[2] if cond else t[3], env)
    if op in ("and", "or"):
        vals = [ref(a, env) for a in t[1:]]
        absorbing = op == "or"
        if any(v is absorbing for v in vals):
            return absorbing
        return UNDEF if any(v is UNDEF for v in vals) else not absorbing
    if op == "=>":
        a, d = ref(t[1], env), ref(t[2], env)
        if a is False or d is True:
            return True
        return UNDEF if UNDEF in (a, d) else (not a or d)
    vals = [ref(a, env) for a in t[1:]]
    if any(v is UNDEF for v in vals):
        return UNDEF
    if op == "+":
        return sum(vals)
    if op == "-":
        return -vals[0] if len(vals) == 1 else vals[0] - sum(vals[1:])
    if op == "neg":
        return -vals[0]
    if op == "*":
        out = 1
        for v in vals:
            out *= v
        return out
    if op in ("div", "mod"):
        a, d = vals
        if d == 0:
            return UNDEF
        qv = _floor_div(a, d)
        return qv if op == "div" else a - d * qv
    if op == "/":
        if vals[1] == 0:
            return UNDEF
        return Fraction(vals[0]) / vals[1]
    if op == "to_real":
        return Fraction(vals[0])
    if op == "to_int":
        n = vals[0]
        return n.numerator // n.denominator
    if op in ("ceil", "ceil_idiom"):
        n = vals[0]
        return -((-n.numerator) // n.denominator)
    if op in ("min", "ite_min"):
        return min(vals)
    if op in ("max", "ite_max"):
        return max(vals)
    if op == "not":
        return not vals[0]
    if op == "xor":
        return vals[0] != vals[1]
    if op == "=" and sort_of(t[1]) is BOOL:
        return vals[0] == vals[1]
    if op == "distinct":
        return len(set(vals)) == len(vals)
    cmp = {"<": lambda a, d: a < d, "<=": lambda a, d: a <= d, ">": lambda a, d: a > d,
           ">=": lambda a, d: a >= d, "=": lambda a, d: a == d}[op]
    return all(cmp(a, d) for a, d in zip(vals, vals[1:]))


_BUILD_CMP = {"<": T.lt, "<=": T.le, ">": T.gt, ">=": T.ge, "=": T.eq}


def build(t) -> T.Term:
    """The tree as a term, through the constructors of absint.lang.terms."""
    op = t[0]
    if op == "var":
        return T.var(t[1], sort_of(t))
    if op == "int":
        return T.const(t[1])
    if op == "bool":
        return T.boolean(t[1])
    a = [build(u) for u in t[1:]]
    if op == "+":
        return T.add(*a)
    if op == "-":
        return T.sub(*a)
    if op == "neg":
        return T.neg(a[0])
    if op == "*":
        return T.mul(*a)
    if op == "/":
        return T.rdiv(*a)
    if op == "ceil_idiom":  # the prelude's ceil macro, spelled out
        fl = T.to_int(a[0])
        return T.ite(T.eq(fl, a[0]), fl, T.add(fl, T.ONE))
    if op == "ite_min":
        return T.ite(T.lt(a[0], a[1]), a[0], a[1])
    if op == "ite_max":
        return T.ite(T.gt(a[0], a[1]), a[0], a[1])
    if op in _BUILD_CMP:
        return T.and_(*(_BUILD_CMP[op](u, v) for u, v in zip(a, a[1:])))
    if op == "distinct":
        return T.and_(*(T.ne(u, v) for k, u in enumerate(a) for v in a[k + 1:]))
    simple = {"div": T.div, "mod": T.mod, "to_real": T.to_real, "to_int": T.to_int, "ceil": T.ceil,
              "min": T.minimum, "max": T.maximum, "ite": T.ite, "and": T.and_, "or": T.or_,
              "not": T.not_, "=>": T.implies, "xor": T.xor}
    return simple[op](*a)


def _num(n: int) -> str:
    # both spellings of negative numerals occur: Z3's -3 and standard (- 3)
    if n >= 0:
        return str(n)
    return f"(- {-n})" if n % 2 else str(n)


def text(t) -> str:
    op = t[0]
    if op == "var":
        return t[1]
    if op == "int":
        return _num(t[1])
    if op == "bool":
        return "true" if t[1] else "false"
    a = [text(u) for u in t[1:]]
    if op == "neg":
        return f"(- {a[0]})"
    if op == "ceil_idiom":
        return f"(ite (= (to_int {a[0]}) {a[0]}) (to_int {a[0]}) (+ (to_int {a[0]}) 1))"
    if op == "ite_min":
        return f"(ite (< {a[0]} {a[1]}) {a[0]} {a[1]})"
    if op == "ite_max":
        return f"(ite (> {a[0]} {a[1]}) {a[0]} {a[1]})"
    name = {"min": "min2", "max": "max2"}.get(op, op)
    return f"({name} {' '.join(a)})"


def points() -> st.SearchStrategy:
    """A few drawn points, plus a fixed spread of others (boundaries are easy to miss)."""
    v = st.integers(-7, 7)
    rv = st.builds(Fraction, st.integers(-14, 14), st.sampled_from([1, 2, 3]))
    drawn = st.lists(st.fixed_dictionaries({"x": v, "y": v, "z": v, "r": rv}), min_size=1, max_size=4)
    return drawn.map(lambda envs: envs + FIXED_POINTS)


def _fixed_points(n: int) -> list[dict]:
    rnd = random.Random(20240601)
    return [{"x": rnd.randint(-7, 7), "y": rnd.randint(-7, 7), "z": rnd.randint(-7, 7),
             "r": Fraction(rnd.randint(-14, 14), rnd.choice([1, 2, 3]))} for _ in range(n)]


FIXED_POINTS = _fixed_points(30)


def any_tree() -> st.SearchStrategy:
    return st.one_of(ints(3), reals(3), bools(3))


def assert_agrees(tree, term: T.Term, envs) -> None:
    sort = sort_of(tree)
    assert term.sort is sort, (tree, term)
    for env in envs:
        expected = ref(tree, env)
        if expected is UNDEF:
            continue
        try:
            got = evaluate(term, env)
        except NotEvaluable as e:
            raise AssertionError(f"{text(tree)} = {expected} at {env}, but {term!r} is not evaluable: {e}")
        assert got == expected, f"{text(tree)} = {expected} at {env}, but {term!r} = {got}"
        if sort is BOOL:
            assert type(got) is bool
        elif sort is INT:
            assert type(got) is int
        else:
            assert isinstance(got, Fraction)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_tree())
def test_printed_random_terms_read_back_as_the_same_term(tree):
    t = build(tree)
    decls = "(declare-const x Int)(declare-const y Int)(declare-const z Int)(declare-const r Real)"
    if t.sort is BOOL:
        back = parse(PRELUDE + decls + f"(assert {t!r})").facts[0].term
    else:
        back = parse(PRELUDE + decls + f"(define-fun output0_size0 () {t.sort.value} {t!r})").output("output0_size0")
    assert back is t


SOUNDNESS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SOUNDNESS
@given(any_tree(), points())
def test_constructors_preserve_value(tree, envs):
    assert_agrees(tree, build(tree), envs)


@SOUNDNESS
@given(any_tree(), points())
def test_reader_preserves_value(tree, envs):
    sort = sort_of(tree)
    decls = "(declare-const x Int)\n(declare-const y Int)\n(declare-const z Int)\n(declare-const r Real)\n"
    if sort is BOOL:
        program = parse(PRELUDE + decls + f"(assert {text(tree)})\n(check-sat)\n")
        (fact,) = program.facts
        term = fact.term
    else:
        program = parse(PRELUDE + decls + f"(define-fun output0_size0 () {sort.value} {text(tree)})\n")
        term = program.output("output0_size0")
    assert_agrees(tree, term, envs)


def test_reference_interpreter_uses_euclidean_division():
    # the oracle itself must be right, or the property tests above prove nothing
    for a, d, qv, rv in [(7, 2, 3, 1), (-7, 2, -4, 1), (7, -2, -3, 1), (-7, -2, 4, 1)]:
        assert ref(("div", ("int", a), ("int", d)), {}) == qv
        assert ref(("mod", ("int", a), ("int", d)), {}) == rv
    assert ref(("ceil", ("/", ("int", -3), ("int", 2))), {}) == -1
    assert ref(("to_int", ("/", ("int", -3), ("int", 2))), {}) == -2
    assert ref(("div", ("int", 1), ("int", 0)), {}) is UNDEF


_ATOMS = [T.var(f"a{i}", INT) for i in range(12)] + [T.mul(x, y), T.div(z, c(4))]


@given(st.lists(st.tuples(st.sampled_from(_ATOMS), st.sampled_from([1, -1, 2, -3, 5])), min_size=2, max_size=12),
       st.sampled_from([1, 2, 3, -1, -2]), st.integers(-9, 9))
@settings(max_examples=300, deadline=None)
def test_primitive_part_is_the_canonical_form_make_linear_builds(pairs, g, k):
    """``primitive_part`` skips make_linear's dict and sort: it must give the very term
    make_linear gives (a planted one that keeps the constant, or forgets to divide, is caught)."""
    t = T.make_linear(INT, {a: g * v for a, v in dict(pairs).items()}, k)
    if t.kind != T.LIN:
        return
    coefs = t.data[0]
    d = math.gcd(*coefs)
    d = -d if coefs[0] < 0 else d
    expected = T.make_linear(INT, {a: v // d for a, v in zip(t.args, coefs)}, 0)
    assert T.primitive_part(t, d) is expected


_LONG = st.lists(st.tuples(st.sampled_from(_ATOMS), st.sampled_from([1, -1, 2, -3, 5])), min_size=9, max_size=14)


def _by_dict(kind, a, b):
    """``a - b <kind> 0`` the general way: a dict of both sides' atoms, then make_linear."""
    coefs, c = T.linear_parts(a)
    for x, v in zip(*((b.args, b.data[0]) if b.kind == T.LIN else ((), ()))):
        coefs[x] = coefs.get(x, 0) - v
    if b.kind == T.CONST:
        c -= b.data
    elif b.kind != T.LIN:
        coefs[b] = coefs.get(b, 0) - 1
    return T._construct(kind, T.BOOL, T.make_linear(INT, coefs, c))


@given(_LONG, st.integers(-9, 9), st.one_of(st.sampled_from(_ATOMS), st.integers(-9, 9).map(T.const)),
       st.sampled_from([T.LE, T.LT, T.EQ, T.NE]))
@settings(max_examples=300, deadline=None)
def test_a_long_sum_compared_with_an_atom_or_a_number_is_the_term_make_linear_builds(pairs, k, b, kind):
    """``_compare`` splices the atom into the long sum (bisection by id) or shifts its
    constant instead of building a dict; the very same term either way, whether or not the
    atom is in the sum (a planted splice one place off is caught)."""
    a = T.make_linear(INT, dict(pairs), k)
    if a.kind != T.LIN or len(a.args) <= T._UNMIXED:
        return
    assert T._compare(kind, a, b) is _by_dict(kind, a, b)


@given(st.lists(st.tuples(st.sampled_from(_ATOMS), st.sampled_from([1, -1, 2, -3, 5])), min_size=1, max_size=14),
       st.integers(-9, 9), st.sampled_from([-3, -1, 1, 2, 7]))
@settings(max_examples=300, deadline=None)
def test_a_sum_scaled_by_an_integer_is_the_term_make_linear_builds(pairs, k, factor):
    """Scaling keeps the atoms' order without a dict; ``-(-x)`` is ``x`` itself again (a
    one-atom form with coefficient 1 and no constant is the atom)."""
    a = T.make_linear(INT, dict(pairs), k)
    expected = T.make_linear(INT, {x: v * factor for x, v in T.linear_parts(a)[0].items()}, T.linear_parts(a)[1] * factor)
    assert T.scale(a, factor) is expected


def test_a_planted_splice_one_place_off_is_caught(monkeypatch):
    import bisect

    off = staticmethod(lambda seq, x, key: max(0, bisect.bisect_left(seq, x, key=key) - 1))
    monkeypatch.setattr(T, "bisect", type("B", (), {"bisect": off, "bisect_left": off}))
    with pytest.raises(AssertionError):
        test_a_long_sum_compared_with_an_atom_or_a_number_is_the_term_make_linear_builds()


@pytest.mark.parametrize("atom", _ATOMS[:2] + _ATOMS[-2:])
def test_negating_twice_gives_the_atom_itself(atom):
    """``-(-x)`` is ``x``, not a one-atom sum (the scaled form must stay canonical)."""
    assert T.neg(T.neg(atom)) is atom
    assert T.scale(T.scale(atom, 3), 1) is T.scale(atom, 3)
    assert T.scale(T.add(atom, T.const(2)), -1) is T.make_linear(INT, {atom: -1}, -2)
