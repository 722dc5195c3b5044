"""Hash-consed terms of shape programs: sorts Int / Real / Bool.

Every constructor returns the one interned object for its structure, so equality
of terms is identity and a term can be a dict key at the cost of ``id``.

Canonical forms, established by the constructors (never by later passes):

* Numeric terms are a constant, an *atom* (a variable or a nonlinear application)
  or a ``lin``: a sum ``c1*a1 + ... + cn*an + c`` over atoms sorted by id.
* ``to_real`` is pushed down to atoms, so a Real ``lin`` may mix Real atoms and
  ``to_real`` of Int atoms; ``to_int``/``ceil`` of ``P/d`` (``P`` an Int sum,
  ``d`` a positive integer) become Euclidean ``div``, so ``ceil(s/2)`` and
  ``(s+1) div 2`` are the same term.
* Products are not distributed (a factored product evaluates more precisely in
  intervals); a product is a ``mul`` of primitive factors sorted by id, times a
  constant.
* Comparisons are against zero: ``le`` (t <= 0), ``lt`` (t < 0, Real only),
  ``eq``, ``ne``; Int comparisons are divided by the gcd of their coefficients,
  so ``(< x x)`` or ``(= (+ a 1) (+ 1 a))`` fold to constants.
* Every rewrite from one operator application to another term (constant folding,
  ``div``/``mod`` by a constant, rounding, the prelude's idioms, a comparison divided by
  its gcd, a negation pushed into a comparison) is a row of :data:`CONSTRUCTION`, which
  the constructors run through one engine; what is left to them is the representation
  (a sum as one ``lin``, sorted operands, a comparison's difference with zero).
* Boolean structure is in negation normal form: ``not`` only wraps Bool variables; an
  ``and``/``or`` is flattened, without units or duplicates, and folds when it holds a member
  and its negation. Thinning one further (bounds another member implies, an equality a
  disjunct absorbs) is a row of :mod:`absint.reasoning.rules`, applied when it is normalised.
"""

from __future__ import annotations

import bisect
import contextlib
import itertools
import math
import operator
from fractions import Fraction
from typing import Callable, Iterable, Iterator, Union

import attrs

from absint.lang.dag import subterms
from absint.lang.kinds import (AND, CEIL, CONST, DEF, DISTINCT, DIV, EQ, FN, ITE, LE, LIN, LT, MAX, MIN, MOD, MUL, NE,
                               NOT, OR, POW, RDIV, TO_INT, TO_REAL, VAR, Kind)
from absint.lang.ops import ATOM_KINDS, COMPARISON_KINDS, OPS
from absint.lang.printer import brief, to_smtlib
from absint.lang.rewriting import Phase, Row, by_kind, matched, record, rewrite
from absint.lang.sorts import BOOL, INT, REAL, Sort
from domains.bounds import euclid_div, euclid_mod, pow_exact  # noqa: F401 - constant folding, and re-exported

Number = Union[int, Fraction]


_ids = itertools.count()
_table: dict[tuple, "Term"] = {}
#: (weighted hash, constant) -> the long Int sum interned there (:func:`_intern_long_sum`)
_long_sums: dict[tuple, "Term"] = {}
#: a long Int sum -> its weighted hash
_weighted: dict["Term", int] = {}
#: (kind, sort, operands) -> the term a constructor made of them (see :func:`_construct`);
#: emptied when it holds MAX_CONSTRUCTED (a compiler's process lives long: the memo must not
#: double what its terms cost)
_constructed: dict[tuple, "Term"] = {}
MAX_CONSTRUCTED = 1 << 20
_ID = operator.attrgetter("id")  # the canonical order of atoms and factors
#: a linear form with more atoms than this is interned under one more hash, of its negated
#: coefficients: CPython hashes -1 and -2 alike (-1 is its error code), so the forms of one
#: long sum that differ only in -1/-2 coefficients (``-2*S_k - ...`` after a substitution)
#: hashed alike, and each lookup compared a chain of 256-atom keys (218 us, against 5 us,
#: in a 256-length prefix-sum split). Negated, they differ (1 and 2); the forms that then
#: hash alike (1/2 swapped) differ in the plain hash.
_UNMIXED = 8


@attrs.frozen(eq=False, repr=False, slots=True)
class Term:
    """One interned node. ``args`` are sub-terms; ``data`` is kind-specific payload.

    const: data = value (int, Fraction or bool); var: data = name;
    lin: args = atoms, data = (coefficients, constant);
    comparisons: args = (t,) meaning ``t <op> 0``; others: args are operands.
    """

    kind: Kind
    sort: Sort
    args: tuple["Term", ...]
    data: object
    id: int

    def __repr__(self) -> str:
        return to_smtlib(self)

    @property
    def is_atom(self) -> bool:
        return self.kind in ATOM_KINDS

    @property
    def is_const(self) -> bool:
        return self.kind == CONST


def _intern(kind: Kind, sort: Sort, args: tuple, data: object, weighted: int | None = None) -> Term:
    """The one term of these parts. A long Int sum goes to :func:`_intern_long_sum`, under
    ``weighted`` when the caller knows it (:func:`_weighted_hash`)."""
    if kind is LIN and len(args) > _UNMIXED:
        if sort is INT:
            return _intern_long_sum(args, data, weighted)
        return _intern_keyed(_unmixed_key(sort, args, data), args, data)
    return _intern_keyed((kind, sort, args, data), args, data)


def _unmixed_key(sort: Sort, args: tuple, data: tuple) -> tuple:
    """A long sum's whole key, with the hash of its negated coefficients (:data:`_UNMIXED`)."""
    return LIN, sort, args, data, hash(tuple(map(operator.neg, data[0])))


def _intern_keyed(key: tuple, args: tuple, data: object) -> Term:
    t = _table.get(key)
    if t is None:
        t = Term(key[0], key[1], args, data, next(_ids))
        _table[key] = t
    return t


#: a prime modulus for :func:`_weighted_hash`
_WEIGHT_MODULUS = (1 << 61) - 1


def _weighted_hash(args: tuple, coefs: tuple) -> int:
    """``sum(v * hash(a))`` over a sum's atoms (their identity hashes, read without touching
    the atoms) modulo a prime: additive, so the sum's negation, a multiple, an exact quotient
    or the sum with one atom more has its hash in O(1) from this one."""
    return sum(map(operator.mul, coefs, map(hash, args))) % _WEIGHT_MODULUS


def _intern_long_sum(args: tuple, data: tuple, weighted: int | None) -> Term:
    """A long Int sum interned under its weighted hash and constant: a sum derived from
    another (compared with a number, negated, divided by its gcd, one atom spliced in)
    passes its weighted hash on, so the key is not hashed over every atom (a tuple's hash is
    computed anew at each lookup: four passes over a 512-atom key). The atoms and
    coefficients are compared on a hit; a different sum under the same key (a collision) is
    interned by its whole key instead."""
    coefs, c = data
    if weighted is None:
        weighted = _weighted_hash(args, coefs)
    key = (weighted, c)
    t = _long_sums.get(key)
    if t is None:
        t = _long_sums[key] = Term(LIN, INT, args, data, next(_ids))
    elif t.args == args and t.data[0] == coefs:
        return t
    else:
        t = _intern_keyed(_unmixed_key(INT, args, data), args, data)
    _weighted[t] = weighted
    return t


def table_size() -> int:
    """Number of distinct terms built so far (for memory accounting)."""
    return len(_table) + len(_long_sums)


@contextlib.contextmanager
def fresh_table() -> Iterator[None]:
    """Build terms in a new, empty table for the duration of the block.

    Term ids order atoms in canonical forms, so a program analysed after others
    would otherwise see ids (and tie-breaks) shaped by what came before; inside
    this block a file's terms get the same ids whatever the process did earlier,
    and they are freed afterwards. Terms from outside must not be mixed with
    terms built inside.
    """
    global _table, _constructed, _ids, _negations, _definitions, _by_expansion, _folding, _expansions
    global _long_sums, _weighted
    saved = _table, _constructed, _ids, _negations, _definitions, _by_expansion, _folding, _expansions
    saved_sums = _long_sums, _weighted
    _table, _constructed = dict(_BASE_TABLE), {}
    _long_sums, _weighted = {}, {}
    _ids = itertools.count(_BASE_NEXT_ID)
    _negations = {}
    _definitions, _by_expansion, _folding, _expansions = {}, {}, _Folding(), {}
    try:
        yield
    finally:
        _table, _constructed, _ids, _negations, _definitions, _by_expansion, _folding, _expansions = saved
        _long_sums, _weighted = saved_sums


# ---------------------------------------------------------------- constants, variables

TRUE = _intern(CONST, BOOL, (), True)
FALSE = _intern(CONST, BOOL, (), False)


