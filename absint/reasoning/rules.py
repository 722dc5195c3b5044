"""Conditional rewrite rules of the normal form, as rows of one table (Halide/TVM style).

A row: the kinds of (rebuilt) term it applies to, a syntactic ``match``, the side
``conditions`` it needs proved, and the ``result``. Conditions come as groups, yielded
lazily in order: a group holds when one of its terms is proved TRUE by layers 0-1,
and every group must hold (for a row marked ``known_keys_only``, only terms whose keys the
facts registered are asked). The driver (:class:`absint.reasoning.normal_form.NormalForm`)
owns matching, memoisation, and the retry of a rule whose conditions are not proved yet.

The rewrites a term constructor makes (constant folding, ``div``/``mod`` by a constant, the
prelude's idioms) are the table's first phase, ``construct``: the rows of
:data:`absint.lang.terms.CONSTRUCTION`, below this package because every term is built
through them, and with syntactic side conditions only.

Every rule is sound for every integer point, SMT-LIB's ``x div 0`` and ``x mod 0``
(unspecified functions of ``x``) included: a rule that cancels or moves a divisor proves
the divisor it keeps non-zero (or the divisor is the same term on both sides).
"""

from __future__ import annotations

import enum
import math
from typing import Callable, Iterator

import attrs

from absint.lang import terms as T
from absint.lang.kinds import AND, CONST, DEF, DIV, EQ, ITE, LE, LIN, LT, MAX, MIN, MOD, MUL, NE, OR, RDIV, TO_REAL, \
    Kind
from absint.lang.terms import INT, Term
from absint.reasoning.monomials import common_factors, divide_monomials, exact_quotient, factors, \
    remove_factors

Normalize = Callable[[Term], Term]
Conditions = Iterator[tuple[Term, ...]]


class Phase(enum.Enum):
    """When a row applies. Deciding keeps the keys facts and guards share (a fact on an
    intermediate quotient ``(x div 2) div 3`` meets a later guard only while both keep that
    shape: folding nested divisions while deciding lost 279 corpus proofs); presenting a term
    to people folds them (``absint outputs``, :mod:`absint.reasoning.simplify`)."""

    DECIDE = "decide"
    PRESENT = "present"
    #: applied to the monomials of one open guard, multiplied out, while deciding it (never
    #: to facts): ``b*(a div b)`` as ``a - a mod b`` everywhere lost 191 corpus proofs (the
    #: product's congruence as a multiple of ``b``), asked of a guard left open it costs none
    EXPAND = "expand"


@attrs.frozen(slots=True)
class Rule:
    name: str
    kinds: tuple[Kind, ...]
    #: (original term, rebuilt term) -> what the conditions and the result need, or None
    match: Callable[[Term, Term], object | None]
    conditions: Callable[[object, Normalize], Conditions]
    result: Callable[[object, Normalize], Term]
    #: when its conditions are not proved, no later rule is tried on the term
    final: bool = False
    #: its conditions are read from the keys the facts registered only: asking about a term
    #: registers it, and the multiples ``k*b`` a row looks for would join blocks of atoms
    #: (the polyhedra then see other slices) on every quotient the row tries
    known_keys_only: bool = False
    phase: Phase = Phase.DECIDE


def _requires(build: Callable[[object], Term]) -> Callable[[object, Normalize], Conditions]:
    """The conditions of a rule that needs one term proved."""
    def conditions(m, normalize: Normalize) -> Conditions:
        yield (build(m),)

    return conditions


def _unconditional(m, normalize: Normalize) -> Conditions:
    """The conditions of a row that holds at every point: none."""
    return iter(())


def _lazy(*alternatives: Callable[[], Term]) -> Iterator[Term]:
    """A group of alternatives, each built only if the ones before it were not proved."""
    return (build() for build in alternatives)


# ---------------------------------------------------------------- (q*b) div b = q, (q*b) mod b = 0


def _match_exact(t: Term, r: Term):
    if r.args[1].kind == CONST:
        return None
    a, b = r.args
    q = exact_quotient(a, b)
    return None if q is None else (r.kind, b, q)


def _exact_result(m, normalize: Normalize) -> Term:
    kind, _, q = m
    return q if kind == DIV else T.ZERO


# ---------------------------------------------------------------- (m*a) div (m*b) = a div b


