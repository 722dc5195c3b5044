"""The rewrite rows whose side conditions the reasoner proves (phases DECIDE, EXPAND,
PRESENT, PRESENT_FIXED), and the unconditional MULTIPLY_OUT rows (products of sums as their
monomials), of the one row type and engine of :mod:`absint.lang.rewriting`.

A row: the kinds of (rebuilt) term it applies to, a syntactic ``match`` into a named record,
the side ``conditions`` it needs proved, and the ``result``. Conditions come as groups,
yielded lazily in order: a group holds when one of its terms is proved TRUE, and every
group must hold (for a row marked ``known_keys_only``, only terms whose keys the facts
registered are asked). Who proves them is the phase's driver: the normal form
(:class:`absint.reasoning.normal_form.NormalForm`, layers 0-1, which owns memoisation and
the retry of a row not proved yet) for DECIDE and an open guard's monomials; the reasoner's
bounds, registering nothing, for an open guard itself (EXPAND); none for PRESENT, whose rows
hold at every point; layers 0-1 again, asked by :mod:`absint.reasoning.simplify`, for
PRESENT_FIXED, whose match reads a value the facts fix (a point, a remainder) from the
reasoner's bounds and whose conditions state it. :data:`ROWS` holds every row of every
phase, the constructors' first.

The rewrites a term constructor makes (constant folding, ``div``/``mod`` by a constant, the
prelude's idioms) are the first phase, ``construct``: the rows of
:data:`absint.lang.terms.CONSTRUCTION`, below this package because every term is built
through them, and with syntactic side conditions only.

Every rule is sound for every integer point, SMT-LIB's ``x div 0`` and ``x mod 0``
(unspecified functions of ``x``) included: a rule that cancels or moves a divisor proves
the divisor it keeps non-zero (or the divisor is the same term on both sides).
"""

from __future__ import annotations

import itertools
import math
import operator
from typing import Callable, Iterator

from absint.lang import terms as T
from absint.lang.kinds import AND, CEIL, CONST, DEF, DIV, EQ, FN, ITE, LE, LIN, LT, MAX, MIN, MOD, MUL, NE, OR, POW, \
    RDIV, TO_INT, TO_REAL, VAR, Kind
from absint.lang.rewriting import Phase, Row, by_kind, record, rewrite
from absint.lang.terms import BOOL, INT, Term
from absint.reasoning.monomials import common_factors, divide_monomials, exact_quotient, expand, factors, \
    remove_factors, within_expansion

Normalize = Callable[[Term], Term]
Conditions = Iterator[tuple[Term, ...]]


def _requires(build: Callable[[object], Term]) -> Callable[[object, Normalize], Conditions]:
    """The conditions of a rule that needs one term proved."""
    def conditions(m, normalize: Normalize) -> Conditions:
        yield (build(m),)

    return conditions


def _rule(name: str, kinds: tuple[Kind, ...], match, conditions, result, phase: Phase = Phase.DECIDE,
          **flags) -> Row:
    """A row of a phase the reasoner drives (DECIDE unless said)."""
    return Row(name, phase, kinds, match, result, conditions, **flags)


def _lazy(*alternatives: Callable[[], Term]) -> Iterator[Term]:
    """A group of alternatives, each built only if the ones before it were not proved."""
    return (build() for build in alternatives)


# ---------------------------------------------------------------- (q*b) div b = q, (q*b) mod b = 0


ExactQuotient = record("ExactQuotient", "kind divisor quotient",
                       "``(q*b) div b`` or ``mod``: the divisor and the exact quotient of the dividend by it.")


def _match_exact(t: Term, r: Term):
    if r.args[1].kind == CONST:
        return None
    a, b = r.args
    q = exact_quotient(a, b)
    return None if q is None else ExactQuotient(r.kind, b, q)


def _exact_result(m: ExactQuotient, normalize: Normalize) -> Term:
    return m.quotient if m.kind == DIV else T.ZERO


# ---------------------------------------------------------------- (m*a) div (m*b) = a div b


CommonFactor = record("CommonFactor", "kind factor common dividend divisor_scale divisor_monomial",
                      "``(m*a) div (kb*pb)``: the common monomial ``factor`` (and its factors ``common``), the "
                      "dividend's monomials with their coefficients, the divisor as ``kb*pb``.")


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
    return CommonFactor(r.kind, T.mul(*common), common, coefs, kb, pb)


def _common_factor_conditions(m: CommonFactor, normalize: Normalize) -> Conditions:
    """``m > 0`` (a negative ``m`` breaks ``0 <= remainder``), and the divisor left, ``b``,
    is not zero: ``(m*a) div 0`` and ``a div 0`` are unrelated unspecified values."""
    yield (T.gt(m.factor, T.ZERO),)
    yield (T.ne(_kept_divisor(m), T.ZERO),)


def _kept_divisor(m: CommonFactor) -> Term:
    return T.scale(T.mul(T.ONE, *remove_factors(factors(m.divisor_monomial), m.common)), m.divisor_scale)


def _common_factor_result(m: CommonFactor, normalize: Normalize) -> Term:
    a2 = divide_monomials(m.dividend.items(), m.common, 1)
    b2 = _kept_divisor(m)
    if m.kind == DIV:
        return normalize(T.div(a2, b2))
    return T.mul(m.factor, normalize(T.mod(a2, b2)))


# ---------------------------------------------------------------- (c*x) div (x div m) = c*m


QuotientDivisor = record("QuotientDivisor", "kind divisor x by multiple",
                         "``(c*x) div (x div m)``: the divisor ``x div m``, its ``x`` and ``m``, and ``c``.")


def _match_quotient_divisor(t: Term, r: Term):
    a, b = r.args
    if b.kind != DIV:  # a div divisor is never constant
        return None
    x, m = b.args
    c = T.ONE if a is x else exact_quotient(a, x)
    if c is None or (m.kind == CONST and m.data == 0):
        return None
    return QuotientDivisor(r.kind, b, x, m, c)