def const(value: Number | bool, sort: Sort | None = None) -> Term:
    """A constant; the sort defaults to Int for ints, Real for Fractions, Bool for bools."""
    if type(value) is int and sort is not REAL:
        return _intern(CONST, INT, (), value)
    if isinstance(value, bool):
        return TRUE if value else FALSE
    if sort is None:
        sort = INT if isinstance(value, int) else REAL
    if sort is INT:
        if isinstance(value, Fraction):
            if value.denominator != 1:
                raise ValueError(f"{value} is not an integer")
            value = value.numerator
        return _intern(CONST, INT, (), int(value))
    value = Fraction(value)
    return _intern(CONST, REAL, (), value)


def boolean(value: bool) -> Term:
    return TRUE if value else FALSE


def var(name: str, sort: Sort) -> Term:
    return _intern(VAR, sort, (), name)


ZERO = const(0)
ONE = const(1)


# ---------------------------------------------------------------- linear forms

def linear_parts(t: Term) -> tuple[dict[Term, Number], Number]:
    """``t`` as (atom -> coefficient, constant); a fresh dict the caller may change."""
    k = t.kind
    if k == LIN:
        coefs, c = t.data
        return dict(zip(t.args, coefs)), c
    if k == CONST:
        return {}, t.data
    return {t: 1}, 0


def make_linear(sort: Sort, coefs: dict[Term, Number], c: Number) -> Term:
    """The canonical term for ``sum coefs[a]*a + c`` (zero coefficients dropped)."""
    if len(coefs) > _UNMIXED:
        atoms = list(itertools.compress(coefs, coefs.values()))  # the non-zero ones, in C
    else:
        atoms = [a for a, v in coefs.items() if v != 0]
    if not atoms:
        return const(c, sort)
    if len(atoms) == 1:
        a = atoms[0]
        if c == 0 and coefs[a] == 1:
            return a
    else:
        atoms.sort(key=_ID)
    if sort is INT:
        return _intern(LIN, INT, tuple(atoms), (tuple(map(coefs.__getitem__, atoms)), c))
    return _intern(LIN, REAL, tuple(atoms), (tuple([Fraction(coefs[a]) for a in atoms]), Fraction(c)))


def primitive_part(t: Term, k: int) -> Term:
    """The Int linear form ``(t - c) / k`` of a form ``t`` whose coefficients ``k`` divides,
    without its constant ``c``: canonical as it is (:func:`_shifted`), with no dict or sort
    (a prefix sum's key is split off every question about it)."""
    coefs = t.data[0] if k == 1 else tuple(map(operator.floordiv, t.data[0], itertools.repeat(k)))
    return _shifted(t, coefs, 0)


def is_difference(t: Term) -> bool:
    """Whether ``t`` is ``x - y`` (the keys the difference-bound and polyhedral layers read as
    edges: canonical sums order their atoms by id, so ``x`` is the older atom)."""
    return t.kind == LIN and len(t.args) == 2 and tuple(t.data[0]) == (1, -1)


def _check_numeric(t: Term) -> None:
    if t.sort is BOOL:
        raise TypeError(f"expected a numeric term, got Bool term {brief(t)}")


def _common_sort(ts: Iterable[Term]) -> Sort:
    sort = INT
    for t in ts:
        s = t.sort
        if s is not INT:
            if s is BOOL:
                _check_numeric(t)
            sort = REAL
    return sort


def to_real(t: Term) -> Term:
    """Int -> Real embedding, pushed down to atoms (identity on Real terms)."""
    _check_numeric(t)
    if t.sort is REAL:
        return t
    k = t.kind
    if k == CONST:
        return const(Fraction(t.data), REAL)
    if k == LIN:
        coefs, c = t.data
        return make_linear(REAL, {to_real(a): v for a, v in zip(t.args, coefs)}, c)
    return _intern(TO_REAL, REAL, (t,), None)


def _promote(ts: Iterable[Term]) -> tuple[Sort, list[Term]]:
    ts = list(ts)
    sort = _common_sort(ts)
    if sort is REAL:
        ts = [to_real(t) for t in ts]
    return sort, ts


def add(*ts: Term) -> Term:
    if len(ts) > _UNMIXED:
        fast = _long_int_sum(ts)
        if fast is not None:
            return fast
    sort, ts = _promote(ts)
    if len(ts) == 1:
        return ts[0]
    coefs: dict[Term, Number] = {}
    c: Number = 0
    for t in ts:
        k = t.kind
        if k == CONST:
            c += t.data
        elif k == LIN:
            tc, tk = t.data
            c += tk
            accumulate(coefs, t.args, tc)
        else:
            coefs[t] = coefs.get(t, 0) + 1
    return make_linear(sort, coefs, c)


_SORT = operator.attrgetter("sort")
_KIND = operator.attrgetter("kind")
_NOT_PLAIN = frozenset({LIN, CONST})


def _long_int_sum(ts: tuple) -> Term | None:
    """The canonical sum of many Int terms, mostly atoms and multiples of one atom (``-u``),
    each atom once, in passes that run in C or in comprehensions: PyTorch asks about
    prefix sums of hundreds of lengths, and :func:`add`'s loop and :func:`make_linear`'s
    dict cost about 0.3 us an atom (75 us for 256). None (the general path) when an atom
    repeats or a term is not Int."""
    atoms = [t for t in ts if t.kind not in _NOT_PLAIN]
    coefs: dict[Term, Number] = {}
    c: Number = 0
    if len(atoms) != len(ts):
        rest = [t for t in ts if t.kind in _NOT_PLAIN]
        multiples = [t for t in rest if t.kind is LIN and len(t.args) == 1]
        if multiples:
            atoms.extend([t.args[0] for t in multiples])
            coefs.update(zip(atoms[len(atoms) - len(multiples):], [t.data[0][0] for t in multiples]))
            c += sum([t.data[1] for t in multiples])
        if len(multiples) != len(rest):
            merged = _merged([t for t in rest if t.kind is CONST or len(t.args) > 1])
            if merged is None:
                return None
            more, k = merged
            atoms.extend(more)
            coefs.update(more)
            c += k
    return _sum_of_atoms(atoms, coefs, c)


def _sum_of_atoms(atoms: list[Term], coefs: dict, c: Number) -> Term | None:
    """``sum(coefs.get(a, 1) * a) + c`` over distinct Int ``atoms`` (non-zero coefficients),
    canonical: sorted by id in C. None when there are fewer than two, an atom repeats, or
    one is not Int."""
    if len(atoms) < 2 or len(set(atoms)) != len(atoms) or set(map(_SORT, atoms)) != {INT}:
        return None
    atoms.sort(key=_ID)
    return _intern(LIN, INT, tuple(atoms), (tuple(map(coefs.get, atoms, itertools.repeat(1))), c))


def linear_combination(groups: Iterable[tuple[int, list[Term]]]) -> Term:
    """``sum(k * t for k, ts in groups for t in ts)``, canonical. Many distinct Int atoms are
    summed in C (:func:`_sum_of_atoms`); anything else through :func:`add`. The reader hands
    over a negated prefix sum's lengths as one group ``(-1, [u0, ..., uk])``, without a term
    ``-u`` built for each."""
    groups = list(groups)
    atoms: list[Term] = []
    coefs: dict[Term, Number] = {}
    for k, ts in groups:
        if type(k) is not int or not k or not _NOT_PLAIN.isdisjoint(map(_KIND, ts)):
            atoms = []
            break
        atoms.extend(ts)
        if k != 1:
            coefs.update(dict.fromkeys(ts, k))
    fast = _sum_of_atoms(atoms, coefs, 0) if len(atoms) > _UNMIXED else None
    return fast if fast is not None else add(*[scale(t, k) for k, ts in groups for t in ts])


def _merged(ts: list) -> tuple[dict, Number] | None:
    """The constants and sums ``ts`` added up as ``({atom: coefficient}, constant)``
    (through :func:`_add_all`); None when one is not Int."""
    coefs: dict[Term, Number] = {}
    c: Number = 0
    for t in ts:
        if t.sort is not INT:
            return None
        if t.kind == CONST:
            c += t.data
        else:
            c += t.data[1]
            _add_all(coefs, zip(t.args, t.data[0]))
    return coefs, c


def scale(t: Term, k: Number) -> Term:
    """``k * t`` for a constant ``k`` (kept linear)."""
    _check_numeric(t)
    if k == 1:
        return t
    if t.sort is INT and isinstance(k, Fraction):
        if k.denominator != 1:
            t = to_real(t)
        else:
            k = k.numerator
    if t.kind not in _NOT_PLAIN and t.sort is INT and type(k) is int and k:
        return _intern(LIN, INT, (t,), ((k,), 0))  # an atom's multiple, as make_linear builds it
    if t.kind == LIN and t.sort is INT and type(k) is int and k:
        # the atoms keep their order and stay non-zero: canonical without a dict and a sort
        coefs, c = t.data
        return _shifted(t, tuple(map(operator.mul, coefs, itertools.repeat(k))), c * k)
    coefs, c = linear_parts(t)
    return make_linear(t.sort, {a: v * k for a, v in coefs.items()}, c * k)


