"""The operator table (:mod:`absint.lang.ops`) against everything that implements its kinds.

Adding a kind of term means adding its row; this file then fails until every place that
must know the kind does: the constructors, the reader and printer (round trip), the
evaluator, the value domains' forward and backward transfer functions and their
soundness cases, the sympy bridge both ways, and the polyhedral layer's links.
"""

from __future__ import annotations

import importlib
import itertools
from fractions import Fraction

import pytest
from domain_laws import CASES as SOUNDNESS_CASES

from absint.lang import ops
from absint.lang import terms as T
from absint.lang.evaluator import evaluate
from absint.lang.ops import OPS
from absint.lang.printer import to_infix, to_smtlib
from absint.readers import smtlib
from absint.readers.sympy_bridge import TO_SYMPY, SympyToTerms, TermsToSympy, _handler
from absint.reasoning.links import LINKS
from domains import VALUE_DOMAINS

x, y = T.var("x", T.INT), T.var("y", T.INT)
p = T.var("p", T.REAL)
b = T.var("b", T.BOOL)

#: one term of each kind, over x, y (Int), p (Real) and b (Bool)
EXAMPLES = {
    "const": T.const(7),
    "var": x,
    "lin": T.add(T.scale(x, 3), T.neg(y), T.const(2)),
    "mul": T.mul(x, y),
    "div": T.div(x, y),
    "mod": T.mod(x, y),
    "rdiv": T.rdiv(p, T.to_real(y)),
    "pow": T.power(x, y),
    "to_int": T.to_int(p),
    "ceil": T.ceil(p),
    "to_real": T.to_real(x),
    "min": T.minimum(x, y),
    "max": T.maximum(x, y),
    "fn": T.apply("log2", T.add(x, T.const(1))),
    "def": T.define(T.add(x, T.scale(y, 2), T.const(1)), name="d"),
    "ite": T.ite(b, x, y),
    "le": T.le(x, y),
    "lt": T.lt(p, T.to_real(x)),
    "eq": T.eq(x, y),
    "ne": T.ne(x, y),
    "distinct": T.distinct(*(T.add(x, T.const(i)) for i in range(T.MAX_DISTINCT_EXPANDED)), y),
    "not": T.not_(b),
    "and": T.and_(b, T.le(x, y)),
    "or": T.or_(b, T.le(x, y)),
}
POINTS = [{"x": a, "y": c, "p": Fraction(r, 2), "b": flag}
          for a, c, r, flag in itertools.product((-3, 0, 2, 5), (-2, 0, 1, 3), (-3, 0, 5), (False, True))]
#: SMT-LIB has no min2/max2/ceil: the corpus defines them, as does every printed program
PRELUDE = """(define-fun ceil ((x Real)) Int (ite (= (to_int x) x) (to_int x) (+ (to_int x) 1)))
(define-fun min2 ((x Int) (y Int)) Int (ite (< x y) x y))
(define-fun max2 ((x Int) (y Int)) Int (ite (> x y) x y))
(declare-const x Int) (declare-const y Int) (declare-const p Real) (declare-const b Bool)
(declare-fun log2 (Real) Real)
"""
#: kinds whose values the network computes itself (it needs the truth of their Bool operands)
#: or that are Bool-valued (read by ``truth``/``restrict``, tested in test_domain_soundness)
NOT_VALUE_DOMAIN_KINDS = {"ite", "le", "lt", "eq", "ne", "distinct", "not", "and", "or"}
#: every registered value domain's module (its FORWARD and BACKWARD tables), from the registry:
#: a new domain is checked here without a row to forget
DOMAIN_TABLES = {name: importlib.import_module(type(domain).__module__) for name, domain in VALUE_DOMAINS.items()}


def _values(t):
    out = []
    for point in POINTS:
        try:
            out.append(evaluate(t, point))
        except ops.NotEvaluable:
            out.append(None)
    return out


def test_every_kind_has_an_example_of_that_kind():
    assert set(EXAMPLES) == set(OPS)
    assert all(t.kind == k for k, t in EXAMPLES.items())


@pytest.mark.parametrize("kind", sorted(OPS))
def test_row_is_well_formed(kind):
    op = OPS[kind]
    assert op.kind == kind
    lo, hi = op.arity
    assert 0 <= lo and (hi is None or lo <= hi)
    assert op.constructor is not None and callable(getattr(T, op.constructor))
    assert (op.meaning is None) == (kind == "var")  # a variable's value comes from the point
    assert op.infix.style in {"number", "name", "sum", "product", "divmod", "binary", "call", "compare",
                              "not", "junction", "definition"}
    if op.reading is not None:
        assert op.reading in {"nary", "chain", "fold", "fixed"} and op.smtlib in smtlib._BUILTINS


@pytest.mark.parametrize("kind", sorted(OPS))
def test_atoms_are_what_the_constructors_treat_as_atoms(kind):
    assert EXAMPLES[kind].is_atom == OPS[kind].atom


def _read_back(t):
    if t.sort is T.BOOL:
        return smtlib.parse(PRELUDE + f"(assert {to_smtlib(t)})").facts[0].term
    text = PRELUDE + f"(define-fun output0_v () {t.sort.value} {to_smtlib(t)})"
    return smtlib.parse(text).outputs[0][1]


@pytest.mark.parametrize("kind", sorted(OPS))
def test_printed_smtlib_reads_back_to_the_same_meaning(kind):
    t = EXAMPLES[kind]
    assert _values(_read_back(t)) == _values(t)
    assert _read_back(t) is t or OPS[kind].meaning is not ops.uninterpreted


@pytest.mark.parametrize("kind", sorted(OPS))
def test_infix_printer_knows_every_kind(kind):
    assert to_infix(EXAMPLES[kind])


@pytest.mark.parametrize("kind", sorted(OPS))
def test_evaluator_gives_each_kind_its_meaning(kind):
    values = _values(EXAMPLES[kind])
    if OPS[kind].meaning is ops.uninterpreted:  # an opaque function has no value to assume
        assert all(v is None for v in values)
    else:
        assert any(v is not None for v in values)


@pytest.mark.parametrize("domain", sorted(DOMAIN_TABLES))
@pytest.mark.parametrize("kind", sorted(set(OPS) - NOT_VALUE_DOMAIN_KINDS))
def test_every_value_kind_has_forward_and_backward_transfer_functions(domain, kind):
    module = DOMAIN_TABLES[domain]
    assert kind in module.FORWARD and kind in module.BACKWARD


@pytest.mark.parametrize("kind", sorted(set(OPS) - NOT_VALUE_DOMAIN_KINDS - {"const", "var"}))
def test_every_value_kind_has_a_soundness_case(kind):
    assert any(case_kind == kind for _, _, case_kind in SOUNDNESS_CASES)


@pytest.mark.parametrize("kind", sorted(OPS))
def test_sympy_bridge_translates_every_kind_both_ways(kind):
    t = EXAMPLES[kind]
    assert kind in TO_SYMPY
    back = TermsToSympy()(t)
    assert _handler(back) is not None  # raises UnsupportedExpression for a class it cannot read
    again = SympyToTerms(sort_of=lambda s: {"p": T.REAL, "b": T.BOOL}.get(s.name, T.INT))(back)
    pairs = [(w, v) for w, v in zip(_values(t), _values(again)) if w is not None]
    assert (pairs and all(w == v for w, v in pairs)) or (OPS[kind].meaning is ops.uninterpreted and again is t)


@pytest.mark.parametrize("kind", sorted(k for k, op in OPS.items() if op.atom))
def test_polyhedral_layer_declares_links_for_every_atom_kind(kind):
    assert kind in LINKS
