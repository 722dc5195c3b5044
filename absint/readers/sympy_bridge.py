"""sympy <-> terms: the compiler's expressions in, symbolic answers back out.

This is the one translator between sympy and terms (the API and the ShapeEnv oracle use it;
the reasoning never sees sympy). Expressions are read by *class name*
through one table (:data:`FROM_SYMPY`), so PyTorch's own sympy functions
(``FloorDiv``, ``PythonMod``, ``CeilToInt``, ``Min``/``Max``, ...) are understood
without importing torch, and a look-alike class defined anywhere with the same
name and meaning works too. A class that is not in the table (nor has a sympy
base class in it) is refused with :class:`UnsupportedExpression` naming it.

Semantics, with ``Int`` terms exact and Euclidean ``div``/``mod`` (SMT-LIB):

* ``FloorDiv(a, b)`` / ``CleanDiv`` is Python's ``a // b``: ``div(a, b)`` when
  ``b > 0``, ``div(-a, -b)`` when ``b < 0`` (floor(a/b) = floor(-a/-b), and for a
  positive divisor Euclidean division is floor division), otherwise
  ``ite(b > 0, div(a, b), div(-a, -b))``. ``Mod``/``PythonMod`` is ``a - b*(a // b)``
  (the sign of the divisor): ``mod(a, b)``, ``-mod(-a, -b)`` or the ``ite``.
  The sign of a symbolic divisor is asked of the ``sign_of`` callback (the
  reasoner's facts); an answer that rests on "unknown" is not cached for good,
  because a later fact may simplify it.
* ``floor(a/b)``/``ceiling(a/b)`` of Int ``a`` and ``b`` (sympy's own spelling of a division by
  a symbol) -> ``a // b`` as ``FloorDiv``, ``-((-a) // b)``: a division, not a real quotient
  (sympy's ``a/b`` has no value at ``b = 0``, so nothing it meant is given up).
* ``CeilToInt``/``ceiling`` -> ``ceil``, ``FloorToInt``/``floor`` -> ``to_int``,
  ``TruncToInt`` -> ``ite(x >= 0, floor x, ceil x)``, ``IntTrueDiv``/
  ``FloatTrueDiv``/``/`` -> exact real division, ``ToFloat`` -> ``to_real``,
  ``PowByNatural``/``Pow`` with a natural exponent -> a product,
  ``FloatPow``/``OpaqueUnaryFn_sqrt``/other ``Pow`` -> a real power,
  ``Piecewise``/``Where``/``ITE`` -> nested ``ite``; numbers are exact (a
  ``Float`` is the rational its binary value denotes).
* Torch's ``Mod`` (defined by PyTorch only for ``p >= 0, q >= 1``) and
  ``ModularIndexing(a, b, c) = (a // b) % c`` are read with Python semantics;
  on their domain every reading agrees.

The way back (:class:`TermsToSympy`) writes plain sympy by default
(``floor(a/b)`` and ``Mod`` by a number, ``Min``/``Max``, ``Piecewise``) or, with
``vocabulary=absint.torch.vocabulary.sympy_functions()``, PyTorch's classes (``FloorDiv``,
``PythonMod``, ...). A division by anything but a non-zero number is written as
:mod:`absint.readers.sympy_divisions`' ``EuclidDiv``/``EuclidMod``/``RealDiv`` in plain sympy
(read back as the same division: sympy's ``floor(y/y)`` is 1, SMT-LIB's ``(div y y)`` is free at
``y = 0``), and in PyTorch's classes when sympy sees the divisor is 0 (theirs raise).
"""

from __future__ import annotations

import collections
import itertools
import operator
from fractions import Fraction
from typing import Callable

import sympy
from sympy.core.function import AppliedUndef

from absint.lang import terms as T
from absint.lang.kinds import (AND, CEIL, CONST, DEF, DISTINCT, DIV, EQ, FN, ITE, LE, LIN, LT, MAX, MIN, MOD, MUL, NE,
                               NOT, OR, POW, RDIV, TO_INT, TO_REAL, VAR, Kind)
from absint.lang.terms import BOOL, INT, REAL, Sort, Term
from absint.readers.sympy_divisions import EuclidDiv, EuclidMod, RealDiv


class UnsupportedExpression(TypeError):
    """A sympy node absint does not read; the message names its class."""

    def __init__(self, expr, why: str = ""):
        self.expr = expr
        self.class_name = type(expr).__name__
        detail = f": {why}" if why else ""
        super().__init__(f"absint cannot read sympy {self.class_name} ({expr}){detail}")


SortOf = Callable[[sympy.Symbol], Sort]
SignOf = Callable[[Term], "int | None"]