def _match_common_factor(t: Term, r: Term):
    """``(m*a) div (m*b)`` and ``(m*a) mod (m*b)`` with a common monomial factor ``m``."""
    if r.args[1].kind == CONST:
        return None
    a, b = r.args
    kb, pb = T.content(b)
    if pb.kind == LIN:
        return None
    coefs, c = T.linear_parts(a)
    if c != 0 or not coefs:
        return None
    common = common_factors(list(coefs) + [pb])
    if not common:
        return None
    return r.kind, T.mul(*common), common, coefs, kb, pb


def _common_factor_conditions(m, normalize: Normalize) -> Conditions:
    """``m > 0`` (a negative ``m`` breaks ``0 <= remainder``), and the divisor left, ``b``,
    is not zero: ``(m*a) div 0`` and ``a div 0`` are unrelated unspecified values."""
    _, factor, common, _, kb, pb = m
    yield (T.gt(factor, T.ZERO),)
    yield (T.ne(_kept_divisor(common, kb, pb), T.ZERO),)


def _kept_divisor(common: list[Term], kb, pb: Term) -> Term:
    return T.scale(T.mul(T.ONE, *remove_factors(factors(pb), common)), kb)


def _common_factor_result(m, normalize: Normalize) -> Term:
    kind, factor, common, coefs, kb, pb = m
    a2 = divide_monomials(coefs.items(), common, 1)
    b2 = _kept_divisor(common, kb, pb)
    if kind == DIV:
        return normalize(T.div(a2, b2))
    return T.mul(factor, normalize(T.mod(a2, b2)))


# ---------------------------------------------------------------- (c*x) div (x div m) = c*m


def _match_quotient_divisor(t: Term, r: Term):
    a, b = r.args
    if b.kind != DIV:  # a div divisor is never constant
        return None
    x, m = b.args
    c = T.ONE if a is x else exact_quotient(a, x)
    if c is None or (m.kind == CONST and m.data == 0):
        return None
    return r.kind, b, x, m, c


def _quotient_divisor_conditions(m, normalize: Normalize) -> Conditions:
    """``m`` divides ``x`` exactly (``x = m*(x div m)``; for a constant ``m``: ``x mod m = 0``)
    and the divisor ``x div m`` is not zero."""
    _, b, x, d, _ = m
    if d.kind == CONST:
        yield (T.eq(T.mod(x, d), T.ZERO),)
    else:
        yield (normalize(T.eq(T.sub(x, T.mul(d, b)), T.ZERO)),)
    yield (T.ne(b, T.ZERO),)


def _quotient_divisor_result(m, normalize: Normalize) -> Term:
    kind, _, _, d, c = m
    return T.mul(c, d) if kind == DIV else T.ZERO


# ---------------------------------------------------------------- x div y = 0 when 0 <= x < |y|


def _match_range(t: Term, r: Term):
    a, b = r.args
    return None if b.kind == CONST else (r.kind, a, b)


def _range_conditions(m, normalize: Normalize) -> Conditions:
    _, a, b = m
    yield (T.ge(a, T.ZERO),)
    yield _lazy(lambda: T.gt(b, a), lambda: T.lt(b, T.neg(a)))


def _range_result(m, normalize: Normalize) -> Term:
    kind, a, _ = m
    return T.ZERO if kind == DIV else a


# ---------------------------------------------------------------- b <= a < 2*b: a div b = 1, a mod b = a - b


def _one_divisor_conditions(m, normalize: Normalize) -> Conditions:
    """``b <= a`` and ``a < 2*b``, which together make ``b > 0``: then ``a = b*1 + (a - b)``
    with ``0 <= a - b < b`` (PyTorch's ``s mod (s - 1)`` with ``s >= 3`` is 1)."""
    _, a, b = m
    yield (T.le(b, a),)
    yield (T.lt(T.sub(a, b), b),)


def _one_divisor_result(m, normalize: Normalize) -> Term:
    kind, a, b = m
    return T.ONE if kind == DIV else normalize(T.sub(a, b))


# ---------------------------------------------------------------- k*b divides a: a mod b = 0, a div b = k*(a div (k*b))

#: the multiples ``k*b`` of a symbolic divisor ``b`` whose known zero remainder is looked up
#: (PyTorch's export records ``a mod (4*(s - 1)) == 0`` and then asks about ``a mod (s - 1)``)
MULTIPLES = (2, 4, 8)


def _known_multiple_conditions(ks: tuple[int, ...]) -> Callable[[object, Normalize], Conditions]:
    """``a mod (k*b) = 0`` known for one of ``ks``, and ``b != 0``: then ``a = k*b*q`` with
    ``q = a div (k*b)``, so ``a = b*(k*q) + 0`` and, ``b`` being non-zero, ``a div b = k*q`` and
    ``a mod b = 0`` by the uniqueness of SMT-LIB's division (``0 <= a mod b < |b|``)."""
    def conditions(m, normalize: Normalize) -> Conditions:
        _, a, b = m
        yield tuple(T.eq(T.mod(a, T.scale(b, k)), T.ZERO) for k in ks)
        yield (T.ne(b, T.ZERO),)

    return conditions


