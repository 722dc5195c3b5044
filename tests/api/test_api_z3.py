"""No verdict of the compiler API differs from Z3 where Z3 decides.

Hypothesis draws a few symbols (with random ranges), a short list of facts and a
query, over ``+ - *``, ``FloorDiv`` / ``Mod`` / ``PythonMod`` by positive
constants and by symbols, and ``Min``/``Max``; everything is translated to Z3 by
the small translator below (Python floor-division semantics; a zero divisor is
excluded, as Python would raise). Then:

* absint TRUE  => Z3 proves facts => query   (facts ∧ ¬query unsat);
* absint FALSE => Z3 proves facts => ¬query  (facts ∧ query unsat);
* a residual is equivalent to its guard under the facts;
* every symbolic upper / lower bound piece bounds the expression under the facts.
"""

from __future__ import annotations

import contextlib
import sys

import pytest
import sympy
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from absint import ShapeReasoner, Truth

z3 = pytest.importorskip("z3")

class FloorDiv(sympy.Function):
    """Stands in for torch's FloorDiv (read by name); folds constants as torch's does."""

    is_integer = True

    @classmethod
    def eval(cls, a, b):
        if a.is_Integer and b.is_Integer and b != 0:
            return sympy.Integer(int(a) // int(b))


class PythonMod(sympy.Function):
    is_integer = True

    @classmethod
    def eval(cls, a, b):
        if a.is_Integer and b.is_Integer and b != 0:
            return sympy.Integer(int(a) % int(b))

NAMES = ("x", "y", "z")
SYMS = {n: sympy.Symbol(n, integer=True) for n in NAMES}


# ---------------------------------------------------------------- sympy -> z3, Python semantics


@contextlib.contextmanager
def _any_digits():
    """Z3 reads a numeral as text, and Python refuses to print an int over 4,300 digits; a
    sound bound under facts no integer satisfies (``x > x**2``) can run to tens of thousands."""
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(limit)


class ToZ3:
    """Reads sympy (and the two stand-ins) as Z3 terms; collects divisors to keep non-zero."""

    def __init__(self):
        self.vars = {n: z3.Int(n) for n in NAMES}
        self.divisors: list = []

    def __call__(self, e):
        name = type(e).__name__
        args = e.args
        if e.is_Integer:
            with _any_digits():
                return z3.IntVal(int(e))
        if e.is_Rational:
            with _any_digits():
                return z3.RealVal(f"{e.p}/{e.q}")
        if e.is_Symbol:
            return self.vars[e.name]
        if e is sympy.true:
            return z3.BoolVal(True)
        if e is sympy.false:
            return z3.BoolVal(False)
        if name == "Add":
            return z3.Sum([self(a) for a in args])
        if name == "Mul":
            out = self(args[0])
            for a in args[1:]:
                out = out * self(a)
            return out
        if name == "Pow":
            b, k = self(args[0]), int(args[1])
            if k < 0:
                return 1 / z3.ToReal(_power(b, -k))
            return _power(b, k)
        if name in ("FloorDiv", "floor_div"):
            return self.floordiv(self(args[0]), self(args[1]))
        if name in ("Mod", "PythonMod"):
            a, b = self(args[0]), self(args[1])
            return a - b * self.floordiv(a, b)
        if name in ("EuclidDiv", "EuclidMod"):  # absint's SMT-LIB div/mod, as z3's Int '/' and '%'
            a, b = self(args[0]), self(args[1])
            self.divisors.append(b)
            return a / b if name == "EuclidDiv" else a % b
        if name == "RealDiv":
            a, b = self(args[0]), self(args[1])
            self.divisors.append(b)
            return z3.ToReal(a) / z3.ToReal(b) if z3.is_int(a) and z3.is_int(b) else a / b
        if name == "floor":
            x = self(args[0])
            return z3.ToInt(x) if z3.is_real(x) else x
        if name == "ceiling":
            x = self(args[0])
            return -z3.ToInt(-x) if z3.is_real(x) else x
        if name in ("Min", "Max"):
            out = self(args[0])
            for a in args[1:]:
                b = self(a)
                out = z3.If(out <= b, out, b) if name == "Min" else z3.If(out >= b, out, b)
            return out
        if name == "Piecewise":
            out = self(args[-1].args[0])
            for p in reversed(args[:-1]):
                out = z3.If(self(p.args[1]), self(p.args[0]), out)
            return out
        rel = {"LessThan": lambda a, b: a <= b, "StrictLessThan": lambda a, b: a < b,
               "GreaterThan": lambda a, b: a >= b, "StrictGreaterThan": lambda a, b: a > b,
               "Equality": lambda a, b: a == b, "Unequality": lambda a, b: a != b}.get(name)
        if rel is not None:
            return rel(self(args[0]), self(args[1]))
        if name == "And":
            return z3.And([self(a) for a in args])
        if name == "Or":
            return z3.Or([self(a) for a in args])
        if name == "Not":
            return z3.Not(self(args[0]))
        raise NotImplementedError(name)

    def floordiv(self, a, b):
        if z3.is_real(a) or z3.is_real(b):
            return z3.ToInt(a / b)
        self.divisors.append(b)
        return z3.If(b > 0, a / b, (-a) / (-b))  # z3's Int '/' is Euclidean: floor for b > 0


def _power(b, k):
    out = z3.IntVal(1) if k == 0 else b
    for _ in range(k - 1):
        out = out * b
    return out


def z3_valid(premises: list, conclusion, tz: ToZ3) -> bool | None:
    """True if premises (and non-zero divisors) entail the conclusion; None if Z3 cannot tell."""
    s = z3.Solver()
    s.set("timeout", 2000)
    s.add(*premises)
    s.add(*[d != 0 for d in tz.divisors])
    s.add(z3.Not(conclusion))
    r = s.check()
    if r == z3.unknown:
        return None
    return r == z3.unsat


# ---------------------------------------------------------------- random programs


def expressions(max_leaves: int = 5):
    atoms = st.sampled_from([SYMS[n] for n in NAMES]) | st.integers(-4, 9).map(sympy.Integer)
    divisors = st.sampled_from([SYMS["x"], SYMS["y"]]) | st.sampled_from([2, 3, 4, 8]).map(sympy.Integer)

    def extend(children):
        pairs = st.tuples(children, children)
        return (
            pairs.map(lambda p: p[0] + p[1])
            | pairs.map(lambda p: p[0] - p[1])
            | pairs.map(lambda p: p[0] * p[1])
            | st.tuples(children, divisors).map(lambda p: FloorDiv(*p))
            | st.tuples(children, divisors).map(lambda p: sympy.Mod(*p))
            | st.tuples(children, divisors).map(lambda p: PythonMod(*p))
            | pairs.map(lambda p: sympy.Min(*p))
            | pairs.map(lambda p: sympy.Max(*p))
        )

    return st.recursive(atoms, extend, max_leaves=max_leaves)


RELATIONS = [sympy.Le, sympy.Lt, sympy.Ge, sympy.Gt, sympy.Eq, sympy.Ne]


@st.composite
def relations(draw, max_leaves: int = 5):
    rel = draw(st.sampled_from(RELATIONS))
    try:
        r = rel(draw(expressions(max_leaves)), draw(expressions(max_leaves)))
    except (TypeError, ValueError):
        r = sympy.true
    return r


@st.composite
def declarations(draw):
    out = []
    for n in NAMES:
        kind = draw(st.sampled_from(["plain", "size_like", "range"]))
        if kind == "range":
            lo = draw(st.integers(-5, 10))
            out.append((n, dict(lower=lo, upper=draw(st.integers(lo, lo + 40)))))
        else:
            out.append((n, dict(size_like=kind == "size_like")))
    return out


def _setup(decls, facts):
    r = ShapeReasoner()
    tz = ToZ3()
    premises = []
    for n, kw in decls:
        r.declare(SYMS[n], **kw)
        v = tz.vars[n]
        if kw.get("size_like"):
            premises.append(v >= 0)
        if "lower" in kw:
            premises += [v >= kw["lower"], v <= kw["upper"]]
    for f in facts:
        if f is sympy.true or f is sympy.false:
            continue
        r.assume(f)
        premises.append(tz(f))
    return r, tz, premises


SETTINGS = settings(max_examples=75, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@settings(SETTINGS, max_examples=150)
@given(decls=declarations(), facts=st.lists(relations(), max_size=4), query=relations())
def test_verdicts_agree_with_z3(decls, facts, query):
    r, tz, premises = _setup(decls, facts)
    v = r.decide(query)
    if v.truth is Truth.UNKNOWN:
        return
    q = tz(query)
    expected = q if v.truth is Truth.TRUE else z3.Not(q)
    assert z3_valid(premises, expected, tz) is not False, (decls, facts, query, v)


@SETTINGS
@given(decls=declarations(), facts=st.lists(relations(3), max_size=3),
       guard=st.lists(relations(3), min_size=1, max_size=3))
def test_residual_is_equivalent_under_the_facts(decls, facts, guard):
    r, tz, premises = _setup(decls, facts)
    g = sympy.And(*guard)
    res = r.residual(g)
    assert z3_valid(premises, tz(g) == tz(res), tz) is not False, (decls, facts, g, res)


@SETTINGS
@given(decls=declarations(), facts=st.lists(relations(3), max_size=4), expr=expressions(3),
       wanted=st.lists(st.sampled_from(NAMES), max_size=2, unique=True))
@example(decls=[(n, {"size_like": False}) for n in NAMES], facts=[SYMS["x"] > SYMS["x"] ** 2], expr=SYMS["x"],
         wanted=[])  # no integer satisfies the fact: a sound lower bound of ~23,000 digits, read by Z3
def test_symbolic_bounds_hold_under_the_facts(decls, facts, expr, wanted):
    r, tz, premises = _setup(decls, facts)
    e = tz(expr)
    for upper in (True, False):
        pieces = (r.upper_bound if upper else r.lower_bound)(expr, [SYMS[n] for n in wanted])
        for p in pieces or ():
            pz = tz(sympy.sympify(p))
            claim = e <= pz if upper else e >= pz
            assert z3_valid(premises, claim, tz) is not False, (decls, facts, expr, wanted, upper, p)


# ---------------------------------------------------------------- the translator itself


def test_translator_reads_absints_divisions_as_smtlibs():
    # the API writes a division by a symbol as EuclidDiv/EuclidMod (absint.readers.sympy_divisions)
    from absint.readers.sympy_divisions import EuclidDiv, EuclidMod

    tz = ToZ3()
    s = z3.Solver()
    x, y = tz.vars["x"], tz.vars["y"]
    s.add(x == -7, y == -2)
    s.add(z3.Or(tz(EuclidDiv(SYMS["x"], SYMS["y"])) != 4, tz(EuclidMod(SYMS["x"], SYMS["y"])) != 1))
    assert s.check() == z3.unsat


def test_translator_uses_python_floor_division():
    tz = ToZ3()
    s = z3.Solver()
    x = tz.vars["x"]
    s.add(x == -7)
    s.add(tz(FloorDiv(SYMS["x"], 2)) != -4)
    assert s.check() == z3.unsat
    s = z3.Solver()
    s.add(x == 7)
    s.add(tz(PythonMod(SYMS["x"], -2)) != -1)
    assert s.check() == z3.unsat