def default_sort_of(symbol: sympy.Symbol) -> Sort:
    """Int for ``integer=True`` symbols (PyTorch's sizes are), Real otherwise."""
    return INT if symbol.is_integer else REAL


def constant_sign(t: Term) -> int | None:
    """The sign of a constant term; None for anything else (or zero)."""
    if t.kind == CONST and t.data != 0:
        return 1 if t.data > 0 else -1
    return None


class SympyToTerms:
    """Translates sympy expressions to terms, memoised per expression.

    ``sort_of`` gives each symbol's sort; ``sign_of(b)`` returns ``1``/``-1``
    when the facts fix the sign of a divisor ``b``, else None.
    """

    def __init__(self, sort_of: SortOf = default_sort_of, sign_of: SignOf | None = None):
        self.sort_of = sort_of
        self.sign_of = sign_of
        self._stable: dict = {}
        #: ``_stable`` by the key's ``id`` (its keys are held there, so an id names one live
        #: object): a long sum's operands looked up in C, without sympy's Python ``__hash__``
        self._by_id: dict[int, Term] = {}
        #: a long sum's (class, operands' ids) -> (the sum, its term): PyTorch rebuilds a
        #: prefix sum equal to one read before, over the same operand objects, and sympy's
        #: ``__eq__`` compares the two in Python (about 40 us at 256 operands); the sum is held
        #: here, so its operands' ids name live objects
        self._by_operands: dict[tuple, tuple] = {}
        #: the last few long sums read (the sympy sum, its term), newest last: PyTorch's next
        #: prefix sum is one of them plus one operand (:func:`_one_more`)
        self._recent_long: collections.deque[tuple] = collections.deque(maxlen=RECENT_LONG)
        #: translations that used an undecided divisor sign; dropped by :meth:`forget_unsure`
        self._unsure: dict = {}
        self._used_unknown = False

    def forget_unsure(self) -> None:
        """Call when the facts grew: unsure translations may now simplify."""
        if self._unsure:
            self._unsure = {}  # a new dict: a checkpoint may hold the old one

    def mark(self) -> tuple:
        """The memos' extent, for :meth:`restore`: a translation made since may rest on a
        divisor's sign that facts since taken back decided."""
        return len(self._stable), self._unsure, len(self._unsure)

    def restore(self, mark: tuple) -> None:
        """Forget the translations made since :meth:`mark` (the memos only grow in between,
        and ``popitem`` takes the newest)."""
        stable, self._unsure, unsure = mark
        while len(self._stable) > stable:
            expr = self._stable.popitem()[0]
            del self._by_id[id(expr)]
            key = _operand_ids(expr)
            if key is not None:
                self._by_operands.pop(key, None)
        self._recent_long.clear()
        while len(self._unsure) > unsure:
            self._unsure.popitem()

    def __call__(self, expr) -> Term:
        if not isinstance(expr, sympy.Basic):  # before the caches: 1 == True == Integer(1)
            if isinstance(expr, str):
                raise TypeError("absint reads sympy expressions, not strings (sympify would run them as code)")
            expr = sympy.sympify(expr, strict=True)
        self._used_unknown = False  # a translation that raised may have left it set
        return self.term(expr)

    def term(self, expr) -> Term:
        """The term of a sympy expression (``expr`` must be a ``sympy.Basic``)."""
        r = self._by_id.get(id(expr))  # the very object: in C, without sympy's Python __hash__
        if r is not None:
            return r
        key = _operand_ids(expr) if type(expr) is sympy.Add else None
        if key is not None:
            kept = self._by_operands.get(key)
            if kept is not None:
                return kept[1]
        r = self._stable.get(expr)
        if r is not None:
            return r
        if self._unsure:
            r = self._unsure.get(expr)
            if r is not None:
                self._used_unknown = True
                return r
        outer = self._used_unknown
        self._used_unknown = False
        r = _handler(expr)(self, expr)
        if self._used_unknown:
            self._unsure[expr] = r
        else:
            self._stable[expr] = r
            self._by_id[id(expr)] = r
            if key is not None:
                self._by_operands[key] = (expr, r)
                self._recent_long.append((expr, r))
            self._used_unknown = outer
        return r

    # ------------------------------------------------------------ helpers for handlers

    def numeric(self, expr) -> Term:
        t = self.term(expr)
        if t.sort is BOOL:
            raise UnsupportedExpression(expr, "a Bool where a number is expected")
        return t

    def boolean(self, expr) -> Term:
        if isinstance(expr, sympy.Symbol):
            return T.var(expr.name, BOOL)
        t = self.term(expr)
        if t.sort is not BOOL:
            raise UnsupportedExpression(expr, "a number where a Bool is expected")
        return t

    def sign(self, b: Term) -> int | None:
        s = constant_sign(b)
        if s is not None or b.kind == CONST:
            return s
        if self.sign_of is not None:
            s = self.sign_of(b)
        if s is None:
            self._used_unknown = True
        return s

    def floordiv(self, a: Term, b: Term) -> Term:
        """Python's ``a // b``."""
        if a.sort is not INT or b.sort is not INT:
            return T.to_int(T.rdiv(a, b))
        s = self.sign(b)
        if s == 1:
            return T.div(a, b)
        if s == -1:
            return T.div(T.neg(a), T.neg(b))
        return T.ite(T.gt(b, T.ZERO), T.div(a, b), T.div(T.neg(a), T.neg(b)))

    def pymod(self, a: Term, b: Term) -> Term:
        """Python's ``a % b`` (the sign of ``b``)."""
        if a.sort is not INT or b.sort is not INT:
            return T.sub(a, T.mul(b, self.floordiv(a, b)))
        s = self.sign(b)
        if s == 1:
            return T.mod(a, b)
        if s == -1:
            return T.neg(T.mod(T.neg(a), T.neg(b)))
        return T.ite(T.gt(b, T.ZERO), T.mod(a, b), T.neg(T.mod(T.neg(a), T.neg(b))))


