"""A long sum's work reused from the sum one atom shorter (a jagged program's prefix sums).

PyTorch asks about ``u0 + ... + uk`` for every k of a split, each in several shapes. Four
places keep what they computed for one sum and extend it by the next atom:

* the value network's bounds of a long form's part over keys (``ValueNetwork._key_part``,
  as a ``domains.bounds.range_sum`` that counts infinities, so an atom is also taken out:
  ``-u(k+1) - ... - un`` is the one before without its first atom);
* the normal form's sum of a long form's atoms' normal forms (``NormalForm._linear``,
  the kept sum plus one atom spliced in by ``terms.plus_atom``);
* a witness point's value of a long sum (``witnesses._kept_linear_value``) and the summand a
  repair moves first (``Witnesses._fewest_readers``).

Each must give what computing afresh gives, whatever came between (a fact that narrows a
value, a point moved by a repair, a rollback); the reasoner's verdicts on prefix-sum
programs must equal those with the reuse switched off and agree with Z3. Planted errors
(a kept bound read after a value moved; a spliced coefficient not dropped at zero; a point's
kept value read after a move) are caught.
"""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.reasoning import network as N
from absint.reasoning import normal_form as NF
from absint.reasoning import witnesses as W
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Truth
from domains.bounds import linear_range, range_sum, range_sum_add, range_sum_bounds
from z3_check import z3_implies

INF = math.inf
BOUNDS = st.one_of(st.integers(-50, 50), st.fractions(-20, 20, max_denominator=4), st.just(INF), st.just(-INF))
COEFS = st.one_of(st.integers(-4, 4).filter(bool), st.fractions(-3, 3, max_denominator=3).filter(bool))


@st.composite
def ranges(draw):
    """A non-empty range: ``lo <= hi``, ``lo`` never +inf and ``hi`` never -inf."""
    a, b = draw(BOUNDS), draw(BOUNDS)
    lo, hi = min(a, b), max(a, b)
    if lo == INF or hi == -INF:
        return (0, 1)
    return lo, hi


# ---------------------------------------------------------------- domains.bounds.range_sum

@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(COEFS, ranges()), min_size=1, max_size=12), st.integers(-9, 9))
def test_range_sum_is_linear_range_and_takes_an_atom_out(terms, k):
    coefs = [c for c, _ in terms]
    rs = [r for _, r in terms]
    s = range_sum(coefs, rs)
    assert range_sum_bounds(s, k) == linear_range(coefs, k, rs)
    # one atom at a time, from the front or from the back, as the network's memo does
    grown = (0, 0, 0, 0)
    for c, r in terms:
        grown = range_sum_add(grown, c, *r)
    assert range_sum_bounds(grown, k) == linear_range(coefs, k, rs)
    rest = range_sum_add(s, coefs[0], *rs[0], times=-1)
    assert range_sum_bounds(rest, k) == linear_range(coefs[1:], k, rs[1:])


def test_range_sum_refuses_an_empty_range():
    assert range_sum([1, -1], [(0, 1), (INF, -INF)]) is None
    assert range_sum([-2], [(-INF, -INF)]) is None  # -2 * -inf is +inf for the lower bound
    assert range_sum_add((0, 0, 0, 0), 3, INF, INF) is None
    assert range_sum([-2, 1], [(0, INF), (-INF, 5)]) == (0, 2, 5, 0)


# ---------------------------------------------------------------- the network's bounds

def _plain_bounds(r: Reasoner, t: T.Term):
    """What ``linear_bounds`` gives without the memo: each atom's bounds, summed."""
    values = [r.network.key_value(a) for a in t.args]
    if any(v is None for v in values):
        return None
    return linear_range(t.data[0], t.data[1], [r.network.domain.bounds(v) for v in values])


