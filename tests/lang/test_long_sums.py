"""Long Int sums built in C passes (``terms._long_int_sum``, ``linear_combination``, a long
sum compared with an atom either way round), and the sympy reader's long ``Add`` looked up
by identity, with rebuilt ``k*u`` products read without the memo.

PyTorch asks about prefix sums of hundreds of lengths; these paths skip :func:`terms.add`'s
loop and :func:`terms.make_linear`'s dict. Each result must be the very term the general
path interns (checked against a form built here from a dict), equal the sum of its parts
at points and by Z3; planted errors (a constant dropped, a coefficient read as 1) are caught.
"""

from __future__ import annotations

import functools
import itertools
import random

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.lang.evaluator import evaluate
from absint.readers.sympy_bridge import SympyToTerms
from z3_check import z3_implies

NAMES = [f"x{i}" for i in range(14)]


def pool() -> list[T.Term]:
    x = [T.var(n, T.INT) for n in NAMES]
    return x + [T.mul(x[0], x[1]), T.div(x[2], T.const(3))]


@st.composite
def parts(draw):
    """Operands of a sum: mostly distinct atoms, some multiples ``k*a``, constants, short
    sums, now and then a repeated atom or a Real operand."""
    n = len(pool())
    picks = draw(st.lists(st.tuples(st.integers(0, n - 1), st.sampled_from([1, 1, 1, -1, 2, -3]),
                                    st.sampled_from(["atom", "atom", "atom", "const", "sum", "real"])),
                          min_size=9, max_size=24))
    return picks


def operands(picks) -> list[T.Term]:
    atoms = pool()
    out = []
    for i, k, what in picks:
        a = atoms[i]
        if what == "const":
            out.append(T.const(k))
        elif what == "sum":
            out.append(T.add(T.scale(a, k), T.scale(atoms[(i + 1) % len(atoms)], -k), T.const(k)))
        elif what == "real" and i % 5 == 0:
            out.append(T.to_real(a))
        else:
            out.append(T.scale(a, k))
    return out


def reference(ts: list[T.Term]) -> T.Term:
    """The sum through :func:`terms.make_linear`'s dict, added up here."""
    sort = T.REAL if any(t.sort is T.REAL for t in ts) else T.INT
    coefs: dict = {}
    c = 0
    for t in ts:
        t = T.to_real(t) if sort is T.REAL else t
        tc, tk = T.linear_parts(t)
        c += tk
        for a, v in tc.items():
            coefs[a] = coefs.get(a, 0) + v
    return T.make_linear(sort, coefs, c)


def point(seed: int) -> dict:
    rng = random.Random(seed)
    return {n: rng.randint(-4, 4) for n in NAMES}


def check_sum(ts: list[T.Term]) -> None:
    got = T.add(*ts)
    assert got is reference(ts), (ts, got)
    for seed in range(6):
        p = point(seed)
        assert evaluate(got, p) == sum(evaluate(t, p) for t in ts), (got, p)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts())
def test_a_long_sum_is_the_general_paths_term(picks):
    with T.fresh_table():
        check_sum(operands(picks))


def test_a_long_sum_equals_its_parts_by_z3():
    rng = random.Random(7)
    for _ in range(25):
        with T.fresh_table():
            picks = [(rng.randrange(len(pool())), rng.choice([1, -1, 2]), rng.choice(["atom", "atom", "const", "sum"]))
                     for _ in range(rng.randint(9, 20))]
            ts = operands(picks)
            pairwise = functools.reduce(T.add, ts)  # two at a time: the general path
            assert z3_implies([], T.eq(T.add(*ts), pairwise))


def test_the_long_path_is_taken(monkeypatch):
    """Sums of distinct atoms and of their multiples never reach make_linear."""
    def refused(*args):
        raise AssertionError("make_linear called")

    with T.fresh_table():
        x = pool()
        negated = [T.scale(a, -1) for a in x[:12]]
        monkeypatch.setattr(T, "make_linear", refused)
        T.add(*x[:12])
        T.add(*negated, T.const(4))
        T.linear_combination([(1, x[:6]), (-1, x[6:12])])


@pytest.mark.parametrize("plant", ["constant dropped", "coefficients read as 1"])
def test_a_planted_error_in_the_long_path_is_caught(monkeypatch, plant):
    original = T._sum_of_atoms

    def planted(atoms, coefs, c):
        return original(atoms, {} if plant == "coefficients read as 1" else coefs, 0 if plant == "constant dropped" else c)

    monkeypatch.setattr(T, "_sum_of_atoms", planted)
    with T.fresh_table():
        x = pool()
        ts = [T.scale(a, -1) for a in x[:10]] + [T.const(3)]
        with pytest.raises(AssertionError):
            check_sum(ts)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([1, -1, 2, -3]), st.lists(st.integers(0, 13), min_size=1, max_size=8,
                                                                    unique=True)), min_size=1, max_size=4))