def neg(t: Term) -> Term:
    return scale(t, -1)


def sub(first: Term, *rest: Term) -> Term:
    if not rest:
        return neg(first)
    return add(first, *(neg(t) for t in rest))


def content(t: Term) -> tuple[Number, Term]:
    """Split a non-constant ``t`` into ``g * p`` with ``p`` primitive, leading coefficient 1/positive."""
    if t.kind != LIN:
        return 1, t
    coefs, c = t.data
    if t.sort is INT:
        g = math.gcd(*coefs, c)
        if coefs[0] < 0:
            g = -g
    else:
        g = coefs[0]
    if g == 1:
        return 1, t
    return g, make_linear(t.sort, {a: v / g if t.sort is REAL else v // g for a, v in zip(t.args, coefs)},
                          c / g if t.sort is REAL else c // g)


#: a product is flattened into at most this many factors; beyond, its operands stay factors
#: (repeated squaring, ``t1 = t0*t0, t2 = t1*t1, ...``, would otherwise double each time)
MAX_FACTORS = 64


def mul(*ts: Term) -> Term:
    """Product; constant factors scale, other factors form one sorted ``mul`` atom."""
    sort, ts = _promote(ts)
    k: Number = 1
    factors: list[Term] = []
    for t in ts:
        if t.kind == CONST:
            k *= t.data
            continue
        g, p = content(t)
        k *= g
        if p.kind == MUL:  # a product, or a scaled one, c * (a * b): flatten its factors
            factors.extend(p.args)
        else:
            factors.append(p)
    if len(factors) > MAX_FACTORS:
        factors = [p for p in (content(t)[1] for t in ts if t.kind != CONST)]
    if k == 0:
        return const(0, sort)
    if not factors:
        return const(k, sort)
    if len(factors) == 1:
        return scale(factors[0], k)
    factors.sort(key=_ID)
    return scale(_intern(MUL, sort, tuple(factors), None), k)


def power(base: Term, exponent: Term) -> Term:
    """``base ^ exponent``; the rows of :data:`CONSTRUCTION` fold natural and exact constant
    powers, the rest is an atom."""
    _check_numeric(base)
    _check_numeric(exponent)
    out = _rewritten(POW, base, exponent)
    if out is not None:
        return out
    if base.sort is INT and exponent.sort is INT:
        return _intern(POW, INT, (base, exponent), None)
    return _intern(POW, REAL, (to_real(base), to_real(exponent)), None)


def _power_sort(base: Term, exponent: Term) -> Sort:
    return INT if base.sort is INT and exponent.sort is INT else REAL


def _natural_exponent(exponent: Term) -> int | None:
    """A constant exponent in 0..16, as an int (``x ^ 2.0`` too), else None."""
    if exponent.kind != CONST:
        return None
    e = exponent.data
    return int(e) if e == int(e) and 0 <= e <= 16 else None


Binary = record("Binary", "left right",
                "The two operands of an application a row matched (a quotient's dividend and divisor, a power's base "
                "and exponent, a minimum's operands).")
Branches = record("Branches", "condition then otherwise", "An ite's operands, as a row matched them.")
Divided = record("Divided", "difference by",
                 "A comparison's difference with zero and the coefficient a row divides it by.")
Folded = record("Folded", "value sort", "A constant a row computed, with its sort.")
IntOver = record("IntOver", "numerator denominator",
                 "A Real sum as ``to_real(numerator) / denominator``: an Int sum over a positive integer.")


def _zero_power(base: Term, exponent: Term) -> Binary | None:
    return Binary(base, exponent) if _natural_exponent(exponent) == 0 else None


def _one_of_power_sort(m: Binary, again=None) -> Term:
    return const(1, _power_sort(m.left, m.right))


def _natural_power(base: Term, exponent: Term) -> Binary | None:
    return Binary(base, exponent) if _natural_exponent(exponent) else None


def _power_as_product(m: Binary, again=None) -> Term:
    base = m.left if _power_sort(m.left, m.right) is INT else to_real(m.left)
    return mul(*([base] * _natural_exponent(m.right)))


def _constant_power(base: Term, exponent: Term) -> Folded | None:
    """An exact constant power; Int ``2 ^ -1`` stays a term (it is not an integer)."""
    if base.kind != CONST or exponent.kind != CONST:
        return None
    sort = _power_sort(base, exponent)
    v = pow_exact(base.data, exponent.data)
    if v is None or (sort is INT and v.denominator != 1):
        return None
    return Folded(v, sort)


def _folded(m: Folded, again=None) -> Term:
    return const(m.value, m.sort)


# ---------------------------------------------------------------- integer division

def _require_int(*ts: Term) -> None:
    for t in ts:
        if t.sort is not INT:
            raise TypeError(f"expected an Int term, got {t.sort.value} term {brief(t)}")


def _split_multiples(t: Term, d: int) -> tuple[Term, Term]:
    """``t = d*q + r`` syntactically: ``q`` gathers the coefficients divisible by ``d``."""
    coefs, c = linear_parts(t)
    q_coefs = {}
    r_coefs = {}
    for a, v in coefs.items():
        qv, rv = divmod(v, d)
        if qv:
            q_coefs[a] = qv
        if rv:
            r_coefs[a] = rv
    qc, rc = divmod(c, d)
    return make_linear(INT, q_coefs, qc), make_linear(INT, r_coefs, rc)


def div(x: Term, y: Term) -> Term:
    """Euclidean integer division; ``div(d*q + r, d) = q + div(r, d)`` for constant ``d``
    (rows of :data:`CONSTRUCTION`)."""
    _require_int(x, y)
    return _construct(DIV, INT, x, y)


def mod(x: Term, y: Term) -> Term:
    """Euclidean remainder; ``mod(d*q + r, d) = mod(r, |d|)`` for constant ``d``
    (rows of :data:`CONSTRUCTION`)."""
    _require_int(x, y)
    return _construct(MOD, INT, x, y)


def _nonzero_constant(y: Term) -> int | None:
    return y.data if y.kind == CONST and y.data != 0 else None


def _constants(x: Term, y: Term) -> Binary | None:
    """Two constants, the divisor non-zero (``x div 0`` stays an application: SMT-LIB leaves
    it unspecified)."""
    return Binary(x, y) if _nonzero_constant(y) is not None and x.kind == CONST else None


def _by_nonzero_constant(x: Term, y: Term) -> Binary | None:
    return Binary(x, y) if _nonzero_constant(y) is not None else None


def _quotient_by_one(x: Term, y: Term) -> Term | None:
    return x if y.kind == CONST and y.data == 1 else None


def _quotient_by_minus_one(x: Term, y: Term) -> Term | None:
    return x if y.kind == CONST and y.data == -1 else None


def _quotient_of_multiples(m: Binary, again=None) -> Term:
    """``(d*q + r) div d = q + r div d`` (``-q`` for a negative ``d``: Euclidean division
    of ``d*q`` by ``d`` is exact whatever the signs)."""
    d = m.right.data
    q, r = _split_multiples(m.left, abs(d))
    q = scale(q, 1 if d > 0 else -1)
    if r.kind == CONST:
        return add(q, const(euclid_div(r.data, d)))
    return add(q, _intern(DIV, INT, (r, m.right), None))


def _by_unit(x: Term, y: Term) -> Term | None:
    return y if y.kind == CONST and y.data in (1, -1) else None


def _remainder_of_multiples(m: Binary, again=None) -> Term:
    """``(d*q + r) mod d = r mod |d|``: the Euclidean remainder depends on ``|d|`` only."""
    ad = abs(m.right.data)
    _, r = _split_multiples(m.left, ad)
    if r.kind == CONST:
        return const(euclid_mod(r.data, ad))
    return _intern(MOD, INT, (r, const(ad)), None)


def as_int_over(t: Term) -> IntOver | None:
    """A Real ``t`` as ``to_real(P) / d`` with ``P`` an Int sum and ``d > 0``, if it is one."""
    coefs, c = linear_parts(t)
    den = Fraction(c).denominator
    for a, v in coefs.items():
        if a.kind != TO_REAL:
            return None
        den = den * Fraction(v).denominator // math.gcd(den, Fraction(v).denominator)
    p = make_linear(INT, {a.args[0]: int(v * den) for a, v in coefs.items()}, int(c * den))
    return IntOver(p, den)


def to_int(x: Term) -> Term:
    """Floor of a Real; ``to_int(P/d)`` is ``div(P, d)`` (rows of :data:`CONSTRUCTION`)."""
    _check_numeric(x)
    return _construct(TO_INT, INT, x)


def ceil(x: Term) -> Term:
    """Ceiling of a Real; ``ceil(P/d)`` is ``div(P + d - 1, d)`` (rows of :data:`CONSTRUCTION`)."""
    _check_numeric(x)
    return _construct(CEIL, INT, x)


def _integer(x: Term) -> Term | None:
    return x if x.sort is INT else None


def _constant(x: Term) -> Term | None:
    return x if x.kind == CONST else None


def _rounded_quotient(up: int) -> Callable[[IntOver, object], Term]:
    """``to_int`` (``up`` 0) or ``ceil`` (``up`` 1) of ``P/d``: ``(P + up*(d - 1)) div d``."""
    def result(m: IntOver, again=None) -> Term:
        d = m.denominator
        return div(add(m.numerator, const(d - 1)) if up else m.numerator, const(d))

    return result


def rdiv(x: Term, y: Term) -> Term:
    """Real division ``x / y`` (exact); by a non-zero constant it stays linear."""
    x, y = to_real(x), to_real(y)
    return _construct(RDIV, REAL, x, y)  # 0 / y stays too: 0 / 0 is unspecified


def _real_quotient_by_constant(x: Term, y: Term) -> Binary | None:
    return Binary(x, y) if y.kind == CONST and y.data != 0 else None


def apply(name: str, *args: Term) -> Term:
    """An opaque function ``name`` of Real operands (a Real result): the same name and
    operands are the same value, and nothing else is assumed."""
    return _intern(FN, REAL, tuple(to_real(a) for a in args), name)


def _min_max(kind: Kind, a: Term, b: Term) -> Term:
    sort, (a, b) = _promote((a, b))
    out = _rewritten(kind, a, b)
    if out is not None:
        return out
    if b.id < a.id:
        a, b = b, a
    return _intern(kind, sort, (a, b), None)


def _ordered_by_constant(kind: Kind) -> Callable[[Term, Term], Term | None]:
    """``min``/``max`` of two operands a constant apart is the lesser/greater one."""
    def row(a: Term, b: Term) -> Term | None:
        diff = sub(a, b)
        if diff.kind != CONST:
            return None
        pick_a = diff.data <= 0 if kind == MIN else diff.data >= 0
        return a if pick_a else b

    return row


def minimum(*ts: Term) -> Term:
    out = ts[0]
    for t in ts[1:]:
        out = _min_max(MIN, out, t)
    return out


def maximum(*ts: Term) -> Term:
    out = ts[0]
    for t in ts[1:]:
        out = _min_max(MAX, out, t)
    return out


# ---------------------------------------------------------------- comparisons

def _intern_cmp(kind: Kind, t: Term) -> Term:
    return _intern(kind, BOOL, (t,), None)


def _compare(kind: Kind, a: Term, b: Term) -> Term:
    """``a - b <kind> 0`` in canonical form (rows of :data:`CONSTRUCTION` fold it, divide it
    by its coefficients' gcd or its leading one); ``kind`` in le, lt, eq, ne."""
    if a.sort is INT and b.sort is INT:
        sort = INT
        if a.kind == LIN and len(a.args) > _UNMIXED:
            d = _long_difference(a, b)
            if d is not None:
                return _construct(kind, BOOL, d)
        elif b.kind == LIN and len(b.args) > _UNMIXED:
            d = _long_difference(b, a, negated=True)
            if d is not None:
                return _construct(kind, BOOL, d)
    else:
        sort, (a, b) = _promote((a, b))
    coefs, c = linear_parts(a)
    bk = b.kind
    if bk == CONST:
        c -= b.data
    elif bk == LIN:
        bc, c2 = b.data
        c -= c2
        accumulate(coefs, b.args, bc, -1)
    else:
        coefs[b] = coefs.get(b, 0) - 1
    return _construct(kind, BOOL, make_linear(sort, coefs, c))


def _long_difference(a: Term, b: Term, negated: bool = False) -> Term | None:
    """``a - b`` (``b - a`` when ``negated``) for a long Int sum ``a`` and a constant, an
    atom or a sum of a few atoms (at most :data:`SPLICED`), each atom spliced into ``a``'s
    (ordered by id: its place found by bisection) without :func:`make_linear`'s dict and
    sort, which read every atom (a cache miss each in a compiler's heap): PyTorch compares a
    prefix sum with a size, a number or ``s - u``, either way round. None for anything else."""
    coefs, c = a.data
    args = a.args
    weighted = _weighted.get(a)
    bk = b.kind
    if bk == CONST:
        c -= b.data
    elif bk == LIN:
        if len(b.args) > SPLICED:
            return None
        bc, k = b.data
        c -= k
        for atom, v in zip(b.args, bc):
            args, coefs = _spliced(args, coefs, atom, -v)
            weighted = _weighted_plus(weighted, atom, -v)
    else:
        args, coefs = _spliced(args, coefs, b, -1)
        weighted = _weighted_plus(weighted, b, -1)
    if len(args) < 2:
        return None
    if negated:
        coefs, c = tuple(map(operator.neg, coefs)), -c
        weighted = None if weighted is None else -weighted % _WEIGHT_MODULUS
    return _intern(LIN, INT, args, (coefs, c), weighted)


def _weighted_plus(weighted: int | None, atom: Term, coef: int) -> int | None:
    """A weighted hash with ``coef*atom`` added (None stays None: computed when interned)."""
    return None if weighted is None else (weighted + coef * hash(atom)) % _WEIGHT_MODULUS


#: a sum of at most this many atoms is spliced into a long one it is compared with
SPLICED = 4


def _spliced(args: tuple, coefs: tuple, atom: Term, coef: int) -> tuple[tuple, tuple]:
    """``args``/``coefs`` (a canonical sum's, ordered by id) plus ``coef*atom``: the atom's
    place found by bisection, a coefficient that becomes 0 dropped with its atom."""
    i = bisect.bisect_left(args, atom.id, key=_ID)
    if i < len(args) and args[i] is atom:
        w = coefs[i] + coef
        if w:
            return args, coefs[:i] + (w,) + coefs[i + 1:]
        return args[:i] + args[i + 1:], coefs[:i] + coefs[i + 1:]
    return args[:i] + (atom,) + args[i:], coefs[:i] + (coef,) + coefs[i:]


def plus_atom(t: Term, atom: Term, coef: int) -> Term | None:
    """``t + coef*atom`` for a long Int sum ``t`` and an Int atom, spliced into ``t``'s atoms
    (:func:`_spliced`) without :func:`make_linear`'s dict and sort: the normal form of the
    next prefix sum is the last one's plus one length. None when the result would have fewer
    than two atoms, or for anything else (then :func:`add`)."""
    if t.kind is not LIN or t.sort is not INT or atom.kind not in ATOM_KINDS or atom.sort is not INT \
            or type(coef) is not int or not coef:
        return None
    args, coefs = _spliced(t.args, t.data[0], atom, coef)
    if len(args) < 2:
        return None
    return _intern(LIN, INT, args, (coefs, t.data[1]), _weighted_plus(_weighted.get(t), atom, coef))


_HOLDS_AGAINST_ZERO = {LE: operator.le, LT: operator.lt, EQ: operator.eq, NE: operator.ne}


def _constant_comparison(kind: Kind) -> Callable[[Term, object], Term]:
    holds = _HOLDS_AGAINST_ZERO[kind]

    def result(d: Term, again=None) -> Term:
        return boolean(holds(d.data, 0))

    return result


def _divided(kind: Kind, d: Term, g: Number, c: Number) -> Term:
    """``d``'s atoms with their coefficients divided by ``g``, plus the constant ``c`` (the
    caller's division of ``d``'s own constant, rounded as its kind needs), compared with 0.
    The atoms keep their order and every coefficient stays non-zero: still canonical, built
    without :func:`make_linear`'s dictionary and sort (each comparison the reader builds
    passes here or through :func:`_integer_strict`)."""
    weighted = None
    if len(d.args) > _UNMIXED:  # in C: a negated prefix sum is long
        coefs = tuple(map(operator.truediv if d.sort is REAL else operator.floordiv, d.data[0], itertools.repeat(g)))
        weighted = _weighted.get(d)
        if weighted is not None:  # an Int sum: g divides every coefficient, so the quotient is exact
            weighted = weighted * pow(g, -1, _WEIGHT_MODULUS) % _WEIGHT_MODULUS
    else:
        coefs = tuple(v / g for v in d.data[0]) if d.sort is REAL else tuple(v // g for v in d.data[0])
    return _intern_cmp(kind, _shifted(d, coefs, c, weighted))


def _shifted(d: Term, coefs: tuple, c: Number, weighted: int | None = None) -> Term:
    """The canonical sum of ``d``'s atoms (in ``d``'s order) with non-zero ``coefs`` plus ``c``
    (``weighted``: its weighted hash, when known)."""
    if len(coefs) == 1 and coefs[0] == 1 and c == 0:
        return d.args[0]
    return _intern(LIN, d.sort, d.args, (coefs, c), weighted)


def _one_up(d: Term, again=None) -> Term:
    """An integer ``d < 0`` is ``d + 1 <= 0`` (``d`` a sum or an atom: the construct rows
    fold a constant one first)."""
    one_up = _shifted(d, d.data[0], d.data[1] + 1, _weighted.get(d)) if d.kind == LIN else add(d, ONE)
    return _construct(LE, BOOL, one_up)


def _content(coefs: tuple) -> int:
    """The gcd of integer coefficients; 1 at once when one is a unit (most sums have one,
    and every integer comparison built asks: math.gcd reads all of a long sum's)."""
    return 1 if 1 in coefs or -1 in coefs else math.gcd(*coefs)


def _integer_le_by_gcd(d: Term) -> Divided | None:
    if d.kind != LIN or d.sort is not INT:
        return None
    g = _content(d.data[0])
    return None if g == 1 else Divided(d, g)


def _le_divided(m: Divided, again=None) -> Term:
    """``sum g*a + c <= 0`` iff ``sum a <= floor(-c/g)`` iff ``sum a + ceil(c/g) <= 0``."""
    return _divided(LE, m.difference, m.by, -((-m.difference.data[1]) // m.by))


def _integer_equality_off_gcd(d: Term) -> Term | None:
    """``sum g*a + c = 0`` has no integer solution when ``g`` does not divide ``c``."""
    if d.kind != LIN or d.sort is not INT:
        return None
    coefs, c = d.data
    return d if c % _content(coefs) else None


def _integer_equality_by_gcd(d: Term) -> Divided | None:
    """An integer (dis)equality divided by its coefficients' gcd, its leading coefficient
    (the first atom's, by id) made positive: ``-2*x + 4*y = 0`` is ``x - 2*y = 0``."""
    if d.kind != LIN or d.sort is not INT:
        return None
    coefs, c = d.data
    g = _content(coefs)
    if coefs[0] < 0:
        g = -g
    return None if g == 1 or c % g else Divided(d, g)


def _real_by_leading(kind: Kind) -> Callable[[Term], Divided | None]:
    """A real comparison divided by its leading coefficient (its absolute value for an
    inequality, whose direction a negative one would flip)."""
    def match(d: Term) -> Divided | None:
        if d.kind != LIN or d.sort is not REAL:
            return None
        g = abs(d.data[0][0]) if kind in (LE, LT) else d.data[0][0]
        return None if g == 1 else Divided(d, g)

    return match


def _exactly_divided(kind: Kind) -> Callable[[Divided, object], Term]:
    """The comparison divided by a coefficient that divides its constant (or a real one)."""
    def result(m: Divided, again=None) -> Term:
        c = m.difference.data[1]
        return _divided(kind, m.difference, m.by, c / m.by if m.difference.sort is REAL else c // m.by)

    return result


def le(a: Term, b: Term) -> Term:
    return _compare(LE, a, b)


def lt(a: Term, b: Term) -> Term:
    return _compare(LT, a, b)


def ge(a: Term, b: Term) -> Term:
    return _compare(LE, b, a)


def gt(a: Term, b: Term) -> Term:
    return _compare(LT, b, a)


def eq(a: Term, b: Term) -> Term:
    if a.sort is BOOL or b.sort is BOOL:
        if a.sort is not b.sort:
            raise TypeError(f"cannot compare {a.sort.value} with {b.sort.value}")
        return iff(a, b)
    return _compare(EQ, a, b)


def ne(a: Term, b: Term) -> Term:
    return not_(eq(a, b))


# ---------------------------------------------------------------- boolean structure

def _require_bool(*ts: Term) -> None:
    for t in ts:
        if t.sort is not BOOL:
            raise TypeError(f"expected a Bool term, got {t.sort.value} term {brief(t)}")


def not_(t: Term) -> Term:
    """Negation, pushed down to comparisons (negation normal form).

    The and/or skeleton is negated bottom-up over its distinct nodes, with the result
    of each kept (:data:`_negations`): a shared sub-formula is negated once, and deep
    formulas need no recursion."""
    _require_bool(t)
    done = _negations.get(t)
    if done is not None:
        return done
    for s in _junctions_below(t):
        _negations[s] = (or_ if s.kind == AND else and_)(*(_negate(a) for a in s.args))
    return _negate(t)


def _negate(t: Term) -> Term:
    """The negation of ``t``, whose and/or sub-formulas are already negated."""
    k = t.kind
    if k in (AND, OR):
        return _negations[t]
    return _construct(NOT, BOOL, t)


def _of_kind(*kinds: Kind) -> Callable[[Term], Term | None]:
    """The match of a row on a negated formula of one of ``kinds``: the formula."""
    def match(t: Term) -> Term | None:
        return t if t.kind in kinds else None

    return match


def _negated_le(t: Term, again=None) -> Term:
    """``not (x <= 0)`` is ``-x + 1 <= 0`` over the integers, ``0 < x`` over the reals."""
    x = t.args[0]
    return _compare(LE, ONE, x) if x.sort is INT else _compare(LT, ZERO_REAL, x)


def _negated_equality(t: Term, again=None) -> Term:
    return _intern_cmp(NE if t.kind == EQ else EQ, t.args[0])


def _junctions_below(t: Term) -> list[Term]:
    """The and/or nodes of ``t``'s Boolean skeleton not negated yet, children first."""
    out: list[Term] = []
    seen: set[int] = set()
    stack = [(t, False)]
    while stack:
        s, done = stack.pop()
        if done:
            out.append(s)
        elif s.kind in (AND, OR) and s.id not in seen and s not in _negations:
            seen.add(s.id)
            stack.append((s, True))
            stack.extend((a, False) for a in s.args)
    return out


#: and/or term -> its negation, for the life of the term table
_negations: dict[Term, Term] = {}


ZERO_REAL = const(Fraction(0), REAL)
# the singletons code compares by identity; every fresh table starts with them
_BASE_TABLE = {k: t for k, t in _table.items() if t in (TRUE, FALSE, ZERO, ONE, ZERO_REAL)}
_BASE_NEXT_ID = max(t.id for t in _BASE_TABLE.values()) + 1


def _junction(kind: Kind, ts: Iterable[Term]) -> Term:
    unit, absorbing = (TRUE, FALSE) if kind == AND else (FALSE, TRUE)
    seen: dict[int, Term] = {}
    stack = list(ts)
    stack.reverse()
    while stack:
        t = stack.pop()
        _require_bool(t)
        if t is absorbing:
            return absorbing
        if t is unit:
            continue
        if t.kind == kind:
            stack.extend(reversed(t.args))
            continue
        seen[t.id] = t
    if not seen:
        return unit
    if len(seen) == 1:
        return next(iter(seen.values()))
    if len(seen) <= 16:
        for t in seen.values():
            if t.kind in COMPARISON_KINDS or t.kind == NOT:
                if not_(t).id in seen:
                    return absorbing
    return _intern(kind, BOOL, tuple(sorted(seen.values(), key=lambda t: t.id)), None)


def and_(*ts: Term) -> Term:
    return _junction(AND, ts)


def or_(*ts: Term) -> Term:
    return _junction(OR, ts)


#: a distinct over at most this many operands becomes the conjunction of its disequalities
#: (what the layers reason with); a longer one stays one term, so reading it costs its length
MAX_DISTINCT_EXPANDED = 12


def distinct(*ts: Term) -> Term:
    """Pairwise different operands; short ones expanded, long ones kept as one Bool term
    (the reasoner does not use those as facts: a fact left out only weakens the premises)."""
    if len(ts) <= MAX_DISTINCT_EXPANDED or any(t.sort is BOOL for t in ts):
        return and_(*(ne(a, b) for k, a in enumerate(ts) for b in ts[k + 1:]))
    sort, ts = _promote(ts)
    if len({t.id for t in ts}) < len(ts):
        return FALSE
    return _intern(DISTINCT, BOOL, tuple(sorted(ts, key=_ID)), None)


def implies(a: Term, b: Term) -> Term:
    return or_(not_(a), b)


def iff(a: Term, b: Term) -> Term:
    _require_bool(a, b)
    if a is b:
        return TRUE
    return or_(and_(a, b), and_(not_(a), not_(b)))


def xor(a: Term, b: Term) -> Term:
    return not_(iff(a, b))


def ite(c: Term, a: Term, b: Term) -> Term:
    """If-then-else; the rows of :data:`CONSTRUCTION` fold a constant condition and recognise
    the min/max and ceiling idioms of the SMT-LIB prelude."""
    _require_bool(c)
    if a.sort is not BOOL and b.sort is not BOOL:
        _, (a, b) = _promote((a, b))
    return _construct(ITE, a.sort, c, a, b)


def _ite_of_true(c: Term, a: Term, b: Term) -> Term | None:
    return a if c is TRUE else None


def _ite_of_false(c: Term, a: Term, b: Term) -> Term | None:
    return b if c is FALSE else None


def _ite_of_formulas(c: Term, a: Term, b: Term) -> Branches | None:
    """A Bool ite is ``(c and a) or (not c and b)`` (and_ refuses a numeric branch)."""
    return Branches(c, a, b) if a.sort is BOOL or b.sort is BOOL else None


def _disjunction(m: Branches, again=None) -> Term:
    return or_(and_(m.condition, m.then), and_(not_(m.condition), m.otherwise))


def _ite_of_equal_branches(c: Term, a: Term, b: Term) -> Term | None:
    return a if a is b else None


def _min_idiom(c: Term, a: Term, b: Term) -> Binary | None:
    return Binary(a, b) if c.kind in (LE, LT) and (c is le(a, b) or c is lt(a, b)) else None


def _max_idiom(c: Term, a: Term, b: Term) -> Binary | None:
    return Binary(a, b) if c.kind in (LE, LT) and (c is le(b, a) or c is lt(b, a)) else None


def _ceil_idiom_row(c: Term, a: Term, b: Term) -> Term | None:
    """The Real ``x`` of the prelude's ceiling idiom, or None."""
    return _ceil_idiom(c, a, b) if c.kind == EQ and a.sort is INT else None


def _negated_condition(c: Term, a: Term, b: Term) -> Branches | None:
    return Branches(c, a, b) if c.kind in (NE, NOT) else None


def _positive_condition(m: Branches, again=None) -> Term:
    """``ite(not c, a, b)`` is ``ite(c, b, a)``: a condition and its negation share one term."""
    return _intern(ITE, m.then.sort, (not_(m.condition), m.otherwise, m.then), None)


def _ceil_idiom(c: Term, a: Term, b: Term) -> Term | None:
    """``ite(to_real(to_int x) = x, to_int x, to_int x + 1)`` is ``ceil x``: ``x``, verified by rebuilding."""
    if sub(b, a) is not ONE:
        return None
    coefs, k = linear_parts(c.args[0])
    ra = to_real(a)
    lead = coefs.get(ra)
    if not lead:
        return None
    # c.args[0] = lead * (to_real(a) - x)  =>  x = to_real(a) - c.args[0] / lead
    x = sub(ra, scale(c.args[0], 1 / Fraction(lead)))
    if x.sort is not REAL or to_int(x) is not a or eq(to_real(to_int(x)), x) is not c:
        return None
    return x


# ---------------------------------------------------------------- the constructors' rows


def _construct(kind: Kind, sort: Sort, *operands: Term) -> Term:
    """``kind(*operands)``: rewritten by the first of its rows that applies, else interned.
    The rows read nothing but the operands (interned terms), so the result is kept per
    application: a normal form rebuilds the same comparisons question after question (on
    swin_base_patch4_window7_224___0, 29,070 of 45,214 constructions had been made before)."""
    key = (kind, sort, operands)
    out = _constructed.get(key)
    if out is None:
        out = rewrite(_ROWS_BY_KIND[kind], operands)
        if out is None:
            out = _intern(kind, sort, operands, None)
        if len(_constructed) >= MAX_CONSTRUCTED:
            _constructed.clear()
        _constructed[key] = out
    return out


def _rewritten(kind: Kind, *operands: Term) -> Term | None:
    """The first row of ``kind`` that applies, in table order, or None (the constructor then
    interns the application as it is)."""
    return rewrite(_ROWS_BY_KIND[kind], operands)


def _row(name: str, kind: Kind, match, result=matched) -> Row:
    """A row of the ``construct`` phase: ``kind(*operands)`` equals ``result(match(*operands))``
    wherever the match is not None (its conditions are syntactic, in the match)."""
    return Row(name, Phase.CONSTRUCT, (kind,), match, result)


#: every rewrite the constructors make from one operator application to another term, in
#: the order each kind tries them (a comparison's one operand is its difference ``a - b``);
#: the canonical forms of the module docstring (linear sums over atoms sorted by id, sorted
#: products, comparisons against zero, flattened and/or) are how terms are represented, not
#: rows. ``tests/reasoning/test_every_row.py`` checks each row against the operator table.
CONSTRUCTION: tuple[Row, ...] = (
    *(_row(f"a comparison of a constant folds ({kind.value})", kind, _constant, _constant_comparison(kind))
      for kind in (LE, LT, EQ, NE)),
    _row("an integer strict inequality is a non-strict one, one up", LT, _integer, _one_up),
    _row("an integer inequality is divided by its coefficients' gcd", LE, _integer_le_by_gcd, _le_divided),
    _row("an integer equality off its coefficients' gcd folds", EQ, _integer_equality_off_gcd, lambda d, _: FALSE),
    _row("an integer disequality off its coefficients' gcd folds", NE, _integer_equality_off_gcd, lambda d, _: TRUE),
    *(_row(f"an integer {name} is divided by its gcd, leading coefficient positive", kind,
           _integer_equality_by_gcd, _exactly_divided(kind)) for kind, name in ((EQ, "equality"), (NE, "disequality"))),
    *(_row(f"a real comparison is divided by its leading coefficient ({kind.value})", kind, _real_by_leading(kind),
           _exactly_divided(kind)) for kind in (LE, LT, EQ, NE)),
    _row("the negation of a constant folds", NOT, _constant, lambda t, _: FALSE if t.data else TRUE),
    _row("the negation of an inequality is the opposite strict one", NOT, _of_kind(LE), _negated_le),
    _row("the negation of a strict inequality is the opposite non-strict one", NOT, _of_kind(LT),
         lambda t, _: _compare(LE, ZERO_REAL, t.args[0])),
    _row("the negation of an (dis)equality is the other one", NOT, _of_kind(EQ, NE), _negated_equality),
    _row("a double negation is the formula", NOT, _of_kind(NOT), lambda t, _: t.args[0]),
    _row("a quotient of constants folds", DIV, _constants, lambda m, _: const(euclid_div(m.left.data, m.right.data))),
    _row("a quotient by one is the dividend", DIV, _quotient_by_one),
    _row("a quotient by minus one is the negated dividend", DIV, _quotient_by_minus_one, lambda x, _: neg(x)),
    _row("multiples of a constant divisor leave the quotient", DIV, _by_nonzero_constant, _quotient_of_multiples),
    _row("a remainder of constants folds", MOD, _constants, lambda m, _: const(euclid_mod(m.left.data, m.right.data))),
    _row("a remainder by one or minus one is zero", MOD, _by_unit, lambda y, _: ZERO),
    _row("multiples of a constant divisor drop from the remainder", MOD, _by_nonzero_constant, _remainder_of_multiples),
    _row("the floor of an integer is itself", TO_INT, _integer),
    _row("the floor of a constant folds", TO_INT, _constant, lambda x, _: const(math.floor(x.data))),
    _row("the floor of an integer sum over d is a quotient", TO_INT, as_int_over, _rounded_quotient(0)),
    _row("the ceiling of an integer is itself", CEIL, _integer),
    _row("the ceiling of a constant folds", CEIL, _constant, lambda x, _: const(math.ceil(x.data))),
    _row("the ceiling of an integer sum over d is a quotient", CEIL, as_int_over, _rounded_quotient(1)),
    _row("a real quotient by a non-zero constant is a scaling", RDIV, _real_quotient_by_constant,
         lambda m, _: scale(m.left, 1 / m.right.data)),
    _row("a power zero is one", POW, _zero_power, _one_of_power_sort),
    _row("a small natural power is a product", POW, _natural_power, _power_as_product),
    _row("an exact power of constants folds", POW, _constant_power, _folded),
    _row("a minimum of operands a constant apart is the lesser", MIN, _ordered_by_constant(MIN)),
    _row("a maximum of operands a constant apart is the greater", MAX, _ordered_by_constant(MAX)),
    _row("ite of true is its first branch", ITE, _ite_of_true),
    _row("ite of false is its second branch", ITE, _ite_of_false),
    _row("an ite of formulas is a disjunction", ITE, _ite_of_formulas, _disjunction),
    _row("an ite of equal branches is the branch", ITE, _ite_of_equal_branches),
    _row("ite(a <= b, a, b) is the minimum", ITE, _min_idiom, lambda m, _: minimum(m.left, m.right)),
    _row("ite(b <= a, a, b) is the maximum", ITE, _max_idiom, lambda m, _: maximum(m.left, m.right)),
    _row("the ceiling idiom of the SMT-LIB prelude is the ceiling", ITE, _ceil_idiom_row, lambda x, _: ceil(x)),
    _row("an ite of a negated condition swaps its branches", ITE, _negated_condition, _positive_condition),
)
_ROWS_BY_KIND: dict[Kind, tuple[Row, ...]] = by_kind(CONSTRUCTION, Phase.CONSTRUCT)


# ---------------------------------------------------------------- traversal helpers

# ---------------------------------------------------------------- named long sums

#: a named sum (SMT-LIB's ``define-fun``) whose expansion has more atoms than this stays one
#: atom, a ``def``, equal to its definition: a prefix sum ``start_{k+1} = start_k + u_k``
#: keeps the two terms the program wrote instead of ``k`` (quadratic size over a program).
#: Shorter sums are expanded as before, so every rule and layer sees them as it always did.
LONG_FORM = 32

#: a definition's body -> its ``def`` (one atom per body, whatever the names)
_definitions: dict[Term, Term] = {}
#: the hash of a definition's expansion -> the first ``def`` with that expansion
_by_expansion: dict[int, Term] = {}
#: the expansions :func:`def_expansion` made last, newest last (see :data:`RECENT_EXPANSIONS`)
_expansions: dict[Term, tuple[dict, Number]] = {}
#: how many expansions are kept: a chain of prefix sums is asked link after link, and each
#: link's expansion is then the previous one's, copied in C, plus its own terms
RECENT_EXPANSIONS = 16


@attrs.define(slots=True)
class _Folding:
    """What :func:`fold_named` reads of a table's definitions."""

    #: the hash of the atoms of a definition's expansion (its constant left out) -> the first
    #: ``def`` with those atoms
    by_atoms: dict[int, Term] = attrs.Factory(dict)
    #: a ``def`` -> the constant of its expansion (additive, as the hash: from its body alone)
    constants: dict[Term, Number] = attrs.Factory(dict)
    #: a sum -> what :func:`fold_named` made of it (kept while no definition is added)
    folds: dict[Term, Term | None] = attrs.Factory(dict)
    #: a ``def`` a sum was matched with -> its expansion (a program asks of the same written-out
    #: total at every split; expanding it each time cost its whole chain)
    expansions: dict[Term, tuple[dict[Term, Number], Number]] = attrs.Factory(dict)


_folding = _Folding()
_HASH_MODULUS = (1 << 61) - 1
#: the constant's weight in an expansion's hash
_CONSTANT_WEIGHT = 0x5851F42D4C957F2D


def definitions_in(terms: Iterable[Term]) -> tuple[list[Term], int | None]:
    """The named sums (``def`` atoms) in ``terms``, oldest first, and the index of the first
    term that uses one: a reasoner told them there relates ``start_k`` to the total before
    the last split names it (and not earlier, when facts on the sums' atoms would re-read
    every long sum)."""
    out: list[Term] = []
    first = None
    if not _definitions:  # no walk when no named sum was ever built
        return out, first
    seen: set[int] = set()
    for index, t in enumerate(terms):
        for s in subterms(t, skip=seen):
            seen.add(s.id)
            if s.kind == DEF:
                out.append(s)
                first = index if first is None else first
    return sorted(out, key=_ID), first


def expanded_size(t: Term) -> int:
    """How many atoms ``t`` has once every ``def`` in it is expanded (with repeats)."""
    if t.kind == DEF:
        return t.data[1]
    if t.kind == LIN:
        return sum(a.data[1] if a.kind == DEF else 1 for a in t.args)
    return 0 if t.kind == CONST else 1


def name_long(name: str, body: Term) -> Term:
    """``body`` itself, or, when it is a sum whose expansion is longer than
    :data:`LONG_FORM`, a ``def`` atom equal to it (named ``name`` in messages)."""
    if body.kind != LIN or expanded_size(body) <= LONG_FORM:
        return body
    return define(body, name=name)


def define(body: Term, *aliases: Term, name: str = "") -> Term:
    """The ``def`` atom equal to ``body`` (and to each of ``aliases``). A body whose
    expansion equals an earlier definition's gets that definition as an alias, found
    by a hash of the expansion and checked by expanding both: the reasoner then knows
    the two names are equal without expanding either."""
    if body.kind != LIN:
        return body  # a rebuilt body that became a constant or an atom needs no name
    d = _definitions.get(body)
    if d is not None:
        return d
    h = _expansion_hash(body)
    first = _by_expansion.get(h)
    if first is not None and not aliases and _expansion(first) == _expansion(body):
        aliases = (first,)
    d = _intern(DEF, body.sort, (body, *aliases), (name, expanded_size(body), h))
    _definitions[body] = d
    _by_expansion.setdefault(h, d)
    coefs, c = body.data
    c += sum(v * _expansion_constant(a) for a, v in zip(body.args, coefs) if a.kind == DEF)
    _folding.constants[d] = c
    _folding.by_atoms.setdefault((h - _number_hash(c) * _CONSTANT_WEIGHT) % _HASH_MODULUS, d)
    _folding.folds.clear()  # a sum no definition matched may match this one
    return d


def _expansion_constant(d: Term) -> Number:
    c = _folding.constants.get(d)
    return _expansion(d)[1] if c is None else c  # a def of another table: expanded


def fold_named(t: Term) -> Term | None:
    """``t`` (a sum) with the atoms that are not named sums written as one named sum: when
    they are together ``m`` times the atoms of a ``def`` ``e``'s expansion (found by a hash of
    those atoms, checked by expanding ``e``), ``t`` is ``m*e`` plus its named sums and the
    constant that keeps it equal; None when no definition matches. The inverse of unfolding,
    for a program that wrote a named sum out: ``end_k - (u0 + ... + u{n-1})`` where the chain
    ``end_k = start_k + u_k`` ends in a ``def`` of ``u0 + ... + u{n-1}`` is ``end_k - end_{n-1}``,
    a difference the zones read along the chain (the metamorphic ``name-shared`` form of a
    jagged split, where the total is used once and so is not named). Exact: ``e`` equals its
    expansion, so the result equals ``t`` at every point."""
    if not _folding.by_atoms or t.kind != LIN:
        return None
    folds = _folding.folds
    if t in folds:
        return folds[t]
    folds[t] = folded = rewrite(_FOLDING, (t, t))
    return folded


def _match_written_out(t: Term, r: Term):
    """The name (and scale) whose expansion's atoms are ``t``'s atoms that are not names,
    into a :data:`WrittenOut`; None when no definition matches."""
    if not _folding.by_atoms:
        return None
    coefs, c = t.data
    plain = {a: v for a, v in zip(t.args, coefs) if a.kind != DEF}
    if len(plain) < 2:
        return None
    h = sum(_number_hash(v) * _atom_hash(a) for a, v in plain.items()) % _HASH_MODULUS
    first = next(iter(plain.values()))
    scales = [first, -first, 1, -1]
    if t.sort is INT:
        g = math.gcd(*plain.values())
        scales += [g, -g]
    for m in dict.fromkeys(scales):
        e = _folding.by_atoms.get(h * _number_hash(Fraction(1, 1) / m) % _HASH_MODULUS)
        if e is None:
            continue
        atoms, c_e = _matched_expansion(e)
        if len(atoms) != len(plain) or any(atoms.get(a, 0) * m != v for a, v in plain.items()):
            continue  # another sum with the same hash
        named = tuple(scale(a, v) for a, v in zip(t.args, coefs) if a.kind == DEF)
        return WrittenOut(t, e, m, c - m * c_e, named)
    return None


def _written_out_result(m, again) -> Term:
    return add(const(m.constant, m.sum.sort), scale(m.name, m.scale), *m.named)


def _matched_expansion(e: Term) -> tuple[dict[Term, Number], Number]:
    kept = _folding.expansions.get(e)
    if kept is None:
        kept = _folding.expansions[e] = _expansion(e)
    return kept


def unfold_newest(t: Term) -> Term:
    """``t`` (numeric) with its newest named sum replaced by its definition: unfolding
    ``end_k - start_k`` newest first cancels ``start_k`` in one step (``end_k = start_k + u_k``),
    where unfolding both at once would keep them one step apart forever."""
    defs = _named_atoms(t)
    return _unfolded(t, {max(defs, key=_ID)}) if defs else t


def unfold(t: Term) -> Term:
    """``t`` (numeric) with each named sum among its atoms replaced by its definition."""
    defs = _named_atoms(t)
    return _unfolded(t, set(defs)) if defs else t


def _named_atoms(t: Term) -> list[Term]:
    if t.kind == DEF:
        return [t]
    return [a for a in t.args if a.kind == DEF] if t.kind == LIN else []


def _unfolded(t: Term, chosen: set[Term]) -> Term:
    """``t`` with each of the named sums ``chosen`` among its atoms replaced by its definition."""
    if t.kind == DEF:
        return rewrite(_UNFOLDING, (t, t))
    coefs, c = t.data
    return add(const(c, t.sort), *(scale(rewrite(_UNFOLDING, (a, a)) if a in chosen else a, v)
                                   for a, v in zip(t.args, coefs)))


# ---------------------------------------------------------------- names and stated equalities, as rows

Named = record("Named", "name", "A named sum (``def``): equal to its definition, its first operand.")
WrittenOut = record("WrittenOut", "sum name scale constant named",
                    "A sum whose atoms that are not names are ``scale`` times the atoms of ``name``'s "
                    "expansion: it equals ``constant + scale*name + sum(named)``.")
Bound = record("Bound", "term value", "A term and the value a stated equality gives it.")


def _match_named(t: Term, r: Term):
    return Named(t) if t.kind == DEF else None


def _match_bound(t: Term, values: dict):
    v = values.get(t)
    return None if v is None else Bound(t, v)


def _stated_equality(m, again) -> Iterator[tuple[Term, ...]]:
    yield (eq(m.term, m.value),)


def stated(row: Row, m) -> bool:
    """The prover of the substitution phase: its drivers hand over only equalities their
    facts state (a binding solved from an asserted equation, a constraint ``a = 3`` kept
    beside its substitution, an atom at the value a disjunct fixes), so the row's condition
    holds wherever the facts do."""
    return True


#: the rewrites between a named sum and the sum it names (phase NAME: no conditions, a
#: ``def`` equals its body at every point)
NAMING: tuple[Row, ...] = (
    Row("a named sum is its definition", Phase.NAME, (DEF,), _match_named, lambda m, again: m.name.args[0]),
    Row("a sum written out is the name equal to it", Phase.NAME, (LIN,), _match_written_out, _written_out_result),
)
_UNFOLDING, _FOLDING = NAMING[:1], NAMING[1:]
#: the rewrite of a term a stated equality fixes (phase SUBSTITUTE): :func:`replaced`'s and
#: the normal form's bindings' one row
SUBSTITUTING: tuple[Row, ...] = (
    Row("a term a stated equality fixes is its value", Phase.SUBSTITUTE, tuple(Kind), _match_bound,
        lambda m, again: m.value, _stated_equality),
)


def _atom_hash(a: Term) -> int:
    if a.kind == DEF:
        return a.data[2]
    z = (a.id * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & 0xFFFFFFFFFFFFFFFF  # splitmix64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return (z ^ (z >> 31)) % _HASH_MODULUS


def _number_hash(v: Number) -> int:
    if isinstance(v, Fraction):
        return v.numerator * pow(v.denominator, -1, _HASH_MODULUS) % _HASH_MODULUS
    return v % _HASH_MODULUS


def _expansion_hash(t: Term) -> int:
    """A hash that is additive over sums, so a definition's is computed from its body alone."""
    coefs, c = t.data
    h = _number_hash(c) * _CONSTANT_WEIGHT
    for a, v in zip(t.args, coefs):
        h += _number_hash(v) * _atom_hash(a)
    return h % _HASH_MODULUS


def _expansion(t: Term) -> tuple[dict[Term, Number], Number]:
    """``t`` with every ``def`` expanded (through its first operand): atom -> coefficient."""
    out: dict[Term, Number] = {}
    c: Number = 0
    stack = [(t, 1)]
    while stack:
        s, k = stack.pop()
        if s.kind == DEF:
            stack.append((s.args[0], k))
        elif s.kind == LIN:
            coefs, c0 = s.data
            c += k * c0
            stack.extend((a, k * v) for a, v in zip(s.args, coefs))
        elif s.kind == CONST:
            c += k * s.data
        else:
            out[s] = out.get(s, 0) + k
    return {a: v for a, v in out.items() if v != 0}, c


def def_expansion(d: Term) -> tuple[dict[Term, Number], Number]:
    """:func:`_expansion` of the ``def`` atom ``d`` (atom -> coefficient, constant), kept for
    the last :data:`RECENT_EXPANSIONS` asked. The caller must not change the dict."""
    got = _expansions.get(d)
    if got is None:
        got = _expansions[d] = _extended(d) or _expansion(d)
        if len(_expansions) > RECENT_EXPANSIONS:
            del _expansions[next(iter(_expansions))]
    return got


def _extended(d: Term) -> tuple[dict[Term, Number], Number] | None:
    """The expansion of ``d`` from a kept one, when ``d``'s body is one kept ``def`` (with
    coefficient 1) plus other atoms: a copy of that expansion (in C) and those atoms added.
    None otherwise."""
    body = d.args[0]
    coefs, c = body.data
    inner = [(a, v) for a, v in zip(body.args, coefs) if a.kind == DEF]
    if len(inner) != 1 or inner[0][1] != 1 or inner[0][0] not in _expansions:
        return None
    base, c0 = _expansions[inner[0][0]]
    out = dict(base)
    _add_all(out, ((a, v) for a, v in zip(body.args, coefs) if a.kind != DEF))
    return out, c + c0


def without_definitions(coefs: dict[Term, Number], c: Number) -> tuple[dict[Term, Number], Number]:
    """A linear form (atom -> coefficient, constant) with each ``def`` atom replaced by its
    expansion: the same value at every point (a ``def`` equals its body by definition). A
    ``def`` with coefficient 1 (a prefix sum compared with a size) is copied in C; the other
    atoms are added to it one by one."""
    first = next((a for a, v in coefs.items() if v == 1 and a.kind == DEF), None)
    out: dict[Term, Number] = {}
    if first is not None:
        inner, c0 = def_expansion(first)
        out, c = dict(inner), c + c0
    for a, v in coefs.items():
        if a is first:
            continue
        if a.kind == DEF:
            inner, c0 = def_expansion(a)
            c += v * c0
            _add_all(out, ((x, v * w) for x, w in inner.items()))
        else:
            _add_all(out, ((a, v),))
    return out, c


def accumulate(out: dict[Term, Number], atoms: tuple[Term, ...], coefs: tuple, k: Number = 1) -> None:
    """``out[a] += k * c`` for each atom and coefficient, in C passes for a long sum (a
    coefficient may become 0: :func:`make_linear` drops it): two long sums compared, or
    added, are most of a jagged program's comparisons; a short one by a loop, which costs
    less than setting the passes up."""
    if len(atoms) <= _UNMIXED:
        for a, c in zip(atoms, coefs):
            out[a] = out.get(a, 0) + k * c
        return
    if k != 1:
        coefs = map(operator.mul, coefs, itertools.repeat(k))
    out.update(zip(atoms, map(operator.add, map(out.get, atoms, itertools.repeat(0)), coefs)))


def _add_all(out: dict[Term, Number], items: Iterable[tuple[Term, Number]]) -> None:
    """``out[x] += w`` for each item, an atom whose coefficient becomes 0 removed."""
    for x, w in items:
        w += out.get(x, 0)
        if w:
            out[x] = w
        else:
            out.pop(x, None)


def free_vars(root: Term) -> list[Term]:
    return [t for t in subterms(root) if t.kind == VAR]


# ---------------------------------------------------------------- rebuilding

#: kind -> the canonical constructor the operator table names for it
_CONSTRUCTORS = {k: globals()[op.constructor] for k, op in OPS.items() if op.arity != (0, 0)}


def replaced(t: Term, values: dict[Term, Term], parts: list[Term] | None = None) -> Term:
    """``t`` with each sub-term in ``values`` replaced by its value, rebuilt bottom-up in
    canonical form; ``parts``: ``subterms(t)`` when the caller has it already."""
    done: dict[int, Term] = {}
    for s in subterms(t) if parts is None else parts:
        r = rewrite(SUBSTITUTING, (s, values), None, stated) if s in values else None
        done[s.id] = r if r is not None else rebuild(s, tuple(done[a.id] for a in s.args))
    return done[t.id]


def rebuild(t: Term, args: tuple[Term, ...]) -> Term:
    """A term of ``t``'s kind over new operands, in canonical form (``t`` itself when they are
    the same): a comparison ``x <op> 0`` is rebuilt against zero, a sum with its coefficients."""
    if all(x is y for x, y in zip(args, t.args)):
        return t
    k = t.kind
    if k == LIN:
        coefs, c = t.data
        return add(const(c, t.sort), *(scale(a, v) for a, v in zip(args, coefs)))
    if k in COMPARISON_KINDS:
        x = args[0]
        return _CONSTRUCTORS[k](x, ZERO if x.sort is INT else ZERO_REAL)
    if k == FN:
        return apply(t.data, *args)
    if k == DEF:
        return define(*args, name=t.data[0])
    return _CONSTRUCTORS[k](*args)