#: a sum with more operands than this is also looked up by its operands' ids
LONG_OPERANDS = 16
#: how many of the last long sums read a new one is tried as an extension of
RECENT_LONG = 4


def _operand_ids(expr) -> tuple | None:
    """``(class, ids of the operands)`` of a long sympy sum, else None."""
    if type(expr) is not sympy.Add:
        return None
    args = expr._args
    if len(args) <= LONG_OPERANDS:
        return None
    return (sympy.Add, *map(id, args))


def _handler(expr):
    """The handler for ``expr``'s class: by its name, else by the name of its nearest
    base class from sympy itself (``Zero`` -> ``Integer``, ``Dummy`` -> ``Symbol``)."""
    cls = type(expr)
    h = _BY_CLASS.get(cls)
    if h is not None:
        return h
    h = FROM_SYMPY.get(cls.__name__)
    if h is None and (cls.__name__.startswith(OPAQUE) or isinstance(expr, AppliedUndef)):
        h = _opaque  # PyTorch's opaque float functions, and any undefined function
    if h is None:
        for base in cls.__mro__[1:]:
            if base.__module__.startswith("sympy."):
                h = FROM_SYMPY.get(base.__name__)
                if h is not None:
                    break
    if h is None:
        raise UnsupportedExpression(expr)
    n = ARITY.get(cls.__name__)
    if n is not None:
        h = _arity_checked(h, n)
    _BY_CLASS[cls] = h
    return h


def _arity_checked(handler: Callable, n: int) -> Callable:
    def checked(tr, e) -> Term:
        if len(e.args) != n:
            raise UnsupportedExpression(e, f"{type(e).__name__} takes {n} argument(s), got {len(e.args)}")
        return handler(tr, e)

    return checked


#: memo of :func:`_handler` (the lookup itself is by name, in :data:`FROM_SYMPY`)
_BY_CLASS: dict[type, Callable] = {}


# ---------------------------------------------------------------- handlers: sympy -> terms

def _integer(tr, e) -> Term:
    return T.const(int(e))


def _rational(tr, e) -> Term:
    return T.const(Fraction(int(e.p), int(e.q)), REAL)


def _float(tr, e) -> Term:
    r = sympy.Rational(e)
    if not r.is_finite:
        raise UnsupportedExpression(e, "not a finite number")
    return T.const(Fraction(int(r.p), int(r.q)), REAL)


def _symbol(tr, e) -> Term:
    return T.var(e.name, tr.sort_of(e))


def _add(tr, e) -> Term:
    # the constructors refuse Bool operands themselves; a long sum's operands are mostly
    # translated already, so look them up (by identity, in C) before paying for a call each
    args = e.args
    if len(args) > LONG_OPERANDS and tr._recent_long:
        r = _one_more(tr, args)
        if r is not None:
            return r
    found = list(map(tr._by_id.get, map(id, args)))
    if None not in found:
        return T.add(*found)
    missing = [a for t, a in zip(found, args) if t is None]
    multiples = _multiples(tr, missing) if len(missing) > 1 else None
    if multiples is not None:
        return T.linear_combination([(1, [t for t in found if t is not None]), multiples])
    return T.add(*[t or tr.term(a) for t, a in zip(found, args)])


