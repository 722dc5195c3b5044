"""A sum compared with a named sum at the end of a chain of definitions: read through a path
between two named sums and one definition's body (``DifferenceBounds.through_definitions``).
Verdicts against brute force and Z3 on random chains, planted errors caught, and the jagged
splits whose total is written over a chain of definitions proved at every size."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from absint.batch.analyze import analyze_program
from absint.lang import terms as T
from absint.lang.evaluator import truth_at
from absint.readers.smtlib import parse
from absint.reasoning import zones
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Layer, Truth
from benchmarks.generators import IMPLIED, REAL, _Builder, _lengths, build_jagged_split, sx
from z3_check import z3_implies

k = T.const
X = [T.var(f"x{i}", T.INT) for i in range(4)]
RANGE = range(-2, 3)  # every variable is bounded to it by a fact
SIGNS = st.sampled_from([1, -1])
COMPARISONS = {"le": T.le, "lt": T.lt, "ge": T.ge, "eq": T.eq, "ne": T.ne}


@st.composite
def anchored(draw):
    """Bounds on x0..x3; a named sum ``e`` of two or three of them, a chain of one to three
    named links ``d_{i+1} = d_i + c*x + k`` on it; a guard comparing a sum of some of ``e``'s
    atoms (and perhaps one more) with the chain's end."""
    facts = []
    for x in X:
        lo = draw(st.integers(-2, 2))
        facts += [T.ge(x, k(lo)), T.le(x, k(draw(st.integers(lo, 2))))]
    inner = draw(st.lists(st.sampled_from(X), min_size=2, max_size=3, unique=True))
    coefs = {x: draw(SIGNS) for x in inner}
    d = e = T.define(T.add(*(T.scale(x, v) for x, v in coefs.items()), k(draw(st.integers(-1, 1)))), name="e")
    for i in range(draw(st.integers(1, 3))):
        link = T.scale(draw(st.sampled_from(X)), draw(SIGNS))
        d = T.define(T.add(d, link, k(draw(st.integers(-1, 1)))), name=f"d{i}")
    part = draw(st.lists(st.sampled_from(inner), min_size=1, unique=True))
    total = [T.scale(x, coefs[x]) for x in part]
    if draw(st.booleans()):
        total.append(T.scale(draw(st.sampled_from(X)), draw(SIGNS)))
    s = T.add(*total, k(draw(st.integers(-2, 2))))
    make = COMPARISONS[draw(st.sampled_from(sorted(COMPARISONS)))]
    return facts, (make(s, d) if draw(st.booleans()) else make(d, s)), e.kind == "def"


def brute_force(facts, guard) -> tuple[bool, bool]:
    """(guard holds at every point of the facts, fails at every one) over RANGE."""
    holds = fails = True
    for values in itertools.product(RANGE, repeat=len(X)):
        point = {x.data: v for x, v in zip(X, values)}
        if all(truth_at(f, point) for f in facts):
            g = truth_at(guard, point)
            holds, fails = holds and g, fails and not g
    return holds, fails


def check(facts, guard, witnesses: bool = True) -> Truth:
    """absint's verdict, asserted to agree with brute force and Z3 where it decides.
    ``witnesses=False``: no witness points (they see through the definitions too, and show
    an open guard open before the layer a planted error is in is asked)."""
    r = Reasoner(cases=None, witnesses=witnesses)
    for f in facts:
        r.assume(f)
    truth = r.decide(guard).truth
    holds, fails = brute_force(facts, guard)
    if truth is Truth.TRUE:
        assert holds and z3_implies(facts, guard), (facts, guard)
    elif truth is Truth.FALSE:
        assert fails and z3_implies(facts, T.not_(guard)), (facts, guard)
    return truth


THROUGH: list[int] = [0]  # verdicts the step under test gave


@pytest.fixture
def counted(monkeypatch):
    """Count the verdicts ``through_definitions`` gives (the real method, counted)."""
    real = zones.DifferenceBounds.through_definitions

    def spy(self, g):
        r = real(self, g)
        THROUGH[0] += r is not None
        return r

    monkeypatch.setattr(zones.DifferenceBounds, "through_definitions", spy)


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(anchored())
def test_verdicts_through_a_chain_agree_with_brute_force_and_z3(counted, program):
    facts, guard, _ = program
    check(facts, guard)


def test_the_random_chains_were_decided_through_definitions():
    assert THROUGH[0] > 20, THROUGH  # runs after the property above (file order)


def _planted_program():
    """``e = x0 + x1 - 2``, ``d0 = e + x2``, ``d1 = d0 + x3`` with ``x2, x3`` in ``[-2, 0]``
    (built in the caller's fresh term table: no alias of an earlier test's definitions):
    ``x0 + x1 - 2 <= d1`` (``x2 + x3 >= 0``) holds only where both are 0."""
    x = [T.var(f"x{i}", T.INT) for i in range(4)]
    e = T.define(T.add(x[0], x[1], k(-2)), name="e")
    d1 = T.define(T.add(T.define(T.add(e, x[2]), name="d0"), x[3]), name="d1")
    facts = [T.ge(v, k(-2)) for v in x] + [T.le(x[0], k(2)), T.le(x[1], k(2)), T.le(x[2], k(0)), T.le(x[3], k(0))]
    return facts, x, d1