def _known_multiple_quotient(k: int) -> Callable[[object, Normalize], Term]:
    """``k*(a div (k*b))``, its quotient not normalised again: that would ask this row of
    ``a div (k*k*b)``, and so on while the remainders are known (a chain, never a loop, but
    one a planted unconditional row would follow forever)."""
    def result(m, normalize: Normalize) -> Term:
        _, a, b = m
        return T.scale(T.div(a, T.scale(b, k)), k)

    return result


# ---------------------------------------------------------------- ite(c, a, b) = a when c holds, b when it cannot


def _itself(t: Term, r: Term) -> Term:
    return r


def _ite_branch(then: bool) -> Callable[[object, Normalize], Conditions]:
    """The condition proved (``then``), or its negation proved: every model the facts allow
    takes that branch (PyTorch's ``PythonMod`` of a divisor known positive is such an ite)."""
    def conditions(r, normalize: Normalize) -> Conditions:
        c = r.args[0]
        yield (c if then else T.not_(c),)

    return conditions


# ---------------------------------------------------------------- f*(a div (kb*f)) = a div kb


def _two_factors(t: Term, r: Term):
    """``(k, [(f, g), (g, f)])`` for a product ``r = k*f*g`` built from a product ``t``."""
    if t.kind != MUL:
        return None, ()
    kr, p = T.content(r)
    if p.kind != MUL or len(p.args) != 2:
        return None, ()
    return kr, (p.args, tuple(reversed(p.args)))


def _match_exact_product(t: Term, r: Term):
    """``f*(a div b)`` with ``b = kb*f`` (a symbolic divisor), from a product."""
    kr, orders = _two_factors(t, r)
    for f, g in orders:
        if g.kind != DIV or g.args[1].kind == CONST:
            continue
        a, b = g.args
        kb, pb = T.content(b)
        if pb is f:
            return kr, a, b, kb
    return None


def _exact_product_conditions(m, normalize: Normalize) -> Conditions:
    _, a, b, _ = m
    yield (T.ne(b, T.ZERO),)
    yield (T.eq(normalize(T.mod(a, b)), T.ZERO),)


def _exact_product_result(m, normalize: Normalize) -> Term:
    """Sound: for ``b != 0``, ``a = b*(a div b) + a mod b``; with the remainder 0,
    ``a = kb*(f*(a div b))`` is a multiple of ``kb`` whose exact quotient is ``f*(a div b)``."""
    kr, a, _, kb = m
    return T.scale(normalize(T.div(a, T.const(kb))), kr)


# ---------------------------------------------------------------- b*(a div b) = a - a mod b


def _match_divisor_times_quotient(t: Term, r: Term):
    """``k*b*(a div b)`` (or ``k*b*(a div -b)``) with a symbolic divisor, from a product."""
    m = _match_exact_product(t, r)
    return m if m is not None and m[3] in (1, -1) else None


def _divisor_times_quotient_result(m, normalize: Normalize) -> Term:
    """Sound for ``b != 0``: SMT-LIB's ``a = b*(a div b) + a mod b``, so ``b*(a div b)`` is
    ``a - a mod b``, whose remainder the layers bound (``0 <= a mod b < |b|``); with
    ``f = kb*b`` (``kb = ±1``), ``f*(a div b) = kb*(a - a mod b)``."""
    kr, a, b, kb = m
    return T.scale(T.sub(a, T.mod(a, b)), kr * kb)


# ---------------------------------------------------------------- f*(a div c) = (f*a) div c when c divides a


def _match_product_of_exact_quotient(t: Term, r: Term):
    """``k*f*(a div c)`` with a non-zero constant ``c``, from a product."""
    kr, orders = _two_factors(t, r)
    for f, g in orders:
        if g.kind == DIV and g.args[1].kind == CONST and g.args[1].data != 0:
            return kr, f, g.args[0], g.args[1]
    return None


def _product_of_exact_quotient_conditions(m, normalize: Normalize) -> Conditions:
    """``c`` divides ``a``, and the facts know ``(f*a) mod c`` to be 0 as well: the product is
    rewritten only where it meets a quantity they track (rewritten everywhere, a product of
    two quotients loses the interval bound of its factors: 52 proofs of the corpus). An expand
    row: in the normal form, the product changed keys once the remainders became known, and
    a bound stated on it before was no longer read (proofs release a04f2a6 had)."""
    _, f, a, c = m
    yield (T.eq(T.mod(a, c), T.ZERO),)
    yield (T.eq(T.mod(T.mul(f, a), c), T.ZERO),)