def _one_more(tr, args: tuple) -> Term | None:
    """The term of a long sum whose operands are those of a recent long sum (the same
    objects, in the same order) and one more, spliced into that sum's term
    (:func:`terms.plus_atom`); None when no recent sum is such, or the new operand is not
    ``k*x`` of an Int atom. PyTorch's ``start + l`` is a new sympy ``Add`` of all the
    lengths: adding them up again reads every one (a cache miss each, in a compiler's heap),
    where comparing the two operand tuples reads only their pointers."""
    n = len(args) - 1
    for prev, prev_term in reversed(tr._recent_long):
        before = prev._args
        if len(before) != n:
            continue
        i = next(itertools.compress(itertools.count(), map(operator.is_not, args, before)), n)
        if not all(map(operator.is_, itertools.islice(args, i + 1, None), itertools.islice(before, i, None))):
            continue
        t = tr.term(args[i])
        if t.kind == LIN and len(t.args) == 1 and t.data[1] == 0:
            return T.plus_atom(prev_term, t.args[0], t.data[0][0])
        return T.plus_atom(prev_term, t, 1)
    return None


def _multiples(tr, products: list) -> tuple[int, list[Term]] | None:
    """``(k, [x1, ..., xn])`` (the terms of the ``x``) when ``products`` are ``k*x1, ...,
    k*xn`` of one integer ``k`` and symbols; else None. PyTorch rebuilds the ``-1*u`` of a negated
    prefix sum once sympy's cache has dropped them: looking each new product up in the memo
    (sympy's Python ``__hash__`` and ``__eq__``) and building its ``-u`` cost about 2 us,
    where these passes run in C."""
    if set(map(type, products)) != {sympy.Mul}:
        return None
    pairs = list(map(_ARGS, products))
    if set(map(len, pairs)) != {2}:
        return None
    ks = list(map(_FIRST, pairs))
    k = ks[0]
    if set(map(id, ks)) != {id(k)}:  # one value, in objects sympy did not share: read in C
        if not set(map(type, ks)).issubset(_INTEGER_CLASSES) or set(map(_NUMERATOR, ks)) != {k.p}:
            return None
    elif type(k) not in _INTEGER_CLASSES:
        return None
    xs = list(map(_SECOND, pairs))
    if not all(map(_IS_SYMBOL, xs)):  # k*(a/b), k*(x + y): read as _mul reads them
        return None
    found = list(map(tr._by_id.get, map(id, xs)))
    if None in found:  # a symbol rebuilt equal to the one translated: found by equality
        found = [t or tr.term(x) for t, x in zip(found, xs)]
    return int(k), found


_ARGS, _FIRST, _SECOND = operator.attrgetter("_args"), operator.itemgetter(0), operator.itemgetter(1)
_NUMERATOR, _IS_SYMBOL = operator.attrgetter("p"), operator.attrgetter("is_Symbol")
#: sympy's classes of an integer coefficient (-1 and 1 are singletons of their own classes)
_INTEGER_CLASSES = (sympy.Integer, type(sympy.S.NegativeOne), type(sympy.S.One))


def _negative_integer_power(f) -> bool:
    return type(f).__name__ == "Pow" and f.args[1].is_Integer and f.args[1] < 0


def _mul(tr, e) -> Term:
    num, den = [], []
    for f in e.args:
        if _negative_integer_power(f):
            den.append(T.power(tr.numeric(f.args[0]), T.const(-int(f.args[1]))))
        else:
            num.append(tr.numeric(f))
    out = T.mul(*num) if num else T.ONE
    if den:
        out = T.rdiv(out, T.mul(*den))
    return out


def _pow(tr, e) -> Term:
    base, exp = e.args
    b = tr.numeric(base)
    if exp.is_Integer:
        n = int(exp)
        if n >= 0:
            return T.power(b, T.const(n))
        return T.rdiv(T.ONE, T.power(b, T.const(-n)))
    return T.power(T.to_real(b), T.to_real(tr.numeric(exp)))


def _unary(build: Callable[[Term], Term]):
    return lambda tr, e: build(tr.numeric(e.args[0]))


def _floor(x: Term) -> Term:
    return T.to_int(x)


def _trunc(x: Term) -> Term:
    if x.sort is INT:
        return x
    return T.ite(T.ge(x, T.ZERO_REAL), T.to_int(x), T.ceil(x))


def _integer_quotient(tr, arg) -> tuple[Term, Term] | None:
    """``(a, b)`` when ``arg`` is sympy's ``a/b`` (a ``Mul`` with factors to negative integer
    powers; a rational coefficient ``p/q`` is ``p`` over ``q``) of Int terms and ``b`` is not a
    number, else None."""
    if type(arg).__name__ != "Mul" or not any(_negative_integer_power(f) for f in arg.args):
        return None
    num, den = [], []
    for f in arg.args:
        if f.is_Rational and not f.is_Integer:
            num.append(T.const(int(f.p)))
            den.append(T.const(int(f.q)))
        elif _negative_integer_power(f):
            den.append(T.power(tr.numeric(f.args[0]), T.const(-int(f.args[1]))))
        else:
            num.append(tr.numeric(f))
    a, b = (T.mul(*num) if num else T.ONE), T.mul(*den)
    if a.sort is not INT or b.sort is not INT or b.kind == CONST:
        return None
    return a, b


