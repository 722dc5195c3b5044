"""Hypothesis strategies for random integer terms, shared by the property tests."""

from __future__ import annotations

from hypothesis import strategies as st

from absint.lang import terms as T


def int_terms(variables, max_leaves: int, with_ite: bool = False):
    """Int terms over ``variables`` and small constants: sums, scalings, products, division
    and remainder by constants and by variables, min/max, and ``ite`` if asked."""
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
            st.tuples(children, st.sampled_from(variables)).map(lambda p: T.div(*p)),
            st.tuples(children, st.sampled_from(variables)).map(lambda p: T.mod(*p)),
            st.tuples(children, children).map(lambda p: T.minimum(*p)),
            st.tuples(children, children).map(lambda p: T.maximum(*p)),
        ]
        if with_ite:
            options.append(st.tuples(children, children, children, children).map(
                lambda p: T.ite(T.lt(p[0], p[1]), p[2], p[3])))
        return st.one_of(*options)

    return st.recursive(leaves, extend, max_leaves=max_leaves)
