"""Layer 2: isl polyhedra on slices, packing, symbolic bounds."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Layer, Truth
from domains.packing import UnionFind, nearest_slice
from domains.polyhedra import LinearConstraint as C
from domains.polyhedra import Polyhedron

u0, u1, u2, s0, s1 = (T.var(n, T.INT) for n in ("u0", "u1", "u2", "s0", "s1"))
k = T.const


# ---------------------------------------------------------------- polyhedra

def test_polyhedron_entails_transitive_bound():
    p = Polyhedron(3)
    p.add(C(((0, -1), (1, 1)), 0))  # x0 <= x1
    p.add(C(((1, -1), (2, 1)), 0))  # x1 <= x2
    assert p.entails(C(((0, -1), (2, 1)), 0)) is True
    assert p.entails(C(((0, 1), (2, -1)), 0)) is False


def test_polyhedron_reasons_over_the_integers():
    p = Polyhedron(1)
    p.add(C(((0, 2),), -1))   # 2x >= 1
    p.add(C(((0, -2),), 1))   # 2x <= 1: rationally x = 1/2, no integer
    assert p.is_empty() is True


def test_polyhedron_out_of_operations_is_unknown_not_an_answer():
    p = Polyhedron(6, max_operations=1)
    for i in range(5):
        p.add(C(((i, -1), (i + 1, 1)), 0))
    assert p.entails(C(((0, -1), (5, 1)), 0)) is None


def test_parametric_maximum_gives_the_pieces_of_a_minimum():
    p = Polyhedron(1, n_params=2)  # x0 <= p0 and x0 <= p1 - 1
    p.add(C(((0, 1),), 0))
    p.add(C(((0, -1), (1, 1)), 0))
    p.add(C(((0, -1), (2, 1)), -1))
    pieces = p.parametric_maximum(((0, 1),), 0)
    assert {(pc[0], pc[1], c) for _, pc, c, _ in pieces} == {(0, 1, -1), (1, 0, 0)}


def test_big_coefficients_are_exact():
    p = Polyhedron(1)
    big = 2**80 + 3
    p.add(C(((0, 1),), -big))       # x >= big
    assert p.entails(C(((0, 1),), -big + 1)) is True    # x >= big - 1
    assert p.entails(C(((0, 1),), -big - 1)) is False   # x >= big + 1


# ---------------------------------------------------------------- packing

def test_union_find_blocks():
    uf = UnionFind()
    uf.union("a", "b")
    uf.union("c", "d")
    assert uf.find("a") == uf.find("b") and uf.find("a") != uf.find("c")
    uf.union("b", "c")
    assert uf.block_size("d") == 4 and not uf.related("e")


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.lists(st.integers(0, 9), max_size=5), max_size=8), st.booleans())
def test_union_all_joins_as_pairwise_unions_do(groups, journaled):
    """``union_all`` (which returns early when its items already share a block) gives the
    blocks, sizes and undo of one ``union`` per item, by brute force over small groups."""
    fast, slow = UnionFind(), UnionFind()
    marks = (fast.start_journal(), slow.start_journal()) if journaled else None
    for g in groups:
        fast.union_all(g)
        for x in g[1:]:
            slow.union(g[0], x)
        for a in range(10):
            assert fast.block_size(a) == slow.block_size(a)
            for b in range(10):
                assert (fast.find(a) is fast.find(b)) == (slow.find(a) is slow.find(b))
    if journaled:
        fast.undo_to(marks[0])
        slow.undo_to(marks[1])
        assert all(fast.block_size(a) == slow.block_size(a) == 1 for a in range(10))


def test_nearest_slice_stops_at_the_weight_limit_nearest_first():
    chain = {i: [i - 1, i + 1] for i in range(100)}
    got = nearest_slice([50], lambda i: chain[i], limit=5)
    assert got[0] == 50 and set(got) == {48, 49, 50, 51, 52}


# ---------------------------------------------------------------- the layer through the reasoner

def test_chain_of_weighted_inequalities_is_decided_by_polyhedra(reasoner_with):
    v = reasoner_with(T.le(T.scale(u0, 2), u1), T.le(u1, u2)).decide(T.le(T.scale(u0, 2), u2))
    assert v.truth is Truth.TRUE and v.by is Layer.POLYHEDRA  # 2*u0 - u1 is no difference: not zones


def test_sum_of_nonnegative_parts_bounds_each_partial_sum(reasoner_with):
    facts = [T.ge(u, k(0)) for u in (u0, u1, u2)] + [T.eq(T.add(u0, u1, u2), s0)]
    r = reasoner_with(*facts)
    assert r.decide(T.le(T.add(u0, u1), s0)).truth is Truth.TRUE
    assert r.decide(T.gt(T.add(u0, u1), s0)).truth is Truth.FALSE


def test_guard_not_implied_stays_unknown(reasoner_with):
    r = reasoner_with(T.le(u0, u1), T.le(u1, u2))
    assert r.decide(T.le(u2, u0)).truth is Truth.UNKNOWN


def test_product_bound_links_factor_and_product(reasoner_with):
    # u0 <= s0*s1 with s1 in [1, 4] and s0 <= 10: u0 <= 40 needs the product's McCormick link
    r = reasoner_with(T.ge(s0, k(0)), T.le(s0, k(10)), T.ge(s1, k(1)), T.le(s1, k(4)), T.le(u0, T.mul(s0, s1)))
    assert r.decide(T.le(u0, k(40))).truth is Truth.TRUE


# ---------------------------------------------------------------- symbolic bounds

def test_upper_bound_of_a_nonzero_size_is_the_product(reasoner_with):
    r = reasoner_with(T.ge(s0, k(1)), T.ge(s1, k(1)), T.ge(u0, k(0)), T.le(u0, T.mul(s0, s1)))
    assert r.upper_bound(u0, [s0, s1]) == [T.mul(s0, s1)]
    assert r.lower_bound(u0, [s0, s1]) == [k(0)]


def test_upper_bound_shaped_like_a_minimum_reports_both_pieces(reasoner_with):
    r = reasoner_with(T.ge(u0, k(0)), T.le(u0, s0), T.le(u0, T.sub(s1, k(1))))
    pieces = r.upper_bound(u0, [s0, s1])
    assert pieces is not None and set(pieces) == {s0, T.sub(s1, k(1))}


def test_upper_bound_without_any_fact_is_none():
    assert Reasoner().upper_bound(u0, [s0]) is None


def test_numeric_upper_bound_when_no_symbol_is_given(reasoner_with):
    r = reasoner_with(T.le(u0, k(7)))
    assert r.upper_bound(u0, []) == [k(7)]


# ---------------------------------------------------------------- witnesses and the box

_RANGE = range(-3, 4)


def _points(n: int):
    if n == 0:
        yield ()
        return
    for rest in _points(n - 1):
        for v in _RANGE:
            yield rest + (v,)


_constraint = st.builds(
    lambda coefs, const, eq: C(tuple((i, c) for i, c in enumerate(coefs) if c), const, eq),
    st.lists(st.integers(-2, 2), min_size=2, max_size=2), st.integers(-4, 4), st.booleans())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), _constraint), min_size=1, max_size=10))
def test_satisfiable_and_entails_agree_with_brute_force_over_a_box(steps):
    """Witness points and the box answer many questions without isl. Facts added and
    questions asked in turn on one polyhedron (later questions read the witnesses of
    earlier ones, added facts must drop them): each answer is checked against every
    integer point of the box ``-3 <= x, y <= 3`` that satisfies the facts so far; after a
    fact, every earlier question is asked again."""
    check_steps(steps)


def check_steps(steps) -> None:
    p = Polyhedron(2)
    p.add_all([C(((i, 1),), 3) for i in range(2)] + [C(((i, -1),), 3) for i in range(2)])
    facts: list = []
    asked: list = []
    for is_fact, c in steps:
        if is_fact:
            p.add(c)
            facts.append(c)
        else:
            asked.append(c)
        inside = [x for x in _points(2) if all(f.holds_at(x) for f in facts)]
        for q in asked if is_fact else [c]:
            assert p.satisfiable_with(q) == any(q.holds_at(x) for x in inside)
            assert p.entails(q) == all(q.holds_at(x) for x in inside)


#: x >= 1 asked (isl's point kept), then x <= 0 added, then x >= 1 asked again; and the
#: box's case: x == 0 under 2x + 1 >= 0 (its lower bound rounds up to 0, not 1)
STALE_WITNESS = [(False, C(((0, 1),), -1)), (True, C(((0, -1),), 0))]
BOX_ROUNDING = [(True, C(((0, 2),), 1)), (False, C(((0, 1),), 0, True))]


def test_a_witness_answers_without_isl_and_is_dropped_when_a_constraint_is_added():
    p = Polyhedron(2)
    p.add_all([C(((0, 1),), 0), C(((1, 1),), 0), C(((0, -1), (1, -1)), 10)])  # x, y >= 0, x + y <= 10
    assert p.satisfiable_with(C(((0, 1),), -1)) is True  # x >= 1: isl's point kept
    assert p._witnesses
    p.add(C(((0, -1),), 0))  # x <= 0
    assert not p._witnesses
    assert p.satisfiable_with(C(((0, 1),), -1)) is False


def test_planted_error_a_stale_witness_is_caught(monkeypatch):
    """Witnesses kept across an added constraint (what the clear in ``add`` prevents)."""
    def add_keeping_witnesses(self, c):
        self.bset = self.bset.add_constraint(self._constraint(c))
        if len(c.coefs) == 1:
            self._bound(c)

    monkeypatch.setattr(Polyhedron, "add", add_keeping_witnesses)
    check_steps(BOX_ROUNDING)  # the planted error is the stale point alone
    with pytest.raises(AssertionError):
        check_steps(STALE_WITNESS)


def test_planted_error_a_box_rounded_the_wrong_way_is_caught(monkeypatch):
    """A lower bound one too high (``2x + 1 >= 0`` read as ``x >= 1``)."""
    right = Polyhedron._bound

    def one_too_high(self, c):
        right(self, c)
        box = self._box[c.coefs[0][0]]
        if box[0] is not None:
            box[0] += 1

    monkeypatch.setattr(Polyhedron, "_bound", one_too_high)
    check_steps(STALE_WITNESS)
    with pytest.raises(AssertionError):
        check_steps(BOX_ROUNDING)


def test_a_numeral_of_many_thousand_digits_is_exact_without_recursion():
    """The reader accepts any numeral; isl's integers were built recursively, one level per
    62 bits (a RecursionError at about 20,000 digits, and the file lost every verdict)."""
    big = 10**30000 + 7
    p = Polyhedron(1)
    p.add(C(((0, 1),), -big))  # x >= big
    assert p.entails(C(((0, 1),), -big + 1)) is True
    assert p.entails(C(((0, 1),), -big - 1)) is False
    p.add(C(((0, -1),), big))  # x <= big: x == big
    assert p.satisfiable_with(C(((0, 1),), -big, True)) is True


# ---------------------------------------------------------------- probes near the lower bounds

#: x, y in [-3, 3] (the box of check_steps), x + y <= -4; two questions the first points
#: miss, then x + y >= -2, which no point of the polyhedron satisfies
PROBE_CASE = [(True, C(((0, -1), (1, -1)), -4)), (False, C(((0, 1),), 3, True)), (False, C(((1, 1),), 3, True)),
              (False, C(((0, 1), (1, 1)), 2))]


def test_planted_error_a_probe_outside_the_polyhedron_is_caught(monkeypatch):
    """A probe that keeps a point of the box alone (every variable 2 above its lower bound,
    the polyhedron's other constraints ignored): the brute-force check above catches it."""
    def box_only(self):
        self._probed = True
        self._keep(tuple((lo if lo is not None else 0) + 2 for lo, _ in (self._box.get(i, (None, None))
                                                                       for i in range(self.n))))
        return True

    check_steps(PROBE_CASE)
    monkeypatch.setattr(Polyhedron, "_probe", box_only)
    with pytest.raises(AssertionError):
        check_steps(PROBE_CASE)


def test_probes_answer_the_same_few_questions_of_every_variable_without_isl(monkeypatch):
    """PyTorch's questions of each size of a split (``u >= 1``, ``u >= 2``, ``u == 0``,
    ``u == 1``) over ``u_i >= 0, sum == 100``: with the probes, isl is asked a few times
    for the whole polyhedron, not once or twice per variable; the answers are the same."""
    import domains.polyhedra as polyhedra

    def run() -> tuple[list, int]:
        p = Polyhedron(8)
        p.add_all([C(((i, 1),), 0) for i in range(8)] + [C(tuple((i, 1) for i in range(8)), -100, True)])
        calls = [0]
        real = p._guarded

        def counted(call):
            calls[0] += 1
            return real(call)

        p._guarded = counted
        answers = [p.satisfiable_with(q) for i in range(8)
                   for q in (C(((i, 1),), -1), C(((i, 1),), -2), C(((i, 1),), 0, True), C(((i, 1),), -1, True))]
        return answers, calls[0]

    with_probes, probed_calls = run()
    monkeypatch.setattr(polyhedra, "PROBE_AFTER_MISSES", 10**9)
    without, plain_calls = run()
    assert with_probes == without and all(with_probes)
    assert probed_calls < plain_calls / 2, (probed_calls, plain_calls)


#: x, y >= 0, x + y == 6 as two inequalities (no single-variable bound pins x + y)
_SUM_OF_SIX = [C(((0, 1),), 0), C(((1, 1),), 0), C(((0, 1), (1, 1)), -6), C(((0, -1), (1, -1)), 6)]


_EQ6, _X_IS_2 = C(((0, 1), (1, 1)), -6, True), C(((0, 1),), -2, True)
#: what the polyhedral layer asks of a guard: an entailed equality (isl asked of both
#: sides, both empty), and an open one followed by whether it can hold
_QUESTIONS = [lambda p: [p.entails(_EQ6)],
              lambda p: [p.entails(_X_IS_2), p.satisfiable_with(_X_IS_2, same_question=True)]]


def _sum_of_six() -> Polyhedron:
    p = Polyhedron(2)
    p.add_all(_SUM_OF_SIX)
    return p


def test_one_question_never_probes_though_isl_is_asked_of_both_sides():
    """On the corpus each polyhedron is asked one question: counting each side of an
    equality as a miss of its own made every one of them pay for the probes (two more
    sample points and their coordinates). A fresh polyhedron per question: no probe; the
    same questions asked of one polyhedron probe at the second."""
    for question, answer in zip(_QUESTIONS, ([True], [False, True])):
        p = _sum_of_six()
        assert question(p) == answer
        assert not p._probed
    p = _sum_of_six()
    assert [a for question in _QUESTIONS for a in question(p)] == [True, False, True]
    assert p._probed


def test_planted_error_each_side_counted_as_a_question_is_caught(monkeypatch):
    """``entails`` counting each side of an equality as its own question (the cost this
    removed): the first question alone then probes, which the test above catches."""
    def each_side_a_question(self, c, same_question=False):
        for neg in c.negated():
            possible = self.satisfiable_with(neg)
            if possible is None or possible:
                return None if possible is None else False
        return True

    monkeypatch.setattr(Polyhedron, "entails", each_side_a_question)
    with pytest.raises(AssertionError):
        test_one_question_never_probes_though_isl_is_asked_of_both_sides()


def test_a_witness_too_large_to_read_is_dropped_not_raised():
    """isl's sample of an unbounded set can have a coordinate of tens of thousands of
    digits, which islpy cannot convert (it reads an int from a string, past Python's
    limit): the point is dropped from the witnesses and the question goes to isl."""
    huge = 10 ** 6000
    p = Polyhedron(1)
    p.add(C(((0, 1),), -huge, True))  # x == 10**6000
    assert p.satisfiable_with(C(((0, 1),), 0)) is True  # x >= 0: isl's point kept
    assert p.satisfiable_with(C(((0, 1),), 0)) is True  # the point unreadable: dropped, isl asked again
    assert p._witness_coordinates() == []
    assert p.satisfiable_with(C(((0, -1),), 0)) is False  # x <= 0