def _floor_of(tr, e) -> Term:
    """``floor(a/b)`` of Int ``a``, ``b`` is ``a // b``: sympy's ``a/b`` has no value at ``b = 0``
    (``zoo``), so PyTorch's ``FloorDiv`` reading gives up nothing it meant, and a division is
    what the reasoning reads (``to_int`` of a real quotient by a symbol it does not)."""
    q = _integer_quotient(tr, e.args[0])
    return tr.floordiv(*q) if q is not None else _floor(tr.numeric(e.args[0]))


def _ceiling_of(tr, e) -> Term:
    """``ceiling(a/b)`` of Int ``a``, ``b``: ``-((-a) // b)``, as :func:`_floor_of`."""
    q = _integer_quotient(tr, e.args[0])
    return T.neg(tr.floordiv(T.neg(q[0]), q[1])) if q is not None else T.ceil(tr.numeric(e.args[0]))


def _floordiv(tr, e) -> Term:
    return tr.floordiv(tr.numeric(e.args[0]), tr.numeric(e.args[1]))


def _pymod(tr, e) -> Term:
    return tr.pymod(tr.numeric(e.args[0]), tr.numeric(e.args[1]))


def _modular_indexing(tr, e) -> Term:
    a, b, c = (tr.numeric(x) for x in e.args)
    return tr.pymod(tr.floordiv(a, b), c)


def _euclidean(build: Callable[[Term, Term], Term]):
    """absint's own ``EuclidDiv``/``EuclidMod`` (:mod:`absint.readers.sympy_divisions`): SMT-LIB's
    ``div``/``mod``, read back as the very division they were written from."""
    def read(tr, e) -> Term:
        a, b = tr.numeric(e.args[0]), tr.numeric(e.args[1])
        if a.sort is not INT or b.sort is not INT:
            raise UnsupportedExpression(e, f"{type(e).__name__} divides Int operands")
        return build(a, b)

    return read


def _truediv(tr, e) -> Term:
    return T.rdiv(tr.numeric(e.args[0]), tr.numeric(e.args[1]))


def _pow_by_natural(tr, e) -> Term:
    return T.power(tr.numeric(e.args[0]), tr.numeric(e.args[1]))


def _float_pow(tr, e) -> Term:
    return T.power(T.to_real(tr.numeric(e.args[0])), T.to_real(tr.numeric(e.args[1])))


def _sqrt(tr, e) -> Term:
    return T.power(T.to_real(tr.numeric(e.args[0])), T.const(Fraction(1, 2), REAL))


def _min(tr, e) -> Term:
    return T.minimum(*(tr.numeric(a) for a in e.args))


def _max(tr, e) -> Term:
    return T.maximum(*(tr.numeric(a) for a in e.args))


def _abs(tr, e) -> Term:
    x = tr.numeric(e.args[0])
    return T.maximum(x, T.neg(x))


#: PyTorch's opaque functions of floats (``OpaqueUnaryFn_log2``): read as opaque functions
#: named by their class, so that the reasoner knows which are PyTorch's (and monotone)
OPAQUE = "OpaqueUnaryFn_"


def _opaque(tr, e) -> Term:
    return T.apply(type(e).__name__, *(tr.numeric(a) for a in e.args))


def _piecewise(tr, e) -> Term:
    pairs = [(p.args[0], p.args[1]) for p in e.args]
    last_value, last_cond = pairs[-1]
    if last_cond is not sympy.true:
        raise UnsupportedExpression(e, "a Piecewise needs a final (value, True) branch to be defined everywhere")
    out = tr.term(last_value)
    for value, cond in reversed(pairs[:-1]):
        out = T.ite(tr.boolean(cond), tr.term(value), out)
    return out


def _where(tr, e) -> Term:
    c, a, b = e.args
    return T.ite(tr.boolean(c), tr.term(a), tr.term(b))


def _relation(build: Callable[[Term, Term], Term]):
    def read(tr, e) -> Term:
        a, b = e.args
        return build(tr.term(a), tr.term(b))

    return read


def _equality(tr, e) -> Term:
    a, b = e.args
    if isinstance(a, sympy.logic.boolalg.Boolean) and not isinstance(a, sympy.Expr):
        return T.iff(tr.boolean(a), tr.boolean(b))
    return T.eq(tr.numeric(a), tr.numeric(b))


def _junction(build):
    return lambda tr, e: build(*(tr.boolean(a) for a in e.args))


def _not(tr, e) -> Term:
    return T.not_(tr.boolean(e.args[0]))