def _quotient_divisor_conditions(m: QuotientDivisor, normalize: Normalize) -> Conditions:
    """``m`` divides ``x`` exactly (``x = m*(x div m)``; for a constant ``m``: ``x mod m = 0``)
    and the divisor ``x div m`` is not zero."""
    if m.by.kind == CONST:
        yield (T.eq(T.mod(m.x, m.by), T.ZERO),)
    else:
        yield (normalize(T.eq(T.sub(m.x, T.mul(m.by, m.divisor)), T.ZERO)),)
    yield (T.ne(m.divisor, T.ZERO),)


def _quotient_divisor_result(m: QuotientDivisor, normalize: Normalize) -> Term:
    return T.mul(m.multiple, m.by) if m.kind == DIV else T.ZERO


# ---------------------------------------------------------------- x div y = 0 when 0 <= x < |y|


Quotient = record("Quotient", "kind dividend divisor", "A quotient or remainder by a symbolic divisor.")


def _match_range(t: Term, r: Term):
    a, b = r.args
    return None if b.kind == CONST else Quotient(r.kind, a, b)


def _range_conditions(m: Quotient, normalize: Normalize) -> Conditions:
    a, b = m.dividend, m.divisor
    yield (T.ge(a, T.ZERO),)
    yield _lazy(lambda: T.gt(b, a), lambda: T.lt(b, T.neg(a)))


def _range_result(m: Quotient, normalize: Normalize) -> Term:
    return T.ZERO if m.kind == DIV else m.dividend


# ---------------------------------------------------------------- b <= a < 2*b: a div b = 1, a mod b = a - b


def _one_divisor_conditions(m: Quotient, normalize: Normalize) -> Conditions:
    """``b <= a`` and ``a < 2*b``, which together make ``b > 0``: then ``a = b*1 + (a - b)``
    with ``0 <= a - b < b`` (PyTorch's ``s mod (s - 1)`` with ``s >= 3`` is 1)."""
    yield (T.le(m.divisor, m.dividend),)
    yield (T.lt(T.sub(m.dividend, m.divisor), m.divisor),)


def _one_divisor_result(m: Quotient, normalize: Normalize) -> Term:
    return T.ONE if m.kind == DIV else normalize(T.sub(m.dividend, m.divisor))


# ---------------------------------------------------------------- k*b divides a: a mod b = 0, a div b = k*(a div (k*b))

#: the multiples ``k*b`` of a symbolic divisor ``b`` whose known zero remainder is looked up
#: (PyTorch's export records ``a mod (4*(s - 1)) == 0`` and then asks about ``a mod (s - 1)``)
MULTIPLES = (2, 4, 8)


def _known_multiple_conditions(ks: tuple[int, ...]) -> Callable[[object, Normalize], Conditions]:
    """``a mod (k*b) = 0`` known for one of ``ks``, and ``b != 0``: then ``a = k*b*q`` with
    ``q = a div (k*b)``, so ``a = b*(k*q) + 0`` and, ``b`` being non-zero, ``a div b = k*q`` and
    ``a mod b = 0`` by the uniqueness of SMT-LIB's division (``0 <= a mod b < |b|``)."""
    def conditions(m: Quotient, normalize: Normalize) -> Conditions:
        yield tuple(T.eq(T.mod(m.dividend, T.scale(m.divisor, k)), T.ZERO) for k in ks)
        yield (T.ne(m.divisor, T.ZERO),)

    return conditions


def _known_multiple_quotient(k: int) -> Callable[[object, Normalize], Term]:
    """``k*(a div (k*b))``, its quotient not normalised again: that would ask this row of
    ``a div (k*k*b)``, and so on while the remainders are known (a chain, never a loop, but
    one a planted unconditional row would follow forever)."""
    def result(m: Quotient, normalize: Normalize) -> Term:
        return T.scale(T.div(m.dividend, T.scale(m.divisor, k)), k)

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


ProductWithQuotient = record("ProductWithQuotient", "scale dividend divisor divisor_scale",
                             "``scale*f*(dividend div divisor)`` with ``divisor = divisor_scale*f`` (a product).")


def _match_exact_product(t: Term, r: Term):
    """``f*(a div b)`` with ``b = kb*f`` (a symbolic divisor), from a product."""
    kr, orders = _two_factors(t, r)
    for f, g in orders:
        if g.kind != DIV or g.args[1].kind == CONST:
            continue
        a, b = g.args
        kb, pb = T.content(b)
        if pb is f:
            return ProductWithQuotient(kr, a, b, kb)
    return None


def _exact_product_conditions(m: ProductWithQuotient, normalize: Normalize) -> Conditions:
    yield (T.ne(m.divisor, T.ZERO),)
    yield (T.eq(normalize(T.mod(m.dividend, m.divisor)), T.ZERO),)


def _exact_product_result(m: ProductWithQuotient, normalize: Normalize) -> Term:
    """Sound: for ``b != 0``, ``a = b*(a div b) + a mod b``; with the remainder 0,
    ``a = kb*(f*(a div b))`` is a multiple of ``kb`` whose exact quotient is ``f*(a div b)``."""
    return T.scale(normalize(T.div(m.dividend, T.const(m.divisor_scale))), m.scale)


# ---------------------------------------------------------------- b*(a div b) = a - a mod b


def _match_divisor_times_quotient(t: Term, r: Term):
    """``k*b*(a div b)`` (or ``k*b*(a div -b)``) with a symbolic divisor, from a product."""
    m = _match_exact_product(t, r)
    return m if m is not None and m.divisor_scale in (1, -1) else None


