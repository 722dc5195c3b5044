"""A named sum written out where the program could have used its name (the metamorphic
``name-shared`` form of a jagged split: the total used once, so not named, while the chain of
prefixes ending in it is): a guard over it is read with the sum folded back into the name
(``DifferenceBounds._split``), and an equality that binds a variable to it binds the name
(``Facts._substitute``). Verdicts against brute force and Z3 on random chains, each rule's
planted error caught, the jagged split's name-shared form proved at every split with work
linear in its size."""

from __future__ import annotations

import itertools

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from absint.analysis import analyze_program
from absint.lang import terms as T
from absint.lang.evaluator import evaluate, truth_at
from absint.metamorphic.check import rewritten
from absint.metamorphic.rewrites import REWRITES
from absint.readers.smtlib import parse
from absint.reasoning import zones
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Truth
from benchmarks.generators import IMPLIED, build_jagged_split
from term_strategies import written_out
from z3_check import z3_implies

k = T.const
NAMES = [f"x{i}" for i in range(4)]
RANGE = range(-2, 3)  # every x is bounded inside it by a fact
COMPARISONS = [T.le, T.lt, T.ge, T.eq, T.ne]


@st.composite
def recipes(draw):
    """Bounds on x0..x3 (a lower one, and an upper one or none: sizes); a named sum ``e`` of
    two or three of them (coefficients ±1, a constant), a chain of one to three named links
    on it; a named sum of the chain compared with another written out ``m`` times (``m`` = 1
    or -1 mostly: a difference once folded). Unbounded links are what leave the comparison
    to the fold: read through ``e``'s body the rest of the chain has no upper bound."""
    bounds = []
    for _ in NAMES:
        lo = draw(st.integers(-2, 2))
        bounds.append((lo, draw(st.one_of(st.none(), st.none(), st.integers(lo, 2)))))
    atoms = draw(st.lists(st.integers(0, 3), min_size=2, max_size=3, unique=True))
    return {"bounds": bounds, "base": [(i, draw(st.sampled_from([1, -1]))) for i in atoms],
            "base_c": draw(st.integers(-2, 2)),
            "links": draw(st.lists(st.tuples(st.integers(0, 3), st.sampled_from([1, -1]), st.integers(-1, 1)),
                                   min_size=1, max_size=3)),
            "left": draw(st.integers(0, 3)), "right": draw(st.integers(0, 3)),
            "m": draw(st.sampled_from([1, 1, -1, 2])), "c": draw(st.integers(-3, 3)),
            "make": draw(st.integers(0, len(COMPARISONS) - 1)), "swap": draw(st.booleans())}


def build(recipe):
    """(x0..x3, their bounds, the chain of named sums, the named sum compared, the written-out
    one); inside the caller's fresh table."""
    x = [T.var(n, T.INT) for n in NAMES]
    facts = [T.ge(v, k(lo)) for v, (lo, _) in zip(x, recipe["bounds"])]
    facts += [T.le(v, k(hi)) for v, (_, hi) in zip(x, recipe["bounds"]) if hi is not None]
    defs = [T.define(T.add(*(T.scale(x[i], v) for i, v in recipe["base"]), k(recipe["base_c"])), name="e")]
    for i, v, c in recipe["links"]:
        d = T.define(T.add(defs[-1], T.scale(x[i], v), k(c)), name=f"d{len(defs)}")
        if d.kind != "def":
            break
        defs.append(d)
    left = defs[recipe["left"] % len(defs)]
    written = T.scale(written_out(defs[recipe["right"] % len(defs)]), recipe["m"])
    return x, facts, defs, left, written


def compared(recipe, a: T.Term, b: T.Term) -> T.Term:
    make = COMPARISONS[recipe["make"]]
    a = T.add(a, k(recipe["c"]))
    return make(b, a) if recipe["swap"] else make(a, b)