def _product_of_exact_quotient_result(m, normalize: Normalize) -> Term:
    """Sound when ``a mod c = 0``: ``a = c*q``, so ``f*a = c*(f*q)`` exactly and
    ``(f*a) div c = f*q = f*(a div c)`` (PyTorch's ``s0*(s30 // 8)`` after ``s30 % 8 == 0``,
    compared with ``s30*s0``, whose remainder by 8 is known)."""
    kr, f, a, c = m
    return T.scale(normalize(T.div(T.mul(f, a), c)), kr)


# ---------------------------------------------------------------- k*(a div c) + R = (k/c)*a + R when c divides a


def _match_exact_quotient_in_sum(t: Term, r: Term):
    """A sum with a term ``k*(a div c)``: ``c`` a non-zero constant dividing ``k``."""
    if r.kind != LIN:
        return None
    coefs = r.data[0]
    for i, q in enumerate(r.args):
        if q.kind == DIV:
            c = q.args[1]
            if c.kind == CONST and c.data != 0 and coefs[i] % c.data == 0:
                return r, i, q.args[0], c
    return None


def _exact_quotient_in_sum_conditions(m, normalize: Normalize) -> Conditions:
    _, _, a, c = m
    yield (T.eq(T.mod(a, c), T.ZERO),)