def _implies(tr, e) -> Term:
    return T.implies(tr.boolean(e.args[0]), tr.boolean(e.args[1]))


def _equivalent(tr, e) -> Term:
    args = [tr.boolean(a) for a in e.args]
    return T.and_(*(T.iff(a, b) for a, b in zip(args, args[1:])))


def _xor(tr, e) -> Term:
    out = T.FALSE
    for a in e.args:
        out = T.xor(out, tr.boolean(a))
    return out


#: class name -> handler; the one table through which every sympy node is read
FROM_SYMPY: dict[str, Callable[[SympyToTerms, object], Term]] = {
    # numbers and symbols
    "Integer": _integer,
    "Rational": _rational,
    "Float": _float,
    "Symbol": _symbol,
    "BooleanTrue": lambda tr, e: T.TRUE,
    "BooleanFalse": lambda tr, e: T.FALSE,
    # arithmetic
    "Add": _add,
    "Mul": _mul,
    "Pow": _pow,
    "floor": _floor_of,
    "ceiling": _ceiling_of,
    "FloorToInt": _unary(_floor),
    "CeilToInt": _unary(T.ceil),
    "TruncToInt": _unary(_trunc),
    "TruncToFloat": _unary(lambda x: T.to_real(_trunc(x))),
    "ToFloat": _unary(T.to_real),
    "Identity": lambda tr, e: tr.term(e.args[0]),
    "FloorDiv": _floordiv,
    "CleanDiv": _floordiv,
    "Mod": _pymod,
    "PythonMod": _pymod,
    "ModularIndexing": _modular_indexing,
    "EuclidDiv": _euclidean(T.div),
    "EuclidMod": _euclidean(T.mod),
    "RealDiv": _truediv,
    "IntTrueDiv": _truediv,
    "FloatTrueDiv": _truediv,
    "PowByNatural": _pow_by_natural,
    "FloatPow": _float_pow,
    "OpaqueUnaryFn_sqrt": _sqrt,
    "Min": _min,
    "Max": _max,
    "Abs": _abs,
    "Piecewise": _piecewise,
    "Where": _where,
    "ITE": _where,
    # relations and connectives
    "Equality": _equality,
    "Unequality": lambda tr, e: T.not_(_equality(tr, e)),
    "LessThan": _relation(T.le),
    "StrictLessThan": _relation(T.lt),
    "GreaterThan": _relation(T.ge),
    "StrictGreaterThan": _relation(T.gt),
    "And": _junction(T.and_),
    "Or": _junction(T.or_),
    "Not": _not,
    "Implies": _implies,
    "Equivalent": _equivalent,
    "Xor": _xor,
}


#: classes whose handlers read a fixed number of arguments; a look-alike called with another
#: number (``FloorDiv(s0)``) is refused by name instead of failing inside the handler
ARITY: dict[str, int] = {
    **dict.fromkeys(("FloorDiv", "CleanDiv", "Mod", "PythonMod", "EuclidDiv", "EuclidMod", "RealDiv", "IntTrueDiv",
                     "FloatTrueDiv", "PowByNatural", "FloatPow", "Pow", "Equality", "Unequality", "LessThan", "StrictLessThan", "GreaterThan",
                     "StrictGreaterThan", "Implies"), 2),
    **dict.fromkeys(("ModularIndexing", "Where", "ITE"), 3),
    **dict.fromkeys(("floor", "ceiling", "FloorToInt", "CeilToInt", "TruncToInt", "TruncToFloat", "ToFloat",
                     "Identity", "OpaqueUnaryFn_sqrt", "Abs", "Not"), 1),
}


def to_term(expr, sort_of: SortOf = default_sort_of, sign_of: SignOf | None = None) -> Term:
    """One-off translation (no facts, so symbolic divisors keep their ``ite``)."""
    return SympyToTerms(sort_of, sign_of)(expr)


# ---------------------------------------------------------------- terms -> sympy

#: what sympy raises from inside a function's ``eval`` that it cannot carry out: PyTorch's
#: ``FloorDiv.eval`` runs ``sympy.simplify``, which differentiates a ``Where`` operand and
#: fails on its condition (``'GreaterThan' object has no attribute 'diff'``)
_EVAL_FAILURES = (AttributeError, TypeError, ValueError, RecursionError)


def _applied(function, *args):
    """``function(*args)``, evaluated where sympy can (PyTorch's functions fold constants and
    cancel common factors), else left unevaluated: the same value, written as applied."""
    try:
        return function(*args)
    except _EVAL_FAILURES:
        return function(*args, evaluate=False)