def brute_force(facts, guard, derived=None) -> tuple[bool, bool]:
    """(guard holds at every point of the facts, fails at every one): x0..x3 over RANGE (all
    the points where every x is bounded inside it, some of them otherwise: Z3 is the exact
    referee), each ``derived`` variable at the value of its term there."""
    holds = fails = True
    for values in itertools.product(RANGE, repeat=len(NAMES)):
        point = dict(zip(NAMES, values))
        for name, term in (derived or {}).items():
            point[name] = evaluate(term, point)
        if all(truth_at(f, point) for f in facts):
            g = truth_at(guard, point)
            holds, fails = holds and g, fails and not g
    return holds, fails


def check(facts, guard, derived=None, backed=(), relational=True) -> Truth:
    """absint's verdict (the layers', no witness points; no isl unless ``relational``),
    asserted to agree with brute force and Z3 where it decides."""
    r = Reasoner(cases=None, witnesses=False, backed=backed, relational=relational)
    for f in facts:
        r.assume(f)
    if r.contradiction:
        return Truth.UNKNOWN
    truth = r.decide(guard).truth
    holds, fails = brute_force(facts, guard, derived)
    if truth is Truth.TRUE:
        assert holds and z3_implies(facts, guard), (facts, guard)
    elif truth is Truth.FALSE:
        assert fails and z3_implies(facts, T.not_(guard)), (facts, guard)
    return truth


# ---------------------------------------------------------------- a guard over a written-out sum


FOLDED_GUARDS: list[int] = [0]  # guards decided without isl only because the sum was folded


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(recipes())
def test_a_guard_over_a_written_out_sum_agrees_with_brute_force_and_z3(recipe):
    """With isl and without it (isl decides these small cases by itself; in a long chain the
    slice is too large, and the fold is what decides)."""
    with T.fresh_table():
        _, facts, _, left, written = build(recipe)
        guard = compared(recipe, left, written)
        check(facts, guard)
        if check(facts, guard, relational=False) is not Truth.UNKNOWN:
            real = zones.fold_named
            zones.fold_named = lambda t: None
            try:
                FOLDED_GUARDS[0] += check(facts, guard, relational=False) is Truth.UNKNOWN
            finally:
                zones.fold_named = real


def test_the_random_guards_were_decided_through_the_fold():
    assert FOLDED_GUARDS[0] > 15, FOLDED_GUARDS  # runs after the property above (file order)


def _planted_program():
    """``e = x0 + x1 - 2``, ``d = e + x2`` with ``x2`` in ``[0, 2]``: ``x0 + x1 - 2 < d`` (that
    is ``x2 > 0``) is open, ``x0 + x1 - 2 <= d`` holds."""
    x = [T.var(n, T.INT) for n in NAMES]
    e = T.define(T.add(x[0], x[1], k(-2)), name="e")
    d = T.define(T.add(e, x[2]), name="d")
    facts = [f for v in x for f in (T.ge(v, k(-2)), T.le(v, k(2)))] + [T.ge(x[2], k(0))]
    return x, facts, e, d, T.add(x[0], x[1], k(-2))


def test_the_planted_program_is_read_through_the_fold():
    with T.fresh_table():
        x, facts, e, d, written = _planted_program()
        assert check(facts, T.le(written, d)) is Truth.TRUE
        assert check(facts, T.lt(written, d)) is Truth.UNKNOWN
        assert check(facts, T.le(T.add(written, k(3)), d)) is Truth.FALSE


def test_planted_error_a_guard_folded_without_the_definitions_constant_is_caught(monkeypatch):
    """The fold as if ``e`` had no constant: ``x0 + x1 - 2`` read as ``e - 2``, so
    ``x0 + x1 - 2 < d`` as ``x2 > -2``: TRUE where it fails (``x2 = 0``)."""
    row, = T._FOLDING
    monkeypatch.setattr(T, "_FOLDING", (attrs.evolve(row, result=lambda m, again: T.add(row.result(m, again), k(-2))),))
    with T.fresh_table():
        x, facts, e, d, written = _planted_program()
        with pytest.raises(AssertionError):
            check(facts, T.lt(written, d))


# ---------------------------------------------------------------- a variable bound to a written-out sum