def _exact_quotient_in_sum_result(m, normalize: Normalize) -> Term:
    """Sound when ``a mod c = 0``: ``a = c*(a div c)``, so ``k*(a div c) = (k/c)*a`` exactly
    (PyTorch's ``s36 - 8*(s0*(s30 // 8))`` after ``s30 % 8 == 0``, against ``s36 != s30*s0``)."""
    r, i, a, c = m
    coefs, const = r.data
    k = coefs[i]
    rest = [T.scale(b, v) for j, (b, v) in enumerate(zip(r.args, coefs)) if j != i]
    return normalize(T.add(T.const(const, r.sort), T.scale(a, k // c.data), *rest))


# ---------------------------------------------------------------- d*(a / d) = a


def _match_real_product(t: Term, r: Term):
    """``k*d*(a / d)``: a Real quotient times its own divisor."""
    kr, orders = _two_factors(t, r)
    for f, g in orders:
        if g.kind == RDIV and g.args[1] is f:
            return kr, g.args[0], f
    return None


# ---------------------------------------------------------------- to_real(a)*to_real(b) = to_real(a*b)


def _match_product_of_embeddings(t: Term, r: Term):
    """``k*to_real(a)*to_real(b)...``: a Real product of Int values, from a product."""
    if t.kind != MUL or r.sort is INT:
        return None
    kr, p = T.content(r)
    if p.kind != MUL or any(f.kind != TO_REAL for f in p.args):
        return None
    return kr, p


def _embedded_product(m, normalize: Normalize) -> Term:
    """Exact: the embedding of the integers into the reals keeps products
    (PyTorch's ``ToFloat(u2)*ToFloat(u3)`` against ``ToFloat(u0*u1)``)."""
    kr, p = m
    return T.scale(T.to_real(normalize(T.mul(*(f.args[0] for f in p.args)))), kr)


# ---------------------------------------------------------------- a Real comparison of embedded integers


def _match_embedded_comparison(t: Term, r: Term):
    """A Real comparison whose sum has only embedded Int atoms (``to_real(x)``)."""
    x = r.args[0]
    if x.sort is INT or x.kind != LIN:
        return None
    return r if T.as_int_over(x) is not None else None


def _embedded_comparison(r, normalize: Normalize) -> Term:
    """Exact: the sum is ``to_real(P) / d`` with ``d > 0`` (:func:`_integral`)."""
    return normalize(_integral(r.kind, r.args[0]))


# ---------------------------------------------------------------- m*a <op> m*b  iff  a <op> b


def _match_common_comparison(t: Term, r: Term):
    """``m*a <op> m*b`` (no constant term) with a common monomial factor ``m``."""
    x = r.args[0]
    if x.kind != LIN:
        return None
    coefs, c = x.data
    if c != 0 or x.sort is not INT or len(coefs) == 1:
        # one monomial k*m: dividing by m only restates the sign of m, which the
        # interval layer reads from m's value anyway
        return None
    common = common_factors(x.args)
    if not common:
        return None
    return r, T.mul(*common), common


def _cancelled(sign: int) -> Callable[[object, Normalize], Term]:
    def result(m, normalize: Normalize) -> Term:
        r, _, common = m
        x = r.args[0]
        reduced = divide_monomials(zip(x.args, x.data[0]), common, sign)
        return normalize(T.rebuild(r, (reduced,)))

    return result


# ---------------------------------------------------------------- min(a, b) = a when a <= b


def _ordered(first: bool) -> Callable[[object, Normalize], Conditions]:
    """``min(a, b) = a`` when ``a <= b`` (``b`` when ``b <= a``); ``max`` the other way."""
    def conditions(r, normalize: Normalize) -> Conditions:
        a, b = r.args if first else reversed(r.args)
        yield (T.le(a, b) if r.kind == MIN else T.ge(a, b),)

    return conditions


def _match_min_max(t: Term, r: Term):
    return r


# ---------------------------------------------------------------- a/d <op> 0  iff  a <op> 0 (d > 0)


def _match_real_quotient(t: Term, r: Term):
    """A Real comparison ``k*(a / d) + R <op> 0`` with one quotient by a non-constant ``d``."""
    x = r.args[0]
    if x.sort is INT:
        return None
    coefs, c = T.linear_parts(x)
    quotients = [q for q in coefs if q.kind == RDIV]
    if len(quotients) != 1:
        return None
    q = quotients[0]
    return r, q.args[1], coefs, c, q


def _real_quotient_conditions(m, normalize: Normalize) -> Conditions:
    r, d = m[0], m[1]
    yield (T.ne(d, T.ZERO) if r.kind in (EQ, NE) else T.gt(d, T.ZERO),)


def _real_quotient_result(m, normalize: Normalize) -> Term:
    """Sound: for ``d != 0``, ``(a / d)*d = a``, so ``x = 0`` iff ``x*d = 0``; and for
    ``d > 0`` multiplying by ``d`` keeps the order. SMT-LIB's ``a / 0`` (unspecified) is
    excluded by the condition."""
    r, d, coefs, c, q = m
    parts = [T.scale(q.args[0], coefs[q])] + [T.scale(T.mul(a, d), v) for a, v in coefs.items() if a is not q]
    cleared = T.add(T.scale(d, c), *parts)
    return normalize(_integral(r.kind, cleared) or T.rebuild(r, (cleared,)))


def _integral(kind: Kind, s: Term) -> Term | None:
    """``s <kind> 0`` as an Int comparison when ``s`` sums Int values (``to_real(x)``) with
    rational coefficients: ``s = P/d`` with ``d > 0``, so ``s <kind> 0`` iff ``P <kind> 0``."""
    if not T.linear_parts(s)[0]:
        return None
    split = T.as_int_over(s)
    if split is None:
        return None
    return {LE: T.le, LT: T.lt, EQ: T.eq, NE: T.ne}[kind](split[0], T.ZERO)


# ---------------------------------------------------------------- and/or members another makes redundant

#: an and/or with more members than this is left as built (the rows compare members pairwise)
MAX_JUNCTION_MEMBERS = 16


def one_bound_per_form(kind: Kind, seen: dict[int, Term]) -> dict[int, Term]:
    """Of the Int bounds ``L + c <= 0`` on one linear form ``L``, an ``and`` keeps the
    strongest (largest ``c``) and an ``or`` the weakest (smallest ``c``): exact, since
    ``L + c1 <= 0`` implies ``L + c2 <= 0`` when ``c1 >= c2``. (PyTorch records
    ``u0 <= -1 or u0 <= 4``, which is ``u0 <= 4``: a bound the layers then use.)"""
    bounds = [t for t in seen.values() if t.kind == LE and t.args[0].sort is INT]
    if len(bounds) < 2:
        return seen
    best: dict[tuple, tuple[object, Term]] = {}
    for t in bounds:
        x = t.args[0]
        form, c = ((x.args, x.data[0]), x.data[1]) if x.kind == LIN else (((x,), (1,)), 0)
        kept = best.get(form)
        if kept is None or (c > kept[0]) == (kind == AND):
            best[form] = (c, t)
    if len(best) == len(bounds):
        return seen
    dropped = {t.id for t in bounds} - {t.id for _, t in best.values()}
    return {i: t for i, t in seen.items() if i not in dropped}


def absorbed_equalities(seen: dict[int, Term]) -> dict[int, Term]:
    """``or(t == c, d)`` is ``d`` when ``d`` holds at ``t = c``: every model of the equality
    is one of ``d``'s (exact). PyTorch records ``or(P == 8, P mod 8 == 0)``, which is
    ``P mod 8 == 0``, a fact the congruences then use."""
    for i, t in list(seen.items()):
        value = _solved_atom(t)
        if value is None:
            continue
        atom, c = value
        if any(o is not t and _at_value(o, atom, c) is T.TRUE for o in seen.values()):
            del seen[i]
    return seen


def _solved_atom(t: Term) -> tuple[Term, Term] | None:
    """``(atom, value)`` when ``t`` is ``k*atom + c == 0`` over Int with an integer solution."""
    if t.kind != EQ or t.args[0].sort is not INT:
        return None
    coefs, c = T.linear_parts(t.args[0])
    if len(coefs) != 1:
        return None
    (atom, k), = coefs.items()
    return (atom, T.const(-c // k)) if c % k == 0 else None


#: a disjunct with more sub-terms than this is not rebuilt at an atom's value (left as it is)
MAX_ABSORBING_SIZE = 64


def _at_value(t: Term, atom: Term, value: Term) -> Term:
    """``t`` with every occurrence of ``atom`` replaced by ``value``, rebuilt (folded); ``t``
    itself when it is large or holds a definition (whose name would be rebuilt too)."""
    parts = T.subterms(t)
    if len(parts) > MAX_ABSORBING_SIZE or all(s is not atom for s in parts) or any(s.kind == DEF for s in parts):
        return t
    return T.replaced(t, {atom: value}, parts)


Thinning = Callable[[Kind, dict[int, Term]], dict[int, Term]]


def _match_subsumed(thin: Thinning) -> Callable[[Term, Term], object | None]:
    """An and/or whose members ``thin`` (its kind, its members by id -> those kept) thins:
    ``(its kind, the kept members)``, or None."""
    def match(t: Term, r: Term):
        if len(r.args) > MAX_JUNCTION_MEMBERS:
            return None
        seen = {a.id: a for a in r.args}
        kept = thin(r.kind, dict(seen))
        return None if len(kept) == len(seen) else (r.kind, tuple(kept.values()))

    return match


def _junction_of(m, normalize: Normalize) -> Term:
    """The thinned junction, normalised again: the other row may thin it further."""
    kind, kept = m
    return normalize(T.and_(*kept) if kind == AND else T.or_(*kept))


# ---------------------------------------------------------------- presentation: constant divisions folded
# Exact for every integer (no condition): Euclidean division by a positive ``d`` is
# ``floor(x / d)``; ``floor((floor(z / a) + k) / d) = floor((z + k*a) / (a*d))`` for integers
# ``a, d > 0``; ``floor(g*P / (g*D)) = floor(P / D)`` and ``g*P mod g*D = g*(P mod D)`` for
# ``g > 0``; and ``z mod (m*d) = z - m*d*(z div (m*d))`` is ``z`` plus a multiple of ``d``.


def positive_constant(t: Term) -> bool:
    """An Int constant above zero: a divisor every presentation fold may rely on."""
    return t.kind == CONST and t.sort is INT and t.data > 0


def _by_positive_constant(t: Term, r: Term):
    return (r.args[0], r.args[1].data) if positive_constant(r.args[1]) else None


def _match_nested_quotient(t: Term, r: Term):
    """``(z div a + k) div d`` (one atom, coefficient 1, ``a > 0``, ``d > 0``)."""
    m = _by_positive_constant(t, r)
    if m is None:
        return None
    coefs, k = T.linear_parts(m[0])
    if len(coefs) != 1:
        return None
    (inner, v), = coefs.items()
    if v != 1 or inner.kind != DIV or not positive_constant(inner.args[1]):
        return None
    a = inner.args[1].data
    return T.add(inner.args[0], T.const(k * a)), a * m[1]


def content_gcd(x: Term, d: int) -> int:
    """The gcd of ``d`` and every coefficient and the constant of ``x``."""
    coefs, k = T.linear_parts(x)
    return math.gcd(d, k, *coefs.values())


def _divide_all(x: Term, g: int) -> Term:
    coefs, k = T.linear_parts(x)
    return T.make_linear(INT, {a: v // g for a, v in coefs.items()}, k // g)


def _match_common_content(t: Term, r: Term):
    m = _by_positive_constant(t, r)
    if m is None:
        return None
    g = content_gcd(*m)
    return None if g == 1 else (_divide_all(m[0], g), m[1] // g, g)


def _mod_by_multiple(t: Term, d: int) -> bool:
    return t.kind == MOD and positive_constant(t.args[1]) and t.args[1].data % d == 0


def _match_inner_remainder(t: Term, r: Term):
    """``... + z mod (m*d) + ...`` inside a remainder by ``d``."""
    m = _by_positive_constant(t, r)
    if m is None:
        return None
    x, d = m
    coefs, k = T.linear_parts(x)
    if not any(_mod_by_multiple(a, d) for a in coefs):
        return None
    return T.add(T.const(k), *(T.scale(a.args[0] if _mod_by_multiple(a, d) else a, v) for a, v in coefs.items())), d


def _match_quotient_in_sum(t: Term, r: Term):
    """A sum (what ``x div d`` splits into: ``q + r div d``) with one quotient by a positive
    constant that a presentation row folds."""
    atoms = [a for a in T.linear_parts(r)[0] if a.kind == DIV and positive_constant(a.args[1])]
    if len(atoms) != 1 or not any(row.match(atoms[0], atoms[0]) for row in PRESENT_BY_KIND[DIV]):
        return None
    return r, atoms[0]


def _quotient_in_sum_folded(m, present: Normalize) -> Term:
    r, a = m
    coefs, k = T.linear_parts(r)
    return T.add(T.const(k), *(T.scale(present(a) if b is a else b, v) for b, v in coefs.items()))


PRESENTATION_ROWS = (
    Rule("nested constant quotients are one quotient", (DIV,), _match_nested_quotient, _unconditional,
         lambda m, present: present(T.div(m[0], T.const(m[1]))), phase=Phase.PRESENT),
    Rule("a common content leaves a smaller constant quotient", (DIV,), _match_common_content, _unconditional,
         lambda m, present: present(T.div(m[0], T.const(m[1]))), phase=Phase.PRESENT),
    Rule("a remainder by a multiple inside a constant remainder is its dividend", (MOD,), _match_inner_remainder,
         _unconditional, lambda m, present: present(T.mod(m[0], T.const(m[1]))), phase=Phase.PRESENT),
    Rule("a common content leaves a smaller constant remainder", (MOD,), _match_common_content, _unconditional,
         lambda m, present: T.scale(present(T.mod(m[0], T.const(m[1]))), m[2]), phase=Phase.PRESENT),
    Rule("the one constant quotient of a sum folded", (LIN,), _match_quotient_in_sum, _unconditional,
         _quotient_in_sum_folded, phase=Phase.PRESENT),
)


#: the table; for one term the rows of its kind are tried in order, the first proved wins
RULES: tuple[Rule, ...] = (
    Rule("exact quotient", (DIV, MOD), _match_exact,
         _requires(lambda m: T.ne(m[1], T.ZERO)), _exact_result, final=True),
    Rule("common factor of dividend and divisor", (DIV, MOD), _match_common_factor,
         _common_factor_conditions, _common_factor_result),
    Rule("divisor is an exact quotient of the dividend", (DIV, MOD), _match_quotient_divisor,
         _quotient_divisor_conditions, _quotient_divisor_result),
    Rule("dividend below the divisor", (DIV, MOD), _match_range, _range_conditions, _range_result),
    Rule("dividend between one and two divisors", (DIV, MOD), _match_range, _one_divisor_conditions,
         _one_divisor_result),
    Rule("remainder by a divisor of a known multiple", (MOD,), _match_range,
         _known_multiple_conditions(MULTIPLES), lambda m, normalize: T.ZERO, known_keys_only=True),
    *(Rule(f"quotient by a divisor of a known multiple ({k}*b)", (DIV,), _match_range,
           _known_multiple_conditions((k,)), _known_multiple_quotient(k), known_keys_only=True)
      for k in MULTIPLES),
    Rule("ite of a proved condition is its first branch", (ITE,), _itself, _ite_branch(True),
         lambda r, normalize: r.args[1]),
    Rule("ite of a refuted condition is its second branch", (ITE,), _itself, _ite_branch(False),
         lambda r, normalize: r.args[2]),
    Rule("min/max of ordered operands is the first", (MIN, MAX), _match_min_max, _ordered(True),
         lambda r, normalize: r.args[0]),
    Rule("min/max of ordered operands is the second", (MIN, MAX), _match_min_max, _ordered(False),
         lambda r, normalize: r.args[1]),
    Rule("divisor times its quotient is the dividend less the remainder", (MUL,), _match_divisor_times_quotient,
         _requires(lambda m: T.ne(m[2], T.ZERO)), _divisor_times_quotient_result, phase=Phase.EXPAND),
    Rule("divisor times its exact quotient", (MUL, LIN), _match_exact_product,
         _exact_product_conditions, _exact_product_result, final=True),
    Rule("factor times an exact quotient by a constant", (MUL,), _match_product_of_exact_quotient,
         _product_of_exact_quotient_conditions, _product_of_exact_quotient_result, known_keys_only=True,
         phase=Phase.EXPAND),
    Rule("multiple of an exact quotient by a constant in a sum", (LIN,), _match_exact_quotient_in_sum,
         _exact_quotient_in_sum_conditions, _exact_quotient_in_sum_result, known_keys_only=True),
    Rule("divisor times its real quotient", (MUL, LIN), _match_real_product,
         _requires(lambda m: T.ne(m[2], T.ZERO)), lambda m, normalize: T.scale(m[1], m[0]), final=True),
    Rule("a product of embedded integers is the embedded product", (MUL, LIN), _match_product_of_embeddings,
         _unconditional, _embedded_product),
    Rule("cancel a non-zero common factor", (EQ, NE), _match_common_comparison,
         _requires(lambda m: T.ne(m[1], T.ZERO)), _cancelled(1), final=True),
    Rule("cancel a positive common factor", (LE, LT), _match_common_comparison,
         _requires(lambda m: T.gt(m[1], T.ZERO)), _cancelled(1)),
    Rule("cancel a negative common factor (flips the inequality)", (LE, LT), _match_common_comparison,
         _requires(lambda m: T.lt(m[1], T.ZERO)), _cancelled(-1)),
    Rule("a real comparison of embedded integers is an integer comparison", (EQ, NE, LE, LT),
         _match_embedded_comparison, _unconditional, _embedded_comparison),
    Rule("clear a real denominator", (EQ, NE, LE, LT), _match_real_quotient,
         _real_quotient_conditions, _real_quotient_result),
    Rule("an and/or keeps one bound per linear form", (AND, OR),
         _match_subsumed(lambda kind, seen: one_bound_per_form(kind, seen)), _unconditional, _junction_of),
    Rule("an or drops an equality another disjunct holds at", (OR,),
         _match_subsumed(lambda kind, seen: absorbed_equalities(seen)), _unconditional, _junction_of),
    *PRESENTATION_ROWS,
)


def _by_kind(phase: Phase) -> dict[Kind, tuple[Rule, ...]]:
    """A phase's rows by the kind they apply to, in table order."""
    out: dict[Kind, tuple[Rule, ...]] = {}
    for rule in RULES:
        if rule.phase is phase:
            for kind in rule.kinds:
                out[kind] = out.get(kind, ()) + (rule,)
    return out


#: the rows the normal form applies (their conditions asked of layers 0-1)
DECIDING: tuple[Rule, ...] = tuple(r for r in RULES if r.phase is Phase.DECIDE)
BY_KIND = _by_kind(Phase.DECIDE)
#: the rows presentation applies, exact for every integer
PRESENT_BY_KIND = _by_kind(Phase.PRESENT)
#: the rows an open guard's monomials meet (:meth:`NormalForm.rewrite_monomials`)
EXPANDING: tuple[Rule, ...] = tuple(r for r in RULES if r.phase is Phase.EXPAND)
EXPAND_BY_KIND = _by_kind(Phase.EXPAND)


Proved = Callable[[Rule, object], bool]


def first_applicable(rows: tuple[Rule, ...], t: Term, r: Term, proved: Proved) -> tuple[Rule | None, object, bool]:
    """The engine of every phase: the first row that matches ``r`` (rebuilt from ``t``) and
    whose conditions ``proved`` accepts, what it matched, and whether a matching row before
    it was left unproved. Rows sharing a match function match once; a ``final`` row left
    unproved stops the search."""
    matches: dict[object, object] = {}
    unproved = False
    for rule in rows:
        m = matches.get(rule.match, matches)
        if m is matches:
            m = matches[rule.match] = rule.match(t, r)
        if m is None:
            continue
        if proved(rule, m):
            return rule, m, unproved
        unproved = True
        if rule.final:
            break
    return None, None, unproved


def rewrite_exact(t: Term, by_kind: dict[Kind, tuple[Rule, ...]]) -> Term:
    """``t`` rewritten by the unconditional rows of a phase until none applies (a row's
    result presents the terms it builds the same way)."""
    present = lambda s: rewrite_exact(s, by_kind)  # noqa: E731
    while True:
        rule, m, _ = first_applicable(by_kind.get(t.kind, ()), t, t, lambda rule, m: True)
        if rule is None:
            return t
        t = rule.result(m, present)