def _divisor_times_quotient_result(m: ProductWithQuotient, normalize: Normalize) -> Term:
    """Sound for ``b != 0``: SMT-LIB's ``a = b*(a div b) + a mod b``, so ``b*(a div b)`` is
    ``a - a mod b``, whose remainder the layers bound (``0 <= a mod b < |b|``); with
    ``f = kb*b`` (``kb = ±1``), ``f*(a div b) = kb*(a - a mod b)``."""
    return T.scale(T.sub(m.dividend, T.mod(m.dividend, m.divisor)), m.scale * m.divisor_scale)


# ---------------------------------------------------------------- f*(a div c) = (f*a) div c when c divides a


FactorTimesQuotient = record("FactorTimesQuotient", "scale factor dividend divisor",
                             "``scale*factor*(dividend div divisor)``, the divisor a non-zero constant.")


def _match_product_of_exact_quotient(t: Term, r: Term):
    """``k*f*(a div c)`` with a non-zero constant ``c``, from a product."""
    kr, orders = _two_factors(t, r)
    for f, g in orders:
        if g.kind == DIV and g.args[1].kind == CONST and g.args[1].data != 0:
            return FactorTimesQuotient(kr, f, g.args[0], g.args[1])
    return None


def _product_of_exact_quotient_conditions(m: FactorTimesQuotient, normalize: Normalize) -> Conditions:
    """``c`` divides ``a``, and the facts know ``(f*a) mod c`` to be 0 as well: the product is
    rewritten only where it meets a quantity they track (rewritten everywhere, a product of
    two quotients loses the interval bound of its factors: 52 proofs of the corpus). An expand
    row: in the normal form, the product changed keys once the remainders became known, and
    a bound stated on it before was no longer read (proofs release a04f2a6 had)."""
    yield (T.eq(T.mod(m.dividend, m.divisor), T.ZERO),)
    yield (T.eq(T.mod(T.mul(m.factor, m.dividend), m.divisor), T.ZERO),)


def _product_of_exact_quotient_result(m: FactorTimesQuotient, normalize: Normalize) -> Term:
    """Sound when ``a mod c = 0``: ``a = c*q``, so ``f*a = c*(f*q)`` exactly and
    ``(f*a) div c = f*q = f*(a div c)`` (PyTorch's ``s0*(s30 // 8)`` after ``s30 % 8 == 0``,
    compared with ``s30*s0``, whose remainder by 8 is known)."""
    return T.scale(normalize(T.div(T.mul(m.factor, m.dividend), m.divisor)), m.scale)


# ---------------------------------------------------------------- k*(a div c) + R = (k/c)*a + R when c divides a


MultipleInSum = record("MultipleInSum", "sum index dividend divisor",
                       "A sum whose ``index``-th term is a multiple of ``dividend div divisor``.")


def _match_exact_quotient_in_sum(t: Term, r: Term):
    """A sum with a term ``k*(a div c)``: ``c`` a non-zero constant dividing ``k``."""
    if r.kind != LIN:
        return None
    coefs = r.data[0]
    kinds = list(map(_KIND, r.args))  # in C: a prefix sum's hundreds of lengths hold no quotient
    if DIV not in kinds:
        return None
    for i in itertools.compress(range(len(kinds)), map(operator.is_, kinds, itertools.repeat(DIV))):
        q = r.args[i]
        c = q.args[1]
        if c.kind == CONST and c.data != 0 and coefs[i] % c.data == 0:
            return MultipleInSum(r, i, q.args[0], c)
    return None


def _exact_quotient_in_sum_conditions(m: MultipleInSum, normalize: Normalize) -> Conditions:
    yield (T.eq(T.mod(m.dividend, m.divisor), T.ZERO),)


