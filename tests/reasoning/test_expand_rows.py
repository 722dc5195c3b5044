"""The decision step that multiplies an open comparison out and meets its monomials with the
rule table's expand rows (``Reasoner._multiplied_out``): it decides PyTorch's slice question
(brute force and Z3 agree), the layers alone leave it open, and facts never meet the rows.
The rows' own Z3 property and planted errors are in test_rules_soundness.py."""

from __future__ import annotations

import itertools

from absint.lang import terms as T
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Truth
from verdict_checks import check_verdicts

I = T.INT
start, stop, step, size = (T.var(n, I) for n in ("s11", "s32", "s16", "s77"))
c = T.const
#: PyTorch's test_slice_with_tensor_indices: a size, a step >= 1, 0 <= start <= stop <= size
SLICE = [T.ge(size, c(2)), T.ge(step, c(1)), T.ge(start, c(0)), T.le(start, size), T.ge(stop, c(0)),
         T.le(stop, size), T.le(start, stop)]
#: the slice's length: ceil((stop - start)/step), as PyTorch's ite of two floor divisions
LENGTH = T.ite(T.ge(step, c(1)), T.div(T.add(T.sub(stop, start), step, c(-1)), step),
               T.div(T.add(T.sub(start, stop), T.neg(step), c(1)), T.neg(step)))
#: the last element's offset past the size: PyTorch asks whether it can be <= 0
QUESTION = T.le(T.sub(T.sub(size, start), T.mul(step, T.sub(LENGTH, c(1)))), T.ZERO)
POINTS = [dict(zip(("s11", "s32", "s16", "s77"), p))
          for p in itertools.product(range(0, 7), range(0, 7), range(1, 5), range(2, 7))]


def test_the_slice_question_is_refuted_and_brute_force_and_z3_agree():
    assert check_verdicts(SLICE, QUESTION, POINTS) is Truth.FALSE


def test_the_layers_alone_leave_it_open(monkeypatch):
    monkeypatch.setattr(Reasoner, "_multiplied_out", lambda self, g: None)
    assert check_verdicts(SLICE, QUESTION, POINTS) is Truth.UNKNOWN


def test_facts_never_meet_an_expand_row():
    """A fact's normal form keeps ``b*(a div b)``: rewriting it there lost corpus proofs."""
    r = Reasoner()
    r.assume(T.ge(step, c(1)))
    fact = T.le(T.mul(step, T.div(stop, step)), size)
    r.assume(fact)
    assert "divisor times its quotient is the dividend less the remainder" not in r.normal_form.fired
    assert any(t.kind == T.MUL for t in T.subterms(r.normalize(fact)))