BOUND_BY_NAME: list[int] = [0]  # bindings to a named sum


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(recipes())
def test_a_variable_bound_to_a_written_out_sum_agrees_with_brute_force_and_z3(recipe):
    """``y = m*W`` (``W`` a named sum written out; ``y`` backed, eliminated first, as PyTorch's
    input size is), then the chain's named sum compared with ``y``."""
    with T.fresh_table():
        _, facts, _, left, written = build(recipe)
        y = T.var("y", T.INT)
        guard = compared(recipe, left, y)
        r = Reasoner(cases=None, witnesses=False, backed=[y])
        r.assume(T.eq(y, written))
        bound = r.normal_form.bindings.get(y)
        BOUND_BY_NAME[0] += bound is not None and any(s.kind == "def" for s in T.subterms(bound))
        check([*facts, T.eq(y, written)], guard, derived={"y": written}, backed=[y])


def test_the_random_variables_were_bound_to_named_sums():
    assert BOUND_BY_NAME[0] > 50, BOUND_BY_NAME  # runs after the property above (file order)


def test_a_written_out_total_binds_the_input_size_to_the_chains_end():
    with T.fresh_table():
        x, facts, e, d, written = _planted_program()
        y = T.var("y", T.INT)
        r = Reasoner(cases=None, witnesses=False, backed=[y])
        for f in facts:
            r.assume(f)
        r.assume(T.eq(y, T.sub(written, k(1))))
        assert r.normal_form.bindings[y] is T.sub(e, k(1))
        assert r.decide(T.lt(y, d)).truth is Truth.TRUE  # e - 1 < e + x2: one definition apart


def test_planted_error_a_binding_one_off_is_caught(monkeypatch):
    """The binding's fold one less than the sum (the guards' fold right): ``y = x0 + x1 - 2``
    bound to ``e - 1``, so ``y < d`` (that is ``x2 > 0``, open) reads as ``x2 > -1``: TRUE."""
    real = T.fold_named
    monkeypatch.setattr(T, "fold_named", lambda t: None if (f := real(t)) is None else T.sub(f, k(1)))
    with T.fresh_table():
        x, facts, e, d, written = _planted_program()
        y = T.var("y", T.INT)
        assert check([*facts, T.eq(y, written)], T.le(y, d), derived={"y": written}, backed=[y]) is Truth.TRUE
        with pytest.raises(AssertionError):
            check([*facts, T.eq(y, written)], T.lt(y, d), derived={"y": written}, backed=[y])


# ---------------------------------------------------------------- the jagged split, its shared sums named


def _name_shared(n: int):
    """(implied guards of the jagged split of ``n`` lengths, those proved in its name-shared
    form, the reasoner that analysed that form)."""
    gen = build_jagged_split(n, seed=1)
    text = rewritten(gen.text, REWRITES["name-shared"].apply)
    with T.fresh_table():
        r = Reasoner()
        letters = analyze_program(parse(text, "j.smt2"), reasoner=r).letters
    implied = [i for i, c in enumerate(gen.claims) if c == IMPLIED]
    return len(implied), sum(letters[i] == "T" for i in implied), r


@pytest.mark.parametrize("n", [40, 80, 200])
def test_the_name_shared_jagged_split_proves_every_guard(n):
    implied, proved, _ = _name_shared(n)
    assert implied == 3 * n and proved == implied


def _reads() -> list[int]:
    """Network operand reads of the name-shared jagged split at 150 and 300 lengths."""
    return [_name_shared(n)[2].network.reads for n in (150, 300)]


def test_the_name_shared_jagged_split_costs_work_linear_in_its_size():
    """About 2 per doubling: ``values_size0`` bound to the chain's end, each guard and fact is a
    difference of two named sums, as in the original (a sum of ``n`` atoms each: quadratic)."""
    reads = _reads()
    assert reads[1] / reads[0] < 2.3, reads


def test_planted_error_the_total_bound_written_out_is_caught(monkeypatch):
    """Without the binding's fold each fact is a sum of ``n`` atoms: 4 times the reads per
    doubling."""
    real = T.fold_named
    monkeypatch.setattr(T, "fold_named", lambda t: None)
    monkeypatch.setattr(zones, "fold_named", real)  # the guards' fold kept: every guard proved
    with pytest.raises(AssertionError):
        test_the_name_shared_jagged_split_costs_work_linear_in_its_size()