class TermsToSympy:
    """Writes terms as sympy, memoised per term.

    ``symbols`` maps variable names to the sympy symbols to use (the caller's
    own, so answers can be substituted into its expressions); a name not in it
    gets a fresh ``Symbol`` (``integer=True`` for Int). ``vocabulary`` is
    ``"sympy"`` (plain sympy) or PyTorch's functions module, as
    :func:`absint.torch.vocabulary.sympy_functions` gives it (handed in: this package does
    not import the torch client).
    """

    def __init__(self, symbols: dict[str, sympy.Symbol] | None = None, vocabulary: object = "sympy"):
        self.symbols = symbols if symbols is not None else {}
        if vocabulary == "sympy":
            self.F = None
        elif isinstance(vocabulary, str):
            raise ValueError(f"vocabulary must be 'sympy' or PyTorch's sympy functions "
                             f"(absint.torch.vocabulary.sympy_functions()), not {vocabulary!r}")
        else:
            self.F = vocabulary
        self._memo: dict[int, object] = {}

    def mark(self) -> tuple[int, int]:
        """The extents of the memo and of the symbols, for :meth:`restore`."""
        return len(self._memo), len(self.symbols)

    def restore(self, mark: tuple[int, int]) -> None:
        """Forget what was written or named since :meth:`mark` (both only grow)."""
        for d, n in zip((self._memo, self.symbols), mark):
            while len(d) > n:
                d.popitem()

    def __call__(self, t: Term):
        r = self._memo.get(t.id)
        if r is None:
            for s in T.subterms(t):  # children first: no deep recursion
                if s.id not in self._memo:
                    self._memo[s.id] = TO_SYMPY[s.kind](self, s)
            r = self._memo[t.id]
        return r

    def arg(self, t: Term):
        return self._memo[t.id]

    def symbol(self, name: str, sort: Sort):
        s = self.symbols.get(name)
        if s is None:
            s = sympy.Symbol(name, integer=True) if sort is INT else sympy.Symbol(name)
            self.symbols[name] = s
        return s

    def floordiv(self, x, y):
        """``x // y`` for a ``y`` known positive."""
        if self.F is not None:
            return _applied(self.F.FloorDiv, x, y)
        # unevaluated: sympy 1.14 takes Piecewise((0, c), (2, True))/6 for an integer (its
        # values are even) and drops the floor (2 // 6 read back as 1/3)
        return sympy.floor(x / y, evaluate=False)

    def pymod(self, x, y):
        if self.F is not None:
            return _applied(self.F.PythonMod, x, y)
        # unevaluated: sympy 1.14 rewrites Mod(4*Mod(x, 3), 5) to Mod(4*Mod(x, 3)**2, 5),
        # which is wrong (x = 2: 3 against 1)
        return sympy.Mod(x, y, evaluate=False)

    def linear(self, t: Term) -> tuple[list, list, object]:
        """``t`` as (positive terms, negated negative terms, constant)."""
        coefs, c = T.linear_parts(t)
        pos, neg = [], []
        for a, v in sorted(coefs.items(), key=lambda p: p[0].id):
            x = self.arg(a) if a.id in self._memo else self(a)
            if v > 0:
                pos.append(_number(v) * x)
            else:
                neg.append(_number(-v) * x)
        return pos, neg, _number(c)


def _number(v) -> sympy.Expr:
    if isinstance(v, bool):
        return sympy.true if v else sympy.false
    if isinstance(v, Fraction):
        return sympy.Integer(v.numerator) if v.denominator == 1 else sympy.Rational(v.numerator, v.denominator)
    return sympy.Integer(v)


def _back_const(tb, t):
    if t.sort is BOOL:
        return sympy.true if t.data else sympy.false
    return _number(t.data)


def _back_lin(tb, t):
    pos, neg, c = tb.linear(t)
    return sympy.Add(*pos) - sympy.Add(*neg) + c


def _nonzero_number(d: Term) -> bool:
    return d.kind == CONST and d.data != 0


def _back_div(tb, t):
    x, y = (tb.arg(a) for a in t.args)
    d = t.args[1]
    if _nonzero_number(d):  # Euclidean by a number: a floor quotient, negated for a negative one
        return tb.floordiv(x, y) if d.data > 0 else -tb.floordiv(x, -y)
    if tb.F is None or y.is_zero:  # also PyTorch's, by what sympy sees is 0: its FloorDiv raises
        return EuclidDiv(x, y)
    # PyTorch's: floor(x/y) for y > 0, -floor(x/-y) for y < 0 (its FloorDiv folds y // y to 1)
    return _ite(tb, y > 0, tb.floordiv(x, y), -tb.floordiv(x, -y))


def _back_mod(tb, t):
    x, y = (tb.arg(a) for a in t.args)
    d = t.args[1]
    if _nonzero_number(d):
        return tb.pymod(x, abs(y))
    if tb.F is None or y.is_zero:
        return EuclidMod(x, y)
    return _ite(tb, y > 0, tb.pymod(x, y), tb.pymod(x, -y))


