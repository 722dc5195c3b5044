"""Hypothesis strategies for random integer terms and programs, shared by the property tests."""

from __future__ import annotations

from hypothesis import strategies as st

from absint.lang import terms as T


def int_terms(variables, max_leaves: int, with_ite: bool = False, variable_divisors: bool = True):
    """Int terms over ``variables`` and small constants: sums, scalings, products, division
    and remainder by constants and (unless ``variable_divisors`` is false) by variables,
    min/max, and ``ite`` if asked."""
    leaves = st.one_of(st.sampled_from(variables), st.integers(-4, 6).map(T.const))
    nonzero = st.integers(-4, 6).filter(lambda v: v != 0).map(T.const)

    def extend(children):
        options = [
            st.tuples(children, children).map(lambda p: T.add(*p)),
            st.tuples(children, children).map(lambda p: T.sub(*p)),
            st.tuples(st.integers(-3, 3), children).map(lambda p: T.scale(p[1], p[0])),
            st.tuples(children, children).map(lambda p: T.mul(*p)),
            st.tuples(children, nonzero).map(lambda p: T.div(*p)),
            st.tuples(children, nonzero).map(lambda p: T.mod(*p)),
            st.tuples(children, children).map(lambda p: T.minimum(*p)),
            st.tuples(children, children).map(lambda p: T.maximum(*p)),
        ]
        if variable_divisors:
            options[6:6] = [st.tuples(children, st.sampled_from(variables)).map(lambda p: T.div(*p)),
                            st.tuples(children, st.sampled_from(variables)).map(lambda p: T.mod(*p))]
        if with_ite:
            options.append(st.tuples(children, children, children, children).map(
                lambda p: T.ite(T.lt(p[0], p[1]), p[2], p[3])))
        return st.one_of(*options)

    return st.recursive(leaves, extend, max_leaves=max_leaves)


#: the functions the printer spells (``min2``/``max2``/``ceil``) as the corpus defines them
PRELUDE = """
(define-fun ceil ((x Real)) Int (ite (= (to_int x) x) (to_int x) (+ (to_int x) 1)))
(define-fun min2 ((x Int) (y Int)) Int (ite (< x y) x y))
(define-fun max2 ((x Int) (y Int)) Int (ite (> x y) x y))
"""


def programs(variables, max_leaves: int = 5, variable_divisors: bool = True):
    """``(bounds, facts, guards)``: lists of Bool terms over ``variables`` (comparisons of
    :func:`int_terms`, and ``and``/``or`` of two); ``bounds`` keep each variable they name in
    a small range, which makes TRUE/FALSE verdicts common enough to be tested."""
    terms = int_terms(variables, max_leaves=max_leaves, variable_divisors=variable_divisors)
    compare = st.sampled_from([T.le, T.lt, T.ge, T.gt, T.eq, T.ne])
    atoms = st.tuples(compare, terms, terms).map(lambda p: p[0](p[1], p[2]))
    bools = st.one_of(atoms, st.tuples(atoms, atoms).map(lambda p: T.or_(*p)),
                      st.tuples(atoms, atoms).map(lambda p: T.and_(*p)))
    bounds = st.lists(st.tuples(st.sampled_from(variables), st.integers(-4, 4), st.integers(0, 6)), max_size=3).map(
        lambda bs: [T.and_(T.ge(v, T.const(lo)), T.le(v, T.const(lo + w))) for v, lo, w in bs])
    return st.tuples(bounds, st.lists(bools, min_size=0, max_size=3), st.lists(bools, min_size=1, max_size=3))


def program_text(variables, asserts) -> str:
    """SMT-LIB text: the prelude, ``variables`` declared (no example values) and ``asserts``."""
    from absint.lang.printer import to_smtlib

    text = PRELUDE + "".join(f"(declare-const {v.data} {v.sort.value})\n" for v in variables)
    return text + "".join(f"(assert {to_smtlib(a)})\n" for a in asserts)


def written_out(d: T.Term) -> T.Term:
    """``d`` with every named sum unfolded, however deep: the sum a program writes out."""
    while (unfolded := T.unfold(d)) is not d:
        d = unfolded
    return d