def test_a_linear_combination_is_the_general_paths_term(groups):
    with T.fresh_table():
        x = pool()
        gs = [(k, [x[i] for i in idx]) for k, idx in groups]
        got = T.linear_combination(gs)
        assert got is reference([T.scale(a, k) for k, ts in gs for a in ts])


def test_a_long_sum_compared_with_an_atom_either_way_round():
    with T.fresh_table():
        x = pool()
        long = T.add(*x[:12])
        for a, b in itertools.permutations([long, x[13], T.const(5)], 2):
            for build, kind in ((T.le, T.LE), (T.lt, T.LT), (T.eq, T.EQ)):
                got = build(a, b)
                flat = reference([a, T.scale(b, -1)])
                assert got is T._construct(kind, T.BOOL, flat), (build.__name__, a, b, got)
                for seed in range(4):
                    p = point(seed)
                    va, vb = evaluate(a, p), evaluate(b, p)
                    want = {"le": va <= vb, "lt": va < vb, "eq": va == vb}[build.__name__]
                    assert evaluate(got, p) is want


# ---------------------------------------------------------------- the sympy reader

U = [sympy.Symbol(f"u{i}", integer=True) for i in range(40)]
S = sympy.Symbol("s0", integer=True)


def read_fresh(expr) -> T.Term:
    """``expr`` read as a sum from sympy's own coefficients (the oracle)."""
    coefs = expr.as_coefficients_dict()
    c = int(coefs.pop(sympy.S.One, 0))
    return T.make_linear(T.INT, {T.var(s.name, T.INT): int(v) for s, v in coefs.items()}, c)


@pytest.mark.parametrize("k", [1, -1, 4])
@pytest.mark.parametrize("with_size", [False, True])
def test_a_long_sympy_sum_is_read_as_its_coefficients_say(k, with_size):
    with T.fresh_table():
        tr = SympyToTerms()
        for u in U:
            tr(u)
        tr(S)
        for n in (9, 20, 40):
            sympy.core.cache.clear_cache()  # the k*u products rebuilt, as PyTorch's are
            e = k * sum(U[:n]) + (S - 7 if with_size else 0)
            assert tr(e) is read_fresh(e), e
            assert tr(e) is tr(e)


def test_a_long_sum_of_mixed_products_is_read_one_by_one():
    with T.fresh_table():
        tr = SympyToTerms()
        for u in U:
            tr(u)
        e = sum(U[:10]) - sum(2 * u for u in U[10:20]) + 3 * U[30] * U[31]
        got = tr(e)
        p = {u.name: i % 5 - 2 for i, u in enumerate(U)}
        assert evaluate(got, p) == int(e.subs({u: p[u.name] for u in U}))


def test_a_rollback_forgets_what_the_identity_memo_holds():
    with T.fresh_table():
        tr = SympyToTerms()
        tr(U[0])
        mark = tr.mark()
        for u in U[1:]:
            tr(u)
        tr(sum(U))
        tr.restore(mark)
        assert set(tr._by_id) == set(map(id, tr._stable))
        assert not tr._by_operands


def test_a_long_sum_rebuilt_over_the_same_operands_is_found_by_their_ids(monkeypatch):
    """PyTorch rebuilds a prefix sum equal to one read before: found by its operands' ids,
    never by sympy's ``__eq__`` (which is made to fail here); a sum over other operand
    objects (equal symbols rebuilt) is still found by equality."""
    with T.fresh_table():
        tr = SympyToTerms()
        first = sympy.Add(*U[:30])
        got = tr(first)
        rebuilt = sympy.Add._from_args(first.args)
        assert rebuilt is not first and rebuilt == first
        with monkeypatch.context() as m:
            m.setattr(sympy.Add, "__eq__", lambda self, other: pytest.fail("compared by sympy"))
            assert tr(rebuilt) is got
        other_symbols = sympy.Add._from_args(tuple(sympy.Symbol(u.name, integer=True) for u in U[:30]))
        assert tr(other_symbols) is got
        assert tr(sympy.Add._from_args(first.args[:29])) is read_fresh(sympy.Add(*first.args[:29]))


