"""The polyhedral layer's index of the network's linear keys but differences, by first atom
(absint.reasoning.polyhedral): under random facts, questions and rollbacks, the keys it finds
inside a slice are exactly those a walk of every key finds; a planted error (keys a rollback
took back left in the index) is caught."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

import pytest

from absint.lang import terms as T
from absint.lang.kinds import LIN
from absint.reasoning import polyhedral
from absint.reasoning.reasoner import Reasoner

V = [T.var(f"v{i}", T.INT) for i in range(5)]
k = T.const
FORMS = st.tuples(st.lists(st.tuples(st.sampled_from(range(5)), st.integers(-3, 3)), min_size=2, max_size=3),
                  st.integers(-4, 4)).map(lambda p: T.add(*(T.scale(V[i], c) for i, c in p[0]), k(p[1])))
#: ("fact" | "ask", comparison), "mark" (a checkpoint) or "back" (roll back to the newest)
STEPS = st.lists(st.one_of(
    st.tuples(st.sampled_from(["fact", "ask"]), st.tuples(st.sampled_from([T.le, T.eq, T.ne]), FORMS)),
    st.sampled_from([("mark", None), ("back", None)])), max_size=14)
SLICES = st.lists(st.sets(st.sampled_from(range(5)), min_size=1), min_size=1, max_size=3)


def _walked(r: Reasoner, atoms) -> set:
    inside = set(atoms)
    return {q for q in r.network.keys() if q.kind == LIN and not T.is_difference(q)
            and all(x in inside for x in q.args)}


def check_index(steps, slices) -> None:
    r = Reasoner(cases=None, witnesses=False)  # every question reaches the layers and registers its keys
    marks = []
    for step, arg in steps:
        if step == "fact":
            compare, form = arg
            r.assume(compare(form, T.ZERO))
        elif step == "ask":
            compare, form = arg
            r.decide(compare(form, T.ZERO))
        elif step == "mark":
            marks.append(r.checkpoint())
        elif marks:
            r.rollback(marks.pop())
        if r.contradiction:
            return
        for s in slices:
            atoms = [V[i] for i in sorted(s)]
            got = r.polyhedral._other_keys_inside(atoms)
            assert len(got) == len(set(got)) and set(got) == _walked(r, atoms), (step, atoms)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(STEPS, SLICES)
def test_the_index_finds_the_keys_a_walk_finds(steps, slices):
    check_index(steps, slices)


def test_planted_error_keys_taken_back_left_in_the_index_is_caught(monkeypatch):
    monkeypatch.setattr(polyhedral.PolyhedralLayer, "_update_other_keys", _without_cuts)
    form = T.add(V[0], V[1], k(-2))
    with pytest.raises(AssertionError):
        check_index([("mark", None), ("ask", (T.le, form)), ("back", None)], [{0, 1}])


def _without_cuts(self) -> None:
    """The real update, but a rollback's cut keys stay live."""
    live = set(self._others_live)
    real_update(self)
    self._others_live |= {q for q in live if q.kind == LIN}


real_update = polyhedral.PolyhedralLayer._update_other_keys