def _exact_quotient_in_sum_result(m: MultipleInSum, normalize: Normalize) -> Term:
    """Sound when ``a mod c = 0``: ``a = c*(a div c)``, so ``k*(a div c) = (k/c)*a`` exactly
    (PyTorch's ``s36 - 8*(s0*(s30 // 8))`` after ``s30 % 8 == 0``, against ``s36 != s30*s0``)."""
    coefs, const = m.sum.data
    k = coefs[m.index]
    rest = [T.scale(b, v) for j, (b, v) in enumerate(zip(m.sum.args, coefs)) if j != m.index]
    return normalize(T.add(T.const(const, m.sum.sort), T.scale(m.dividend, k // m.divisor.data), *rest))


# ---------------------------------------------------------------- d*(a / d) = a


RealProduct = record("RealProduct", "scale dividend divisor", "``scale*divisor*(dividend / divisor)``.")


def _match_real_product(t: Term, r: Term):
    """``k*d*(a / d)``: a Real quotient times its own divisor."""
    kr, orders = _two_factors(t, r)
    for f, g in orders:
        if g.kind == RDIV and g.args[1] is f:
            return RealProduct(kr, g.args[0], f)
    return None


# ---------------------------------------------------------------- to_real(a)*to_real(b) = to_real(a*b)


EmbeddedProduct = record("EmbeddedProduct", "scale product",
                         "``scale*to_real(a)*to_real(b)...``: ``product`` is the product of the embeddings.")


def _match_product_of_embeddings(t: Term, r: Term):
    """``k*to_real(a)*to_real(b)...``: a Real product of Int values, from a product."""
    if t.kind != MUL or r.sort is INT:
        return None
    kr, p = T.content(r)
    if p.kind != MUL or any(f.kind != TO_REAL for f in p.args):
        return None
    return EmbeddedProduct(kr, p)


def _embedded_product(m: EmbeddedProduct, normalize: Normalize) -> Term:
    """Exact: the embedding of the integers into the reals keeps products
    (PyTorch's ``ToFloat(u2)*ToFloat(u3)`` against ``ToFloat(u0*u1)``)."""
    return T.scale(T.to_real(normalize(T.mul(*(f.args[0] for f in m.product.args)))), m.scale)


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


CommonComparison = record("CommonComparison", "comparison factor common",
                          "``m*a <op> m*b``: the comparison, its common monomial ``factor`` and that one's factors.")


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
    return CommonComparison(r, T.mul(*common), common)


def _cancelled(sign: int) -> Callable[[CommonComparison, Normalize], Term]:
    def result(m: CommonComparison, normalize: Normalize) -> Term:
        x = m.comparison.args[0]
        reduced = divide_monomials(zip(x.args, x.data[0]), m.common, sign)
        return normalize(T.rebuild(m.comparison, (reduced,)))

    return result


# ---------------------------------------------------------------- min(a, b) = a when a <= b


def _ordered(first: bool) -> Callable[[object, Normalize], Conditions]:
    """``min(a, b) = a`` when ``a <= b`` (``b`` when ``b <= a``); ``max`` the other way."""
    def conditions(r, normalize: Normalize) -> Conditions:
        a, b = r.args if first else reversed(r.args)
        yield (T.le(a, b) if r.kind == MIN else T.ge(a, b),)

    return conditions


# ---------------------------------------------------------------- a/d <op> 0  iff  a <op> 0 (d > 0)


RealQuotient = record("RealQuotient", "comparison divisor coefs constant quotient",
                      "A Real comparison ``k*(a / d) + R <op> 0``: the sum's monomials and constant, the quotient.")


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
    return RealQuotient(r, q.args[1], coefs, c, q)


def _real_quotient_conditions(m: RealQuotient, normalize: Normalize) -> Conditions:
    yield (T.ne(m.divisor, T.ZERO) if m.comparison.kind in (EQ, NE) else T.gt(m.divisor, T.ZERO),)


def _real_quotient_result(m: RealQuotient, normalize: Normalize) -> Term:
    """Sound: for ``d != 0``, ``(a / d)*d = a``, so ``x = 0`` iff ``x*d = 0``; and for
    ``d > 0`` multiplying by ``d`` keeps the order. SMT-LIB's ``a / 0`` (unspecified) is
    excluded by the condition."""
    d, q = m.divisor, m.quotient
    parts = [T.scale(q.args[0], m.coefs[q])] + [T.scale(T.mul(a, d), v) for a, v in m.coefs.items() if a is not q]
    cleared = T.add(T.scale(d, m.constant), *parts)
    return normalize(_integral(m.comparison.kind, cleared) or T.rebuild(m.comparison, (cleared,)))


def _integral(kind: Kind, s: Term) -> Term | None:
    """``s <kind> 0`` as an Int comparison when ``s`` sums Int values (``to_real(x)``) with
    rational coefficients: ``s = P/d`` with ``d > 0``, so ``s <kind> 0`` iff ``P <kind> 0``."""
    if not T.linear_parts(s)[0]:
        return None
    split = T.as_int_over(s)
    if split is None:
        return None
    return {LE: T.le, LT: T.lt, EQ: T.eq, NE: T.ne}[kind](split.numerator, T.ZERO)


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


Thinned = record("Thinned", "kind kept", "An and/or and the members it keeps.")


def _match_subsumed(thin: Thinning) -> Callable[[Term, Term], object | None]:
    """An and/or whose members ``thin`` (its kind, its members by id -> those kept) thins:
    ``(its kind, the kept members)``, or None."""
    def match(t: Term, r: Term):
        if len(r.args) > MAX_JUNCTION_MEMBERS:
            return None
        seen = {a.id: a for a in r.args}
        kept = thin(r.kind, dict(seen))
        return None if len(kept) == len(seen) else Thinned(r.kind, tuple(kept.values()))

    return match


def _junction_of(m: Thinned, normalize: Normalize) -> Term:
    """The thinned junction, normalised again: the other row may thin it further."""
    return normalize(T.and_(*m.kept) if m.kind == AND else T.or_(*m.kept))


# ---------------------------------------------------------------- an open guard: bounds on its max/min or quotient
# Rows of one open comparison while it is decided (never of facts: they keep their atoms,
# whose value bounds feed the network, and only open guards pay), their conditions read from
# the bounds the network holds, registering nothing (the reasoner's ``_expanded``).
#
# ``k*max(a, b) + R <= 0`` with ``k > 0`` holds exactly when ``k*a + R <= 0`` and
# ``k*b + R <= 0``; a ``min`` with ``k < 0`` likewise; the other two signs give an ``or``
# (``min(a, b) <= s`` iff ``a <= s`` or ``b <= s``). The polyhedral layer sees ``max(a, b)``
# only as an atom above ``a`` and ``b``: PyTorch's ``if max(a, b) <= size`` after
# ``a + b <= size`` is UNKNOWN without the row, while each conjunct is a question isl answers.
#
# For ``b > 0``, ``q = a div b`` is the ``q`` with ``a = b*q + r``, ``0 <= r < b``: ``q <= c``
# iff ``a < (c + 1)*b`` and ``q >= c`` iff ``a >= c*b``; ``q = c`` is both, ``q != c`` its
# negation; where ``a mod b = 0``, ``a = b*q`` and the bounds are exact (``q <= c`` iff
# ``a <= c*b``). PyTorch's export asks ``(s*t) div (s - 1) == 1`` after
# ``(s*t) mod (s - 1) == 0`` with ``s >= 3``, ``t >= 2``; only the bound ``s*t >= 2*(s - 1)``
# (which the product layer gives) refutes it, and the layers see the quotient as an atom.


ExtremumBound = record("ExtremumBound", "comparison extremum scale rest",
                       "``scale*extremum + rest <op> 0``, the extremum the sum's first max/min atom.")


def _match_extremum_bound(t: Term, r: Term) -> ExtremumBound | None:
    x = r.args[0]
    coefs, c = T.linear_parts(x)
    atom = next((a for a in coefs if a.kind in (MIN, MAX)), None)
    if atom is None:
        return None
    k = coefs.pop(atom)
    return ExtremumBound(r, atom, k, T.make_linear(x.sort, coefs, c))


def _operand_bounds(m: ExtremumBound, normalize: Normalize) -> Term:
    build = T.le if m.comparison.kind == LE else T.lt
    sides = [build(T.add(T.scale(arg, m.scale), m.rest), T.ZERO) for arg in m.extremum.args]
    conjunctive = (m.extremum.kind == MAX) == (m.scale > 0)
    return T.and_(*sides) if conjunctive else T.or_(*sides)


QuotientComparison = record("QuotientComparison", "kind dividend divisor scale constant",
                            "``scale*(dividend div divisor) + constant <kind> 0``, an Int comparison.")


def _match_quotient_comparison(t: Term, r: Term) -> QuotientComparison | None:
    """A symbolic divisor; an (dis)equality only where ``scale*q = -constant`` has an integer
    solution (else the layers decide it already)."""
    x = r.args[0]
    if x.sort is not INT:
        return None
    coefs, c = T.linear_parts(x)
    if len(coefs) != 1:
        return None
    (q, k), = coefs.items()
    if q.kind != DIV or q.args[1].kind == CONST or (r.kind in (EQ, NE) and c % k):
        return None
    return QuotientComparison(r.kind, q.args[0], q.args[1], k, c)


def _positive_divisor(m: QuotientComparison, normalize: Normalize) -> Conditions:
    yield (T.gt(m.divisor, T.ZERO),)


def _positive_exact_divisor(m: QuotientComparison, normalize: Normalize) -> Conditions:
    yield (T.gt(m.divisor, T.ZERO),)
    yield (T.eq(T.mod(m.dividend, m.divisor), T.ZERO),)


def _dividend_bounds(exact: bool) -> Callable[[QuotientComparison, Normalize], Term]:
    def result(m: QuotientComparison, normalize: Normalize) -> Term:
        a, b, k, r = m.dividend, m.divisor, m.scale, m.constant
        if m.kind in (EQ, NE):
            c = -r // k
            inside = T.eq(a, T.scale(b, c)) if exact else T.and_(T.ge(a, T.scale(b, c)), T.lt(a, T.scale(b, c + 1)))
            return inside if m.kind == EQ else T.not_(inside)
        bound = -r - (1 if m.kind == LT else 0)  # k*q <= bound
        if k < 0:
            return T.ge(a, T.scale(b, -(bound // -k)))  # q >= ceil(bound / k)
        c = bound // k  # q <= c
        return T.le(a, T.scale(b, c)) if exact else T.lt(a, T.scale(b, c + 1))

    return result


GUARD_ROWS = (
    _rule("a bound on a max/min is the and/or of bounds on its operands", (LE, LT), _match_extremum_bound, None,
          _operand_bounds, Phase.EXPAND),
    _rule("a quotient by a positive divisor that divides compared is exact bounds on the dividend",
          (LE, LT, EQ, NE), _match_quotient_comparison, _positive_exact_divisor, _dividend_bounds(True), Phase.EXPAND),
    _rule("a quotient by a positive divisor compared is bounds on the dividend", (LE, LT, EQ, NE),
          _match_quotient_comparison, _positive_divisor, _dividend_bounds(False), Phase.EXPAND),
)


# ---------------------------------------------------------------- presentation: constant divisions folded
# Exact for every integer (no condition): Euclidean division by a positive ``d`` is
# ``floor(x / d)``; ``floor((floor(z / a) + k) / d) = floor((z + k*a) / (a*d))`` for integers
# ``a, d > 0``; ``floor(g*P / (g*D)) = floor(P / D)`` and ``g*P mod g*D = g*(P mod D)`` for
# ``g > 0``; and ``z mod (m*d) = z - m*d*(z div (m*d))`` is ``z`` plus a multiple of ``d``.


def positive_constant(t: Term) -> bool:
    """An Int constant above zero: a divisor every presentation fold may rely on."""
    return t.kind == CONST and t.sort is INT and t.data > 0


ConstantDivision = record("ConstantDivision", "dividend divisor content",
                          "``dividend div divisor`` (or ``mod``) by a positive constant, the common ``content`` taken "
                          "out of both.")
SumWithQuotient = record("SumWithQuotient", "sum quotient",
                         "A sum and its one quotient by a positive constant that a presentation row folds.")


def _by_positive_constant(t: Term, r: Term) -> ConstantDivision | None:
    return ConstantDivision(r.args[0], r.args[1].data, 1) if positive_constant(r.args[1]) else None


def _match_nested_quotient(t: Term, r: Term) -> ConstantDivision | None:
    """``(z div a + k) div d`` (one atom, coefficient 1, ``a > 0``, ``d > 0``)."""
    m = _by_positive_constant(t, r)
    if m is None:
        return None
    coefs, k = T.linear_parts(m.dividend)
    if len(coefs) != 1:
        return None
    (inner, v), = coefs.items()
    if v != 1 or inner.kind != DIV or not positive_constant(inner.args[1]):
        return None
    a = inner.args[1].data
    return ConstantDivision(T.add(inner.args[0], T.const(k * a)), a * m.divisor, 1)


def content_gcd(x: Term, d: int) -> int:
    """The gcd of ``d`` and every coefficient and the constant of ``x``."""
    coefs, k = T.linear_parts(x)
    return math.gcd(d, k, *coefs.values())


def _divide_all(x: Term, g: int) -> Term:
    coefs, k = T.linear_parts(x)
    return T.make_linear(INT, {a: v // g for a, v in coefs.items()}, k // g)


def _match_common_content(t: Term, r: Term) -> ConstantDivision | None:
    m = _by_positive_constant(t, r)
    if m is None:
        return None
    g = content_gcd(m.dividend, m.divisor)
    return None if g == 1 else ConstantDivision(_divide_all(m.dividend, g), m.divisor // g, g)


def _mod_by_multiple(t: Term, d: int) -> bool:
    return t.kind == MOD and positive_constant(t.args[1]) and t.args[1].data % d == 0


def _match_inner_remainder(t: Term, r: Term) -> ConstantDivision | None:
    """``... + z mod (m*d) + ...`` inside a remainder by ``d``."""
    m = _by_positive_constant(t, r)
    if m is None:
        return None
    d = m.divisor
    coefs, k = T.linear_parts(m.dividend)
    if not any(_mod_by_multiple(a, d) for a in coefs):
        return None
    return ConstantDivision(
        T.add(T.const(k), *(T.scale(a.args[0] if _mod_by_multiple(a, d) else a, v) for a, v in coefs.items())), d, 1)


def _match_quotient_in_sum(t: Term, r: Term) -> SumWithQuotient | None:
    """A sum (what ``x div d`` splits into: ``q + r div d``) with one quotient by a positive
    constant that a presentation row folds."""
    atoms = [a for a in T.linear_parts(r)[0] if a.kind == DIV and positive_constant(a.args[1])]
    if len(atoms) != 1 or not any(row.match(atoms[0], atoms[0]) for row in PRESENT_BY_KIND[DIV]):
        return None
    return SumWithQuotient(r, atoms[0])


def _quotient_in_sum_folded(m: SumWithQuotient, present: Normalize) -> Term:
    coefs, k = T.linear_parts(m.sum)
    return T.add(T.const(k), *(T.scale(present(m.quotient) if b is m.quotient else b, v) for b, v in coefs.items()))


def _presented(kind: Kind, m: ConstantDivision, present: Normalize) -> Term:
    """``dividend div divisor`` (``mod``: times the content), presented again."""
    if kind == DIV:
        return present(T.div(m.dividend, T.const(m.divisor)))
    return T.scale(present(T.mod(m.dividend, T.const(m.divisor))), m.content)


PRESENTATION_ROWS = (
    _rule("nested constant quotients are one quotient", (DIV,), _match_nested_quotient, None,
          lambda m, present: _presented(DIV, m, present), Phase.PRESENT),
    _rule("a common content leaves a smaller constant quotient", (DIV,), _match_common_content, None,
          lambda m, present: _presented(DIV, m, present), Phase.PRESENT),
    _rule("a remainder by a multiple inside a constant remainder is its dividend", (MOD,), _match_inner_remainder,
          None, lambda m, present: _presented(MOD, m, present), Phase.PRESENT),
    _rule("a common content leaves a smaller constant remainder", (MOD,), _match_common_content, None,
          lambda m, present: _presented(MOD, m, present), Phase.PRESENT),
    _rule("the one constant quotient of a sum folded", (LIN,), _match_quotient_in_sum, None,
          _quotient_in_sum_folded, Phase.PRESENT),
)


# ---------------------------------------------------------------- presentation: values the facts fix
# Rows of phase PRESENT_FIXED, applied once per node of a term shown (simplify's driver, children
# first). The match gets ``(t, shown, bounds)``: ``t`` as written (a node of the normal form or of
# the term as asked), ``shown`` the presented form of any sub-term of ``t`` (equal to it wherever
# the facts hold: the driver's own results), ``bounds`` the reasoner's numeric bounds. The value
# the facts fix (a point, a remainder) is not a part of ``t`` a match could name, so the match
# reads it from ``bounds`` into its record; the conditions state that value (``t = c``,
# ``x mod d = r``) and the driver has the reasoner prove them, so a value misread is refuted
# there and never shown. Given its conditions each result equals ``t`` (``shown`` aside).

#: what a present-fixed match reads a sub-term's presented form with
Shown = Callable[[Term], Term]
#: the reasoner's numeric ``(lo, hi)`` of a term (``-inf``/``inf`` where unbounded)
Bounds = Callable[[Term], tuple[object, object]]

#: every kind a numeric term has, a constant's aside (a var, fn or ite may be Bool: the match looks)
NUMERIC_KINDS = (VAR, LIN, MUL, DIV, MOD, RDIV, POW, TO_INT, CEIL, TO_REAL, MIN, MAX, FN, DEF, ITE)


def is_point(lo: object, hi: object) -> bool:
    """Bounds that allow one value."""
    return lo == hi and lo not in (math.inf, -math.inf)


Point = record("Point", "term value", "A numeric term and the one value its bounds allow.")


def _match_point(t: Term, shown: Shown, bounds: Bounds) -> Point | None:
    if t.sort is BOOL:
        return None
    lo, hi = bounds(t)
    return Point(t, lo) if is_point(lo, hi) else None


def _point_conditions(m: Point, again: Normalize) -> Conditions:
    yield (T.eq(m.term, _point_result(m, again)),)


def _point_result(m: Point, again: Normalize) -> Term:
    return T.const(m.value, m.term.sort)


FixedRemainder = record("FixedRemainder", "dividend shown divisor remainder",
                        "``dividend mod divisor = remainder`` as the facts fix it (``divisor > 0``); ``shown``: the "
                        "dividend as presented.")
FixedQuotient = record("FixedQuotient", "constant fixed",
                       "``(Q + constant) div d``: ``fixed`` holds ``Q mod d``, ``Q`` the dividend less the constant.")
FixedMultiples = record("FixedMultiples", "constant parts",
                        "A sum's constant and, per atom, ``(atom as presented, coefficient, FixedRemainder or None)``: "
                        "one with a remainder is a quotient by a divisor of its coefficient.")


def _fixed_remainder(bounds: Bounds, x: Term, shown_x: Term, d: int) -> FixedRemainder | None:
    """``x mod d`` read from the bounds, when they fix it."""
    lo, hi = bounds(T.mod(x, T.const(d)))
    return FixedRemainder(x, shown_x, d, lo) if is_point(lo, hi) else None


def _remainder_is(f: FixedRemainder) -> Term:
    return T.eq(T.mod(f.dividend, T.const(f.divisor)), T.const(f.remainder))


def _without_constant(x: Term) -> tuple[Term, int]:
    coefs, k = T.linear_parts(x)
    return T.make_linear(INT, coefs, 0), k


def _match_fixed_quotient(t: Term, shown: Shown, bounds: Bounds) -> FixedQuotient | None:
    """``x div d`` (``d > 0``) whose dividend is presented ``Q + k`` (``k != 0``, ``Q`` not a
    constant), with ``(x - k) mod d`` fixed."""
    if not positive_constant(t.args[1]):
        return None
    q, k = _without_constant(shown(t.args[0]))
    if k == 0 or q.kind == CONST:
        return None
    fixed = _fixed_remainder(bounds, T.sub(t.args[0], T.const(k)), q, t.args[1].data)
    return None if fixed is None else FixedQuotient(k, fixed)


def _fixed_quotient_conditions(m: FixedQuotient, again: Normalize) -> Conditions:
    yield (_remainder_is(m.fixed),)


def _fixed_quotient_result(m: FixedQuotient, again: Normalize) -> Term:
    """``Q = d*(Q div d) + r`` with ``0 <= r < d``, so ``(Q + k) div d = Q div d + (r + k) div d``
    exactly; ``again`` presents ``Q div d`` (folds it)."""
    f = m.fixed
    return T.add(again(T.div(f.shown, T.const(f.divisor))), T.const(T.euclid_div(f.remainder + m.constant, f.divisor)))


def _fixed_multiple(bounds: Bounds, q: Term, v: int, x_shown: Term) -> FixedRemainder | None:
    """For ``v*q``, ``q = x div d``: ``x mod d`` when ``d > 0`` divides ``v`` and the bounds fix it."""
    d = q.args[1]
    if not positive_constant(d) or v % d.data:
        return None
    return _fixed_remainder(bounds, q.args[0], x_shown, d.data)


def _match_fixed_multiples(t: Term, shown: Shown, bounds: Bounds) -> FixedMultiples | None:
    """An Int sum with a term ``c*d*(x div d)`` whose ``x mod d`` the facts fix: tried on the atom as
    written, then as presented (``4*((4*x) div 16)`` is presented ``4*(x div 4)``)."""
    if t.sort is not INT:
        return None
    coefs, k = t.data
    parts, found = [], False
    for a, v in zip(t.args, coefs):
        p = shown(a)
        f = _fixed_multiple(bounds, a, v, shown(a.args[0])) if a.kind == DIV else None
        if f is None and p.kind == DIV:
            f = _fixed_multiple(bounds, p, v, p.args[0])
        parts.append((p, v, f))
        found = found or f is not None
    return FixedMultiples(k, tuple(parts)) if found else None


def _fixed_multiples_conditions(m: FixedMultiples, again: Normalize) -> Conditions:
    for _, _, f in m.parts:
        if f is not None:
            yield (_remainder_is(f),)


def _fixed_multiples_result(m: FixedMultiples, again: Normalize) -> Term:
    """``x = d*(x div d) + r``, so ``c*d*(x div d) = c*(x - r)`` exactly; other atoms as presented."""
    return T.add(T.const(m.constant), *(T.scale(p, v) if f is None else
                                        T.scale(T.sub(f.shown, T.const(f.remainder)), v // f.divisor)
                                        for p, v, f in m.parts))


#: a numeric term whose bounds are a point is that constant (simplify asks it of a whole term too)
POINT_ROW = _rule("a term whose bounds are a point is that constant", NUMERIC_KINDS, _match_point,
                  _point_conditions, _point_result, Phase.PRESENT_FIXED)
FIXED_ROWS = (
    POINT_ROW,
    _rule("a quotient whose dividend's remainder is fixed moves the constant out", (DIV,), _match_fixed_quotient,
          _fixed_quotient_conditions, _fixed_quotient_result, Phase.PRESENT_FIXED),
    _rule("a multiple of a quotient whose remainder is fixed is the dividend less it", (LIN,),
          _match_fixed_multiples, _fixed_multiples_conditions, _fixed_multiples_result, Phase.PRESENT_FIXED),
)


# ---------------------------------------------------------------- (a + b)*(c + d) = a*c + a*d + b*c + b*d


ProductOfSums = record("ProductOfSums", "factors",
                       "A product with a sum among its ``factors``, multiplied out within the size limit.")


_KIND = operator.attrgetter("kind")


def _has_sum_factor(t: Term) -> bool:
    return t.kind == MUL and any(f.kind == LIN for f in t.args)


def _match_product_of_sums(t: Term, r: Term):
    return ProductOfSums(r.args) if _has_sum_factor(r) and within_expansion(r.args) else None


#: products of sums as their monomials (phase MULTIPLY_OUT, driven by :func:`distribute`)
MULTIPLYING_OUT = (
    _rule("a product of sums is the sum of its monomials", (MUL,), _match_product_of_sums, None,
          lambda m, again: expand(m.factors), Phase.MULTIPLY_OUT),
)


def distribute(t: Term) -> Term | None:
    """``t`` with its products of sums multiplied out by the MULTIPLY_OUT rows (``s1*(s0 - 1)
    + s1`` is ``s0*s1``), or None when it has none, or when one would pass
    :data:`monomials.MAX_EXPANDED` monomials.

    The normal form keeps products factored (intervals read a factored product more
    precisely); the expanded reading may instead meet a bounded key (``s0*s1 <= N``) or
    cancel terms. Equal values, so either reading is sound."""
    if MUL not in map(_KIND, t.args if t.kind == LIN else (t,)):  # the common case, in C: no product
        return None
    coefs, c = T.linear_parts(t)
    parts = []
    changed = False
    for a, v in coefs.items():
        if _has_sum_factor(a):
            expanded = rewrite(MULTIPLY_OUT_BY_KIND[a.kind], (a, a))
            if expanded is None:
                return None
            parts.append(T.scale(expanded, v))
            changed = True
        else:
            parts.append(T.scale(a, v))
    return T.add(T.const(c, t.sort), *parts) if changed else None


#: the table; for one term the rows of its kind are tried in order, the first proved wins
RULES: tuple[Row, ...] = (
    _rule("exact quotient", (DIV, MOD), _match_exact,
          _requires(lambda m: T.ne(m.divisor, T.ZERO)), _exact_result, final=True),
    _rule("common factor of dividend and divisor", (DIV, MOD), _match_common_factor,
          _common_factor_conditions, _common_factor_result),
    _rule("divisor is an exact quotient of the dividend", (DIV, MOD), _match_quotient_divisor,
          _quotient_divisor_conditions, _quotient_divisor_result),
    _rule("dividend below the divisor", (DIV, MOD), _match_range, _range_conditions, _range_result),
    _rule("dividend between one and two divisors", (DIV, MOD), _match_range, _one_divisor_conditions,
          _one_divisor_result),
    _rule("remainder by a divisor of a known multiple", (MOD,), _match_range,
          _known_multiple_conditions(MULTIPLES), lambda m, normalize: T.ZERO, known_keys_only=True),
    *(_rule(f"quotient by a divisor of a known multiple ({k}*b)", (DIV,), _match_range,
            _known_multiple_conditions((k,)), _known_multiple_quotient(k), known_keys_only=True)
      for k in MULTIPLES),
    _rule("ite of a proved condition is its first branch", (ITE,), _itself, _ite_branch(True),
          lambda r, normalize: r.args[1]),
    _rule("ite of a refuted condition is its second branch", (ITE,), _itself, _ite_branch(False),
          lambda r, normalize: r.args[2]),
    _rule("min/max of ordered operands is the first", (MIN, MAX), _itself, _ordered(True),
          lambda r, normalize: r.args[0]),
    _rule("min/max of ordered operands is the second", (MIN, MAX), _itself, _ordered(False),
          lambda r, normalize: r.args[1]),
    _rule("divisor times its quotient is the dividend less the remainder", (MUL,), _match_divisor_times_quotient,
          _requires(lambda m: T.ne(m.divisor, T.ZERO)), _divisor_times_quotient_result, Phase.EXPAND),
    _rule("divisor times its exact quotient", (MUL, LIN), _match_exact_product,
          _exact_product_conditions, _exact_product_result, final=True),
    _rule("factor times an exact quotient by a constant", (MUL,), _match_product_of_exact_quotient,
          _product_of_exact_quotient_conditions, _product_of_exact_quotient_result, Phase.EXPAND,
          known_keys_only=True),
    _rule("multiple of an exact quotient by a constant in a sum", (LIN,), _match_exact_quotient_in_sum,
          _exact_quotient_in_sum_conditions, _exact_quotient_in_sum_result, known_keys_only=True),
    _rule("divisor times its real quotient", (MUL, LIN), _match_real_product,
          _requires(lambda m: T.ne(m.divisor, T.ZERO)), lambda m, normalize: T.scale(m.dividend, m.scale),
          final=True),
    _rule("a product of embedded integers is the embedded product", (MUL, LIN), _match_product_of_embeddings,
          None, _embedded_product),
    _rule("cancel a non-zero common factor", (EQ, NE), _match_common_comparison,
          _requires(lambda m: T.ne(m.factor, T.ZERO)), _cancelled(1), final=True),
    _rule("cancel a positive common factor", (LE, LT), _match_common_comparison,
          _requires(lambda m: T.gt(m.factor, T.ZERO)), _cancelled(1)),
    _rule("cancel a negative common factor (flips the inequality)", (LE, LT), _match_common_comparison,
          _requires(lambda m: T.lt(m.factor, T.ZERO)), _cancelled(-1)),
    _rule("a real comparison of embedded integers is an integer comparison", (EQ, NE, LE, LT),
          _match_embedded_comparison, None, _embedded_comparison),
    _rule("clear a real denominator", (EQ, NE, LE, LT), _match_real_quotient,
          _real_quotient_conditions, _real_quotient_result),
    _rule("an and/or keeps one bound per linear form", (AND, OR),
          _match_subsumed(lambda kind, seen: one_bound_per_form(kind, seen)), None, _junction_of),
    _rule("an or drops an equality another disjunct holds at", (OR,),
          _match_subsumed(lambda kind, seen: absorbed_equalities(seen)), None, _junction_of),
    *GUARD_ROWS,
    *PRESENTATION_ROWS,
    *FIXED_ROWS,
    *MULTIPLYING_OUT,
)
#: every rewrite row of every phase: the constructors' (CONSTRUCT), then this table's
ROWS: tuple[Row, ...] = T.CONSTRUCTION + T.NAMING + T.SUBSTITUTING + RULES

#: the rows the normal form applies (their conditions asked of layers 0-1)
DECIDING: tuple[Row, ...] = tuple(r for r in RULES if r.phase is Phase.DECIDE)
BY_KIND = by_kind(RULES, Phase.DECIDE)
#: the rows presentation applies, exact for every integer
PRESENT_BY_KIND = by_kind(RULES, Phase.PRESENT)
#: the rows presentation applies where the facts fix a value (simplify's driver proves them)
FIXED_BY_KIND = by_kind(RULES, Phase.PRESENT_FIXED)
#: the rows an open guard (a comparison) and its monomials (products) meet while it is decided
EXPANDING: tuple[Row, ...] = tuple(r for r in RULES if r.phase is Phase.EXPAND)
EXPAND_BY_KIND = by_kind(RULES, Phase.EXPAND)
#: the rows that multiply a product of sums out (no conditions)
MULTIPLY_OUT_BY_KIND = by_kind(RULES, Phase.MULTIPLY_OUT)


def rewrite_exact(t: Term, by_kind: dict[Kind, tuple[Row, ...]]) -> Term:
    """``t`` rewritten by the unconditional rows of a phase until none applies (a row's
    result presents the terms it builds the same way)."""
    present = lambda s: rewrite_exact(s, by_kind)  # noqa: E731
    while True:
        out = rewrite(by_kind.get(t.kind, ()), (t, t), present)
        if out is None:
            return t
        t = out
