"""A slice's polyhedron leaves out the keys its atoms' own bounds imply
(absint.reasoning.polyhedral: ``_relations``): under random facts and questions, every key
left out holds at every integer point of a box that meets the atoms' bounds (brute force), the
slice is still marked relational when it had a bounded key, and the verdicts are those of the
layer that keeps every key; a planted error (every key read as implied) is caught."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings, strategies as st

import pytest

from absint.lang import terms as T
from absint.reasoning import polyhedral
from absint.reasoning.reasoner import Reasoner

V = [T.var(f"v{i}", T.INT) for i in range(3)]
k = T.const
BOX = range(-6, 7)
FORMS = st.tuples(st.lists(st.tuples(st.sampled_from(range(3)), st.integers(-3, 3)), min_size=1, max_size=3),
                  st.integers(-5, 5)).map(lambda p: T.add(*(T.scale(V[i], c) for i, c in p[0]), k(p[1])))
#: a variable's bounds (a question's keys are then often bounded by its atoms' bounds alone)
BOUNDS = st.tuples(st.sampled_from(range(3)), st.integers(-4, 0), st.integers(0, 4)).map(
    lambda b: [("fact", T.ge, T.add(V[b[0]], k(-b[1]))), ("fact", T.le, T.add(V[b[0]], k(-b[2])))])
STEPS = st.tuples(st.lists(BOUNDS, max_size=3),
                  st.lists(st.tuples(st.sampled_from(["fact", "ask"]), st.sampled_from([T.le, T.eq, T.ne]), FORMS),
                           max_size=10)).map(lambda p: [step for b in p[0] for step in b] + p[1])


def _reasoner(steps) -> Reasoner | None:
    r = Reasoner(cases=None, witnesses=False)  # every question reaches the layers and registers its keys
    for step, compare, form in steps:
        (r.assume if step == "fact" else r.decide)(compare(form, T.ZERO))
        if r.contradiction:
            return None
    return r


def check_left_out_keys_are_implied(steps) -> int:
    """The number of keys left out, each checked implied by the atoms' bounds over ``BOX``."""
    r = _reasoner(steps)
    if r is None:
        return 0
    layer, left_out = r.polyhedral, 0
    for atoms in ([V[0], V[1]], [V[0], V[2]], list(V)):
        s = layer._constraints(atoms)
        bounds = [c for c in s.constraints if len(c.coefs) == 1 and c.coefs[0][0] < len(atoms)]
        kept = set(s.constraints)
        keys = list(layer._bounded_keys(atoms, s.index))
        if keys:
            assert s.relational, atoms
        for q, lo, hi in keys:
            rows = polyhedral._within(dict(zip(q.args, q.data[0])), q.data[1], lo, hi, s.index)
            if set(rows) <= kept:
                continue
            left_out += 1
            for p in itertools.product(BOX, repeat=len(atoms)):
                point = list(p) + [0] * (s.n_dims - len(atoms))
                if all(c.holds_at(point) for c in bounds):
                    assert all(c.holds_at(point) for c in rows), (q, lo, hi, p)
    return left_out


LEFT_OUT = [0]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(STEPS)
def test_a_key_left_out_of_a_slice_is_implied_by_its_atoms_bounds(steps):
    LEFT_OUT[0] += check_left_out_keys_are_implied(steps)


def test_the_random_programs_left_keys_out():
    assert LEFT_OUT[0] > 10, LEFT_OUT  # runs after the property above (file order)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(STEPS, st.tuples(st.sampled_from([T.le, T.eq, T.ne]), FORMS))
def test_verdicts_are_those_of_the_layer_keeping_every_key(steps, question):
    compare, form = question
    plain = _reasoner(steps)
    if plain is None:
        return
    with pytest.MonkeyPatch.context() as mp:  # every key kept (hypothesis takes no fixture)
        mp.setattr(polyhedral.PolyhedralLayer, "_box_implies", lambda self, q, lo, hi: False)
        kept_all = _reasoner(steps)
        want = kept_all.decide(compare(form, T.ZERO)).truth
    assert plain.decide(compare(form, T.ZERO)).truth is want


def test_planted_error_every_key_read_as_implied_is_caught(monkeypatch):
    # v0 - v1 <= 0 is not implied by v0, v1 in [0, 5]: leaving it out is caught
    steps = [("fact", T.ge, V[0]), ("fact", T.le, T.add(V[0], k(-5))), ("fact", T.ge, V[1]),
             ("fact", T.le, T.add(V[1], k(-5))), ("fact", T.le, T.sub(V[0], V[1]))]
    assert check_left_out_keys_are_implied(steps) == 0
    monkeypatch.setattr(polyhedral.PolyhedralLayer, "_box_implies", lambda self, q, lo, hi: True)
    with pytest.raises(AssertionError):
        check_left_out_keys_are_implied(steps)