def test_a_coefficient_in_objects_sympy_did_not_share():
    """``1000*u`` products whose 1000s are distinct objects are one multiple; a ``1000/3``
    among them (the same numerator) is not read as 1000."""
    with T.fresh_table():
        tr = SympyToTerms()
        for u in U:
            tr(u)
        products = []
        for u in U[:12]:
            sympy.core.cache.clear_cache()
            products.append(sympy.Mul(sympy.Integer(1000), u))
        assert len({id(p.args[0]) for p in products}) > 1
        e = sympy.Add(*products)
        assert tr(e) is read_fresh(e)
        mixed = sympy.Add(*products[:-1], sympy.Mul(sympy.Rational(1000, 3), U[11]))
        got = tr(mixed)
        p = {u.name: 3 for u in U}
        assert evaluate(got, p) == mixed.subs({u: 3 for u in U})


def test_products_of_anything_but_a_symbol_are_read_as_products():
    """``2/y`` is ``Mul(2, Pow(y, -1))``: read by the product's own reading (a real division
    of 2 by y), not as 2 times ``1/y``, which SMT-LIB leaves free apart at ``y = 0``."""
    with T.fresh_table():
        y = sympy.Symbol("y", integer=True)
        tr = SympyToTerms()
        for u in U:
            tr(u)
        parts = [sympy.Mul(2, sympy.Pow(y, -1), evaluate=False)] + [2 * sympy.Symbol(f"v{i}", integer=True) for i in range(9)]
        e = sympy.Add(*parts)
        got = tr(e)
        one_by_one = T.add(*[SympyToTerms()(p) for p in e.args])
        assert got is one_by_one


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 13), min_size=9, max_size=14, unique=True),
       st.lists(st.tuples(st.integers(0, 15), st.sampled_from([1, -1, 2, -3])), min_size=0, max_size=4),
       st.integers(-3, 3), st.booleans())
def test_a_long_sum_compared_with_a_short_one_is_spliced(long_atoms, short, const, flip):
    """``S <= s - u``, ``-s <= S``, ``S == u + 3`` (a short side's atoms in the long one or
    not, cancelling one of its atoms or not) are spliced into ``S``'s atoms: the very term
    the general path interns, and true where the comparison is."""
    with T.fresh_table():
        x = pool()
        long = T.add(*(x[i] for i in long_atoms), T.const(2))
        other = T.add(T.const(const), *(T.scale(x[i], k) for i, k in short))
        a, b = (other, long) if flip else (long, other)
        for build, kind in ((T.le, T.LE), (T.lt, T.LT), (T.eq, T.EQ)):
            got = build(a, b)
            assert got is T._construct(kind, T.BOOL, reference([a, T.scale(b, -1)])), (build.__name__, a, b)
            for seed in range(3):
                p = point(seed)
                va, vb = evaluate(a, p), evaluate(b, p)
                assert evaluate(got, p) is {"le": va <= vb, "lt": va < vb, "eq": va == vb}[build.__name__]


def test_a_planted_error_in_the_splice_is_caught(monkeypatch):
    """Planted: an atom already in the long sum spliced in again instead of its coefficient
    adjusted (``S - u0`` keeps ``u0``)."""
    def inserts(args, coefs, atom, coef):
        i = T.bisect.bisect_left(args, atom.id, key=T._ID)
        return args[:i] + (atom,) + args[i:], coefs[:i] + (coef,) + coefs[i:]

    monkeypatch.setattr(T, "_spliced", inserts)
    with T.fresh_table():
        x = pool()
        long = T.add(*x[:10])
        with pytest.raises(AssertionError):
            assert T.le(long, x[0]) is T._construct(T.LE, T.BOOL, reference([long, T.scale(x[0], -1)]))


def extended(base: tuple, at: int, extra) -> sympy.Add:
    """The sum of ``base``'s operand objects with ``extra`` put in at ``at`` (as sympy's
    ``start + l`` does: the same operand objects, one more among them)."""
    return sympy.Add._from_args(base[:at] + (extra,) + base[at:])


@pytest.mark.parametrize("extra", ["symbol", "multiple", "constant", "product", "known"])
@pytest.mark.parametrize("at", [0, 7, 20])
def test_a_sum_that_extends_a_recent_one_is_spliced(extra, at):
    """PyTorch's next prefix sum is a recent long sum plus one operand: read as that sum's
    term plus the operand (:func:`sympy_bridge._one_more`), equal to reading it afresh; an
    operand that is no multiple of an atom (a constant, a product) is read the general way."""
    operand = {"symbol": U[35], "multiple": 4 * U[36], "constant": sympy.Integer(5), "product": U[37] * U[38],
               "known": U[3]}[extra]
    with T.fresh_table():
        tr = SympyToTerms()
        base = sympy.Add(*U[:20], -3 * S)
        tr(base)
        e = extended(base.args, at, operand)
        got = tr(e)
        if extra == "product":
            p = {u.name: i % 7 - 3 for i, u in enumerate(U)} | {S.name: 2}
            assert evaluate(got, p) == int(e.subs({u: p[u.name] for u in U} | {S: 2}))
        else:
            assert got is read_fresh(e), e