def test_the_planted_programs_are_open_and_their_true_cousins_proved():
    with T.fresh_table():
        facts, x, d1 = _planted_program()
        s = T.add(x[0], x[1])
        assert check(facts, T.le(T.sub(s, k(2)), d1)) is Truth.UNKNOWN
        assert check(facts, T.ge(T.sub(s, k(2)), d1)) is Truth.TRUE  # x2 + x3 <= 0
        assert check(facts, T.ge(s, T.add(d1, k(2)))) is Truth.TRUE
        assert check(facts, T.le(s, T.add(d1, k(4)))) is Truth.UNKNOWN
        assert check(facts, T.le(s, T.add(d1, k(6)))) is Truth.TRUE


def test_planted_error_a_path_read_the_wrong_way_is_caught(monkeypatch):
    """``d - e`` bounded by the path ``d -> e`` instead of ``e -> d``: ``d1 - e`` in ``[-4, 0]``
    then reads as at least 0, and the open guard comes out TRUE."""
    real = zones.DifferenceBounds._difference_bound
    monkeypatch.setattr(zones.DifferenceBounds, "_difference_bound",
                        lambda self, source, target: real(self, target, source))
    monkeypatch.setattr(zones.DifferenceBounds, "_kept_length", lambda self, source, target: None)
    with T.fresh_table():
        facts, x, d1 = _planted_program()
        with pytest.raises(AssertionError):
            check(facts, T.le(T.add(x[0], x[1], k(-2)), d1), witnesses=False)


def test_planted_error_a_body_read_without_its_constant_is_caught(monkeypatch):
    """``e``'s body without its ``-2``: ``x0 + x1 <= d1 + 4`` (``x2 + x3 >= -2``, open) then
    reads 2 less, TRUE where it fails (x2 = x3 = -2)."""
    real = zones._unfold_into
    monkeypatch.setattr(zones, "_unfold_into", lambda coefs, d, k, body: (real(coefs, d, k, body), 0)[1])
    with T.fresh_table():
        facts, x, d1 = _planted_program()
        with pytest.raises(AssertionError):
            check(facts, T.le(T.add(x[0], x[1]), T.add(d1, k(4))), witnesses=False)


# ---------------------------------------------------------------- jagged splits over chains


def _proved(gen) -> tuple[int, int, object]:
    """(implied guards, proved, reasoner) of a generated program."""
    with T.fresh_table():
        r = Reasoner()
        letters = analyze_program(parse(gen.text, f"{gen.kind}.smt2"), reasoner=r).letters
    implied = [i for i, c in enumerate(gen.claims) if c == IMPLIED]
    return len(implied), sum(letters[i] == "T" for i in implied), r


@pytest.mark.parametrize("n", [T.LONG_FORM + 8, 200])
@pytest.mark.parametrize("total", ["chain", "links"])
def test_a_jagged_split_whose_total_is_a_chain_proves_every_guard(total, n):
    implied, proved, _ = _proved(build_jagged_split(n, total=total))
    assert implied == 3 * n and proved == implied


def _narrowed(n: int):
    """torch.narrow's checks on each split of a prefix chain whose end is the total:
    ``0 <= start``, ``u_k <= size``, ``end <= size`` (the shape the issue reported open)."""
    lengths = _lengths(n, __import__("random").Random(n))
    b = _Builder("narrow", "narrowed splits")
    size = b.backed("values_size0", sum(lengths))
    us = [b.unbacked(f"u{i}", v) for i, v in enumerate(lengths)]
    starts = ["0"]
    for i, u in enumerate(us):
        starts.append(b.define(f"start{i + 1}", "Int", sx("+", starts[-1], u), exact=True))
    for u in us:
        b.guard(sx(">=", u, 0), REAL)
    b.guard(sx("=", starts[-1], size), REAL)
    for i, u in enumerate(us):
        for guard in (sx("<=", 0, starts[i]), sx("<=", u, size), sx("<=", starts[i + 1], size)):
            b.guard(guard, IMPLIED)
    return b.done()


def test_narrowed_splits_of_a_chain_are_proved():
    implied, proved, _ = _proved(_narrowed(120))
    assert proved == implied == 360


def _work(total: str) -> list[tuple[int, int]]:
    """(difference-search relaxations, network operand reads) of a jagged split of 150 and of
    300 lengths, every guard asserted proved."""
    out = []
    for n in (150, 300):
        implied, proved, r = _proved(build_jagged_split(n, total=total))
        assert proved == implied == 3 * n
        out.append((r.zones.relaxations, r.network.reads))
    return out


def test_a_chained_split_is_proved_with_work_linear_in_its_size():
    """Linear is about 2 per doubling; and the chain is walked once for all the first splits
    (a kept search), not once per split: no more relaxations than the flat form's."""
    chain, flat = _work("chain"), _work("flat")
    assert chain[1][0] / chain[0][0] < 2.3 and chain[1][1] / chain[0][1] < 2.3, chain
    assert all(c[0] <= f[0] for c, f in zip(chain, flat)), (chain, flat)


def test_planted_error_a_chain_walked_once_per_split_is_caught(monkeypatch):
    """Without the kept searches each of the 32 splits before the first named prefix walks the
    chain anew: 17 times the relaxations at 150 lengths."""
    monkeypatch.setattr(zones.DifferenceBounds, "_kept_length", lambda self, source, target: None)
    with pytest.raises(AssertionError):
        test_a_chained_split_is_proved_with_work_linear_in_its_size()