def _ite(tb, c, a, b):
    if tb.F is not None:
        return tb.F.Where(c, a, b)
    return sympy.Piecewise((a, c), (b, True))


def _back_ite(tb, t):
    c, a, b = (tb.arg(x) for x in t.args)
    if t.sort is BOOL:
        return sympy.ITE(c, a, b)
    return _ite(tb, c, a, b)


def _back_unary(plain, torch_name):
    def build(tb, t):
        x = tb.arg(t.args[0])
        if tb.F is not None and torch_name:
            return getattr(tb.F, torch_name)(x)
        return plain(x)

    return build


def _back_rdiv(tb, t):
    x, y = (tb.arg(a) for a in t.args)
    if tb.F is not None and t.args[1].kind != CONST and not y.is_zero:
        return tb.F.FloatTrueDiv(x, y)  # PyTorch's keeps y / y (and raises on a divisor it sees is 0)
    return RealDiv(x, y)  # by a non-zero number, its eval gives x / y


def _back_pow(tb, t):
    b, e = (tb.arg(a) for a in t.args)
    if tb.F is not None:
        if t.sort is INT:
            return tb.F.PowByNatural(b, e)
        return tb.F.FloatPow(b, e)
    return sympy.Pow(b, e)


def _back_min_max(name):
    def build(tb, t):
        args = [tb.arg(a) for a in t.args]
        cls = getattr(tb.F, name) if tb.F is not None else getattr(sympy, name)
        return cls(*args)

    return build


def _back_compare(kind):
    def build(tb, t):
        pos, neg, c = tb.linear(t.args[0])
        lhs, rhs = sympy.Add(*pos), sympy.Add(*neg) - c  # sum(pos) - sum(neg) + c <op> 0
        if not pos and kind in (LE, LT):
            lhs, rhs = sympy.Add(*neg), c  # c - sum(neg) <op> 0  <=>  sum(neg) >op< c
            return sympy.Ge(lhs, rhs) if kind == LE else sympy.Gt(lhs, rhs)
        return {LE: sympy.Le, LT: sympy.Lt, EQ: sympy.Eq, NE: sympy.Ne}[kind](lhs, rhs)

    return build


def _back_opaque(tb, t):
    args = [tb.arg(a) for a in t.args]
    if tb.F is not None and len(args) == 1 and t.data.startswith(OPAQUE):
        return tb.F.make_opaque_unary_fn(t.data[len(OPAQUE):])(*args)
    return sympy.Function(t.data)(*args)


def _back_distinct(tb, t):
    args = [tb.arg(a) for a in t.args]
    return sympy.And(*(sympy.Ne(a, b) for k, a in enumerate(args) for b in args[k + 1:]))


#: term kind -> handler; the one table for the way back
TO_SYMPY: dict[Kind, Callable[[TermsToSympy, Term], object]] = {
    CONST: _back_const,
    VAR: lambda tb, t: tb.symbol(t.data, t.sort),
    LIN: _back_lin,
    MUL: lambda tb, t: sympy.Mul(*(tb.arg(a) for a in t.args)),
    DIV: _back_div,
    MOD: _back_mod,
    TO_INT: _back_unary(sympy.floor, "FloorToInt"),
    CEIL: _back_unary(sympy.ceiling, "CeilToInt"),
    TO_REAL: _back_unary(lambda x: x, "ToFloat"),
    RDIV: _back_rdiv,
    POW: _back_pow,
    MIN: _back_min_max("Min"),
    MAX: _back_min_max("Max"),
    ITE: _back_ite,
    LE: _back_compare(LE),
    LT: _back_compare(LT),
    EQ: _back_compare(EQ),
    NE: _back_compare(NE),
    DISTINCT: _back_distinct,
    FN: _back_opaque,
    DEF: lambda tb, t: tb.arg(t.args[0]),  # a named sum is its definition
    AND: lambda tb, t: sympy.And(*(tb.arg(a) for a in t.args)),
    OR: lambda tb, t: sympy.Or(*(tb.arg(a) for a in t.args)),
    NOT: lambda tb, t: sympy.Not(tb.arg(t.args[0])),
}


def to_sympy(t: Term, symbols: dict[str, sympy.Symbol] | None = None, vocabulary: object = "sympy"):
    """One-off translation of a term to sympy."""
    return TermsToSympy(symbols, vocabulary)(t)


__all__ = [
    "FROM_SYMPY", "TO_SYMPY", "SympyToTerms", "TermsToSympy", "UnsupportedExpression",
    "default_sort_of", "to_sympy", "to_term",
]