def test_a_sum_of_the_same_length_with_another_operand_is_not_an_extension(monkeypatch):
    """Two recent sums of one length fewer, each differing from the new one in one more
    place: neither is extended (their operands are not all the new sum's)."""
    with T.fresh_table():
        tr = SympyToTerms()
        first = sympy.Add(*U[:20])
        tr(first)
        swapped = sympy.Add._from_args(first.args[:5] + (U[30],) + first.args[6:])  # u5 -> u30
        tr(swapped)
        e = extended(first.args[:5] + (U[30],) + first.args[6:], 9, U[31])  # 'swapped' plus u31
        e2 = extended(first.args[:5] + (U[32],) + first.args[6:], 9, U[31])  # neither plus one
        assert tr(e) is read_fresh(e)
        assert tr(e2) is read_fresh(e2)


def test_a_planted_error_in_the_extension_is_caught(monkeypatch):
    """Planted: the operands after the new one are not compared (a sum that differs from a
    recent one there is read as its extension)."""
    from absint.readers import sympy_bridge as sb

    def planted(tr, args):
        n = len(args) - 1
        for prev, prev_term in reversed(tr._recent_long):
            before = prev._args
            if len(before) != n:
                continue
            i = next(itertools.compress(itertools.count(), map(sb.operator.is_not, args, before)), n)
            t = tr.term(args[i])
            return T.plus_atom(prev_term, t, 1)
        return None

    monkeypatch.setattr(sb, "_one_more", planted)
    with T.fresh_table():
        tr = SympyToTerms()
        first = sympy.Add(*U[:20])
        tr(first)
        e = sympy.Add._from_args(first.args[:5] + (U[30],) + first.args[5:12] + (U[31],) + first.args[13:])
        with pytest.raises(AssertionError):
            assert tr(e) is read_fresh(e)


def test_a_rollback_forgets_the_recent_sums():
    with T.fresh_table():
        tr = SympyToTerms()
        mark = tr.mark()
        tr(sympy.Add(*U[:20]))
        assert tr._recent_long
        tr.restore(mark)
        assert not tr._recent_long


def every_weighted_hash_is_the_sums_own() -> None:
    for (weighted, c), t in T._long_sums.items():
        assert T._weighted[t] == T._weighted_hash(t.args, t.data[0]), T.brief(t)
    for t, weighted in T._weighted.items():
        assert weighted == T._weighted_hash(t.args, t.data[0]), T.brief(t)


def derive_long_sums() -> None:
    """Long Int sums built every way one is derived from another: compared with numbers,
    atoms and short sums either way round, negated, divided by a gcd, one up, an atom spliced."""
    x = pool()
    long = T.add(*x[:12], T.const(3))
    doubled = T.scale(long, 4)
    for a in (long, doubled, T.neg(long)):
        for b in (T.const(5), x[13], x[0], T.sub(x[13], x[2]), T.add(x[12], x[13])):
            for build in (T.le, T.lt, T.eq, T.ge):
                build(a, b)
                build(b, a)
        T.not_(T.le(a, x[13]))
        T.plus_atom(a, x[13], 2)
        T.plus_atom(a, x[0], -1)


def test_a_derived_long_sum_is_interned_under_its_own_weighted_hash():
    """A sum derived from another gets its weighted hash from that one's in O(1): each must
    equal the hash computed from the sum's atoms and coefficients, or an equal sum built
    afresh would be a second term."""
    with T.fresh_table():
        derive_long_sums()
        assert T._long_sums
        every_weighted_hash_is_the_sums_own()


@pytest.mark.parametrize("plant", ["negation kept", "quotient not divided", "splice ignored"])
def test_a_planted_error_in_a_derived_weighted_hash_is_caught(monkeypatch, plant):
    if plant == "negation kept":
        original = T._long_difference

        def planted(a, b, negated=False):
            t = original(a, b, negated)
            if t is not None and negated:
                T._weighted[t] = T._weighted.get(a)
            return t
        monkeypatch.setattr(T, "_long_difference", planted)
    elif plant == "quotient not divided":
        monkeypatch.setattr(T, "pow", lambda g, e, m: 1, raising=False)
    else:
        monkeypatch.setattr(T, "_weighted_plus", lambda weighted, atom, coef: weighted)
    with T.fresh_table():
        with pytest.raises(AssertionError):
            derive_long_sums()
            every_weighted_hash_is_the_sums_own()