def _lengths(n: int, upper: int | None = None) -> tuple[Reasoner, list[T.Term]]:
    """Lengths ``u_i >= 0``; with ``upper``, ``u_i <= upper + i`` for all but every fifth."""
    r = Reasoner(witnesses=False)
    us = [T.var(f"u{i}", T.INT) for i in range(n)]
    for i, u in enumerate(us):
        r.assume(T.ge(u, T.ZERO))
        if upper is not None and i % 5:
            r.assume(T.le(u, T.const(upper + i)))
    return r, us


def _prefix(us, k, coef=1, const=0):
    return T.add(T.const(const), *(T.scale(u, coef) for u in us[:k + 1]))


def test_prefix_and_suffix_bounds_equal_the_plain_sum_as_values_narrow():
    r, us = _lengths(40, upper=7)
    rng = random.Random(3)
    for k in range(20, 40):
        for t in (_prefix(us, k), _prefix(us, k, -1, 5), T.add(*(T.scale(u, -2) for u in us[40 - k:])),
                  T.add(*(u for i, u in enumerate(us[:k]) if i % 5))):  # every atom bounded both ways
            assert r.network.linear_bounds(t) == _plain_bounds(r, t), (k, t)
        if k % 4 == 0:  # a fact between questions: a kept bound of the old values must not be read
            r.assume(T.le(us[1 + 5 * rng.randrange(k // 5)], T.const(rng.randrange(0, 3))))


def test_kept_bounds_follow_a_rollback():
    r, us = _lengths(30)
    t = _prefix(us, 25)
    before = r.network.linear_bounds(t)
    with r.tentatively():
        for u in us:
            r.assume(T.le(u, T.const(3)))
        assert r.network.linear_bounds(t) == (0, 78) == _plain_bounds(r, t)
        assert r.network.linear_bounds(_prefix(us, 26)) == (0, 81)
    assert r.network.linear_bounds(t) == before == _plain_bounds(r, t)
    assert r.network.linear_bounds(_prefix(us, 26)) == _plain_bounds(r, _prefix(us, 26))


def test_an_atom_that_is_no_key_is_stood_in_for_afresh():
    r, us = _lengths(30, upper=4)
    s = T.var("s", T.INT)
    t = T.add(T.scale(s, -1), *us[:25])
    seen = []
    assert r.network.linear_bounds(t, lambda a: seen.append(a)) is None
    assert seen == [s]
    lo, hi = r.network.linear_bounds(t, lambda a: r.network.domain.top(T.INT) if a is s else None)
    assert (lo, hi) == (-INF, INF)


def test_a_kept_bound_read_after_a_value_moved_is_caught(monkeypatch):
    """Planted: the memo's stamp ignored. The narrowing test then reads stale bounds."""
    original = N.ValueNetwork._key_part

    def stale(self, atoms, coefs):
        epoch, shape = self.epoch, self.shape
        self.epoch, self.shape = 0, 0
        try:
            return original(self, atoms, coefs)
        finally:
            self.epoch, self.shape = epoch, shape

    monkeypatch.setattr(N.ValueNetwork, "_key_part", stale)
    with pytest.raises(AssertionError):
        test_prefix_and_suffix_bounds_equal_the_plain_sum_as_values_narrow()


# ---------------------------------------------------------------- the normal form's sums

def _bound_sum(n: int, size_first: bool = True) -> tuple[Reasoner, T.Term, list[T.Term]]:
    """``s = u0 + ... + u(n-1)``, ``s`` eliminated: PyTorch's split."""
    s = T.var("s", T.INT) if size_first else None
    us = [T.var(f"u{i}", T.INT) for i in range(n)]
    s = s or T.var("s", T.INT)
    r = Reasoner(witnesses=False, backed=[s])
    for u in us:
        r.assume(T.ge(u, T.ZERO))
    r.assume(T.eq(T.add(*us), s))
    return r, s, us


def _fresh_normal_form(r: Reasoner, t: T.Term) -> T.Term:
    """``t`` normalised by a normal form with ``r``'s bindings and nothing kept."""
    fresh = NF.NormalForm(None)
    for x, e in r.normal_form.bindings.items():
        fresh.bindings[x] = e
    return fresh.normalize(t)


@pytest.mark.parametrize("size_first", [True, False])
def test_prefix_sums_over_a_bound_size_normalise_as_afresh(size_first):
    """``s`` made before the lengths is the first atom of ``-s + u0 + ... + uk`` (the next
    prefix sum extends the last one); made after, the last (each is added up afresh)."""
    with T.fresh_table():
        _normalise_prefix_sums(size_first)


def _normalise_prefix_sums(size_first: bool) -> None:
    r, s, us = _bound_sum(30, size_first)
    for k in range(30):
        for t in (T.add(T.scale(s, -1), *us[:k + 1]), T.add(T.const(-1), *us[:k + 1]), T.add(s, *us[:k + 1]),
                  T.add(*(T.scale(u, 3) for u in us[:k + 1]))):
            got = r.normal_form.normalize(t)
            assert got is _fresh_normal_form(r, t), (k, t)
    assert r.normal_form.normalize(T.add(T.scale(s, -1), *us)) is T.ZERO


def _walk_afresh(nf: NF.NormalForm, t: T.Term) -> list[T.Term]:
    """``_pending`` with every long sum's atoms looked up in the memo (no shorter sum read)."""
    keep = nf._sums
    nf._sums = {}
    try:
        return nf._pending(t)
    finally:
        nf._sums = keep


def _walks_of_prefix_sums() -> None:
    """The walk of each prefix sum (its newest atom a variable the normal form has not met)
    lists what the walk over every atom lists, once the shorter sum is kept."""
    r, s, us = _bound_sum(12)
    nf = r.normal_form
    vs = [T.var(f"v{i}", T.INT) for i in range(30)]  # made in order: the newest is last by id
    kept = 0
    for k in range(10, 30):
        for t in (T.add(T.const(-1), *vs[:k + 1]), T.add(T.scale(s, -1), *us, *vs[:k + 1])):
            kept += nf._shorter_key(t) in nf._sums
            assert nf._pending(t) == _walk_afresh(nf, t), (k, t)
            assert nf.normalize(t) is _fresh_normal_form(r, t)
    assert kept >= 36


def test_a_prefix_sums_walk_looks_up_only_its_newest_atom():
    with T.fresh_table():
        _walks_of_prefix_sums()


def test_a_walk_that_skips_the_newest_atom_is_caught(monkeypatch):
    """Planted: a kept shorter sum taken to mean every atom is normal, the newest too."""
    def unknown(self, t, below):
        if t.kind == T.LIN and self._shorter_key(t) in self._sums:
            return []
        return ORIGINAL_UNKNOWN(self, t, below)

    monkeypatch.setattr(NF.NormalForm, "_unknown", unknown)
    with T.fresh_table(), pytest.raises(AssertionError):
        _walks_of_prefix_sums()


ORIGINAL_UNKNOWN = NF.NormalForm._unknown


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=3, max_size=14), st.integers(0, 16), st.integers(-3, 3),
       st.integers(-5, 5))
def test_plus_atom_is_add(coefs, which, coef, const):
    atoms = [T.var(f"p{i}", T.INT) for i in range(17)] + [T.mul(T.var("p0", T.INT), T.var("p1", T.INT))]
    t = T.add(T.const(const), *(T.scale(a, c) for a, c in zip(atoms, coefs)))
    atom = atoms[which]
    got = T.plus_atom(t, atom, coef)
    want = T.add(t, T.scale(atom, coef))
    if got is None:
        assert t.kind is not T.LIN or not coef or want.kind is not T.LIN or len(want.args) < 2
    else:
        assert got is want


def test_a_splice_that_keeps_a_zero_coefficient_is_caught(monkeypatch):
    """Planted: ``plus_atom`` keeps a coefficient that became 0: the prefix sums over the bound
    size then differ from their normal form afresh."""
    original = T.plus_atom

    def keeps_zero(t, atom, coef):
        print("PLANTED", atom, atom in t.args)
        args, (coefs, c) = t.args, t.data
        if atom in args:
            i = args.index(atom)
            return T._intern(T.LIN, T.INT, args, (coefs[:i] + (coefs[i] + coef,) + coefs[i + 1:], c))
        return original(t, atom, coef)

    monkeypatch.setattr(T, "plus_atom", keeps_zero)
    with T.fresh_table(), pytest.raises(AssertionError):
        _normalise_prefix_sums(size_first=True)


# ---------------------------------------------------------------- the witness points

def _check_points(w: W.Witnesses) -> None:
    for q in w._questions.values():
        if q.body is None:
            continue
        for p in w.points:
            if q.name_set <= p.values.keys():
                assert W._value(q, p) == W._linear_value(q, p.values)
        degrees = w._degrees(q.linear_names)
        assert w._fewest_readers(q) == degrees.index(min(degrees))


def _split_program(n: int, seed: int):
    """Facts and questions as PyTorch's split asks them: the lengths, their sum, then per
    length the questions about it and about its prefix sum in several shapes."""
    rng = random.Random(seed)
    s = T.var("s", T.INT)
    us = [T.var(f"u{i}", T.INT) for i in range(n)]
    facts = [T.ge(u, T.ZERO) for u in us] + [T.eq(T.add(*us), s)]
    if seed % 2:
        facts += [T.le(us[i], T.const(rng.randrange(1, 5))) for i in range(0, n, 4)]
    steps = []
    for k in range(n):
        prefix = T.add(*us[:k + 1])
        qs = [T.eq(prefix, T.const(2 ** 63 - 1)), T.le(prefix, s), T.ge(prefix, T.ZERO), T.le(T.add(prefix, T.ONE), T.ZERO),
              T.eq(us[k], T.ZERO), T.le(us[k], T.ONE), T.le(prefix, T.const(rng.randrange(0, 3 * n))),
              T.eq(T.add(*(T.scale(u, 4) for u in us[:k + 1])), T.const(rng.randrange(0, 8)))]
        fact = T.le(us[k], T.const(rng.randrange(3, 9))) if rng.random() < 0.3 else None
        steps.append((qs, fact))
    return s, facts, steps


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_split_verdicts_equal_those_without_reuse_and_z3(seed, monkeypatch):
    s, facts, steps = _split_program(24, seed)

    def run() -> tuple[list[Truth], list]:
        r = Reasoner(backed=[s])
        r.example({"s": 40})
        for f in facts:
            r.assume(f)
        out, asked = [], []
        for qs, fact in steps:
            for q in qs:
                out.append(r.decide(q).truth)
                asked.append((list(r.facts), q))
            _check_points(r.witnesses)
            if fact is not None:
                r.assume(fact)
        return out, asked

    with_reuse, asked = run()
    with monkeypatch.context() as m:  # every kept thing missed: computed afresh each time
        m.setattr(N.ValueNetwork, "_key_part", _key_part_afresh)
        m.setattr(NF, "LONG_SCAN", 10 ** 9)
        m.setattr(W, "LONG_LINEAR", 10 ** 9)
        without, _ = run()
    assert with_reuse == without
    rng = random.Random(seed)
    for (known, q), truth in rng.sample(list(zip(asked, with_reuse)), 12):
        if truth is Truth.TRUE:
            assert z3_implies(known, q)
        elif truth is Truth.FALSE:
            assert z3_implies(known, T.not_(q))


def _key_part_afresh(self, atoms, coefs):
    part, missing = self._key_part_anew(atoms, coefs)
    return None if part is None else (part, missing)


def test_a_point_value_follows_moves_and_undos():
    """A point's kept value of a prefix sum, and the next one's grown from it, after the point
    moved and moved back."""
    with T.fresh_table():
        us = [T.var(f"u{i}", T.INT) for i in range(40)]
        r = Reasoner()
        for u in us:
            r.assume(T.ge(u, T.ZERO))
        w = r.witnesses
        questions = [T.le(_prefix(us, k, 1, -3), T.ZERO) for k in range(20, 40)]
        r.decide(questions[0])
        compiled = [w._question(q) for q in questions]
        p = w.points[-1]
        journal: list = []
        for k, c in enumerate(compiled):
            assert W._value(c, p) == W._linear_value(c, p.values)
            if k % 3 == 0:
                w._move(p, f"u{k}", p.values[f"u{k}"] + k + 1, journal)
                assert W._value(c, p) == W._linear_value(c, p.values)
            if k % 7 == 6:
                w._undo(p, journal, 0)
                assert W._value(c, p) == W._linear_value(c, p.values)


def test_a_point_value_read_after_a_move_is_caught(monkeypatch):
    """Planted: a move leaves the point's kept sums in place."""
    def move(self, p, name, new, journal):
        journal.append((name, p.values[name]))
        p.values[name] = new

    monkeypatch.setattr(W.Witnesses, "_move", move)
    with pytest.raises(AssertionError):
        test_a_point_value_follows_moves_and_undos()


def test_a_point_covers_every_name_of_a_prefix_sum_asked():
    """A point that keeps the previous prefix sum's value is checked for the new length only
    (the others are there: a point's variables are never taken away); every point then holds
    every name of each prefix sum, a length no fact named yet included (u40 on)."""
    with T.fresh_table():
        us = [T.var(f"u{i}", T.INT) for i in range(60)]
        r = Reasoner()
        for u in us[:40]:
            r.assume(T.ge(u, T.ZERO))
        w = r.witnesses
        shortcut = 0
        for k in range(20, 60):
            for q in (T.le(_prefix(us, k, 1, -3), T.ZERO), T.eq(_prefix(us, k), T.const(2 ** 63 - 1))):
                r.decide(q)
                c = w._question(q)
                for p in w.points:
                    shortcut += c.shorter in p.memo
                    w._cover(p, c)
                    assert c.name_set <= p.values.keys(), (k, q)
                    assert W._value(c, p) == W._linear_value(c, p.values)
        assert shortcut > 40  # the kept value was there to shortcut on


def test_a_cover_that_skips_the_new_length_is_caught(monkeypatch):
    """Planted: the previous prefix sum's kept value taken to mean every name is there."""
    def cover(self, p, c):
        if c.shorter is not None and c.shorter in p.memo:
            return
        ORIGINAL_COVER(self, p, c)

    monkeypatch.setattr(W.Witnesses, "_cover", cover)
    with pytest.raises((AssertionError, KeyError)):
        test_a_point_covers_every_name_of_a_prefix_sum_asked()


ORIGINAL_COVER = W.Witnesses._cover


def test_an_open_pair_is_read_lazily_and_keeps_the_points_it_was_made_of():
    """An open prefix sum's pair names most variables: it is restricted when first read, to
    the values the points had when it was made; a short guard's is restricted at once."""
    with T.fresh_table():
        us = [T.var(f"u{i}", T.INT) for i in range(30)]
        r = Reasoner()
        for u in us:
            r.assume(T.ge(u, T.ZERO))
        v = r.decide(T.eq(T.add(*us[:25]), T.const(7)))
        assert v.truth is Truth.UNKNOWN and isinstance(v.open_at, W.OpenPair)
        eager = r.witnesses.last_pair(r.witnesses.last_names)
        for p in r.witnesses.points:  # the points move on; the pair must not
            p.values["u0"] = p.values["u0"] + 100
        true_at, false_at = v.open_at
        assert (true_at, false_at) == eager and v.open_at == eager and len(v.open_at) == 2
        assert sum(true_at.values()) == 7 and sum(false_at.values()) != 7
        short = r.decide(T.eq(us[3], T.const(1)))
        assert short.truth is Truth.UNKNOWN and isinstance(short.open_at, tuple)
        assert set(short.open_at[0]) == {"u3"}
