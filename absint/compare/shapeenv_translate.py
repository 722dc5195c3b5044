"""SMT-LIB text to the sympy expressions PyTorch's compiler builds, for the ShapeEnv oracle.

The file is read from its own text (not through absint's reader, so absint's normal forms
do not help or hurt ShapeEnv) and every expression is rebuilt with the sympy functions the
compiler itself uses (``torch.utils._sympy.functions``).

Translation (SMT-LIB -> sympy):
``+ - *`` -> Add/Mul; ``/`` -> ``IntTrueDiv`` (Int operands) or ``FloatTrueDiv``;
``to_real`` -> ``ToFloat``; ``to_int`` -> ``FloorToInt``; the prelude's ``ceil``,
``min2``, ``max2``, ``sqrt`` -> ``CeilToInt``, ``Min``, ``Max``,
``OpaqueUnaryFn_sqrt`` (another macro is expanded); ``^`` -> ``PowByNatural``
(Int base, natural exponent) or ``FloatPow``; ``ite`` -> ``Where``/``ITE``;
relations and connectives -> sympy's.

``div``/``mod`` are Euclidean in SMT-LIB, floor-based (``FloorDiv``,
``PythonMod``) in PyTorch; they agree when the divisor is positive. So: a positive
constant divisor ``c`` -> ``FloorDiv(x, c)``, ``PythonMod(x, c)``; a negative one
-> ``-FloorDiv(x, -c)``, ``PythonMod(x, -c)`` (exact); a symbolic divisor that is
positive *at the example point* -> ``FloorDiv``/``PythonMod`` (the reading PyTorch
itself had when it wrote the file; such asserts are counted in
``positive_divisor_reading``); any other divisor (zero, non-positive at the
example, or mentioning unbacked symbols) makes the assert *not translated*
(letter ``n``), as does any construct outside the list above.
"""

from __future__ import annotations

import re
from typing import Any

_TOKEN = re.compile(r'[()]|\|[^|]*\||"(?:[^"]|"")*"|[^\s()|";]+')
_OUTPUT = re.compile(r"output\d+_")
_INT = re.compile(r"-?[0-9]+")
_DEC = re.compile(r"-?[0-9]+\.[0-9]+")

PRELUDE = {
    "ceil": "((x Real)) Int (ite (= (to_int x) x) (to_int x) (+ (to_int x) 1))",
    "min2": "((x Int) (y Int)) Int (ite (< x y) x y)",
    "max2": "((x Int) (y Int)) Int (ite (> x y) x y)",
    "sqrt": "((x Real)) Real (^ x 0.5)",
}


class Untranslatable(Exception):
    pass



def read_sexprs(text: str) -> list:
    """Top-level s-expressions as nested lists of token strings (comments dropped)."""
    text = re.sub(r'"(?:[^"]|"")*"|\|[^|]*\||;[^\n]*', lambda m: m.group() if m.group()[0] != ";" else " ", text)
    stack: list[list] = [[]]
    for tok in _TOKEN.findall(text):
        if tok == "(":
            stack.append([])
        elif tok == ")":
            if len(stack) == 1:
                raise Untranslatable("unbalanced ')'")
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok[1:-1] if tok[0] == "|" else tok)
    if len(stack) != 1:
        raise Untranslatable("unbalanced '('")
    return stack[0]


def example_hints(commands: list) -> dict[str, str]:
    """``(set-info :example-NAME VALUE)`` -> {NAME: VALUE}: the sizes PyTorch saw."""
    hints = {}
    for c in commands:
        if isinstance(c, list) and len(c) == 3 and c[0] == "set-info" and c[1].startswith(":example-"):
            v = c[2]
            if isinstance(v, list) and len(v) == 2 and v[0] == "-" and isinstance(v[1], str):
                v = "-" + v[1]
            if isinstance(v, str):
                hints[c[1][len(":example-"):]] = v
    return hints


def is_output(name: str) -> bool:
    """Outputs the compiler computes (``output0_...``) are not facts: never translated."""
    return _OUTPUT.match(name) is not None


def _unparse(x) -> str:
    return "(" + " ".join(_unparse(y) for y in x) + ")" if isinstance(x, list) else x


class Translator:
    """Rebuilds one file's expressions in sympy over one ShapeEnv's symbols, in file order."""

    def __init__(self, shape_env, hints: dict[str, str]):
        import sympy
        from torch._dynamo.source import ConstantSource
        from torch.fx.experimental.symbolic_shapes import DimDynamic
        from torch.utils._sympy import functions as F

        self.sympy, self.F, self.se = sympy, F, shape_env
        self.ConstantSource, self.DimDynamic = ConstantSource, DimDynamic
        self.hints = hints
        self.declared: dict[str, str] = {}
        self.symbols: dict[str, tuple[Any, str]] = {}
        self.defines: dict[str, tuple[Any, str] | Untranslatable] = {}
        self.macros: dict[str, tuple[list[tuple[str, str]], list | str]] = {}
        self.prelude: set[str] = set()
        self.unbacked: set = set()
        self.positive_reading = False  # set while translating an expression that used it
        self.positive_defs: set[str] = set()  # defines translated with it

    # ---------------------------------------------------------- definitions

    def define(self, name: str, body) -> None:
        """A 0-ary ``define-fun``; an untranslatable one fails only the asserts that use it."""
        self.positive_reading = False
        try:
            self.defines[name] = self.expr(body)
            if self.positive_reading:
                self.positive_defs.add(name)
        except Untranslatable as e:
            self.defines[name] = e
        except Exception as e:  # sympy or torch refused the expression
            self.defines[name] = Untranslatable(f"{type(e).__name__}")

    def define_macro(self, name: str, params: list, sort: str, body) -> None:
        """A ``define-fun`` with parameters; the prelude's own are read as PyTorch's functions."""
        self.macros[name] = ([(p[0], p[1]) for p in params], body)
        if PRELUDE.get(name) == " ".join(_unparse(y) for y in (params, sort, body)):
            self.prelude.add(name)
        else:
            self.prelude.discard(name)

    # ---------------------------------------------------------- names

    def symbol(self, name: str):
        got = self.symbols.get(name)
        if got is not None:
            return got
        sort = self.declared[name]
        hint = self.hints.get(name)
        if sort == "Int" and hint is not None and _INT.fullmatch(hint):
            e = self.se.create_symbol(int(hint), self.ConstantSource(name), dynamic_dim=self.DimDynamic.DYNAMIC,
                                      positive=None, do_not_specialize_zero_one=True)
        elif sort == "Int" and hint is None:
            e = self.se.create_unbacked_symint().node.expr
            self.unbacked.add(e)
        else:
            raise Untranslatable(f"{sort} symbol")
        self.symbols[name] = (e, sort)
        return self.symbols[name]

    def lookup(self, name: str, env: dict):
        if name in env:
            return env[name]
        d = self.defines.get(name)
        if d is not None:
            if isinstance(d, Untranslatable):
                raise d
            if name in self.positive_defs:
                self.positive_reading = True
            return d
        if name in self.declared:
            return self.symbol(name)
        sympy = self.sympy
        if name == "true":
            return sympy.true, "Bool"
        if name == "false":
            return sympy.false, "Bool"
        if _INT.fullmatch(name):
            return sympy.Integer(int(name)), "Int"
        if _DEC.fullmatch(name):
            return sympy.Float(name), "Real"
        raise Untranslatable(f"unknown symbol {name}")

    # ---------------------------------------------------------- expressions

    def expr(self, x, env: dict | None = None):
        env = env or {}
        if not isinstance(x, list):
            return self.lookup(x, env)
        if not x:
            raise Untranslatable("()")
        head, rest = x[0], x[1:]
        if head == "let":
            inner = dict(env)
            for binding in rest[0]:
                inner[binding[0]] = self.expr(binding[1], env)
            return self.expr(rest[1], inner)
        if isinstance(head, list):
            raise Untranslatable("indexed identifier")
        args = [self.expr(a, env) for a in rest]
        if head in self.macros:
            return self.macro(head, args)
        op = _OPS.get(head)
        if op is None:
            raise Untranslatable(f"operator {head}")
        return op(self, args)

    def macro(self, name: str, args):
        F = self.F
        params, body = self.macros[name]
        if len(params) != len(args):
            raise Untranslatable(f"{name}: arity")
        if name in self.prelude:
            if name == "ceil":
                return F.CeilToInt(self.real(args[0])), "Int"
            if name == "min2":
                return F.Min(args[0][0], args[1][0]), "Int"
            if name == "max2":
                return F.Max(args[0][0], args[1][0]), "Int"
            if name == "sqrt":
                return F.OpaqueUnaryFn_sqrt(self.real(args[0])), "Real"
        return self.expr(body, {p: a for (p, _), a in zip(params, args)})

    def real(self, a):
        e, sort = a
        if sort == "Int":
            return e if e.is_number else self.F.ToFloat(e)
        return e

    def hint_value(self, e):
        """The value of ``e`` at the example point, or None (unbacked symbols)."""
        if e.free_symbols & self.unbacked:
            return None
        v = e.xreplace(self.se.backed_var_to_val)
        return v if v.is_number else None

    def divisor(self, y):
        """('const', c) or ('positive', e) or raise: see the module docstring."""
        e, sort = y
        if sort != "Int":
            raise Untranslatable("div/mod of a Real")
        if e.is_Integer:
            if e == 0:
                raise Untranslatable("division by zero")
            return "const", int(e)
        v = self.hint_value(e)
        if v is None or not v > 0:
            raise Untranslatable("div/mod by a symbol not positive at the example point")
        self.positive_reading = True
        return "positive", e


def _num_sort(args) -> str:
    return "Real" if any(s == "Real" for _, s in args) else "Int"


def _add(t, args):
    return t.sympy.Add(*[e for e, _ in args]), _num_sort(args)


def _sub(t, args):
    if len(args) == 1:
        return -args[0][0], args[0][1]
    out = args[0][0]
    for e, _ in args[1:]:
        out = out - e
    return out, _num_sort(args)


def _mul(t, args):
    return t.sympy.Mul(*[e for e, _ in args]), _num_sort(args)


def _div(t, args):
    (x, _), y = args
    kind, d = t.divisor(y)
    if kind == "const" and d < 0:
        return -t.F.FloorDiv(x, -d), "Int"
    return t.F.FloorDiv(x, d), "Int"


def _mod(t, args):
    (x, _), y = args
    kind, d = t.divisor(y)
    if kind == "const" and d < 0:
        d = -d
    return t.F.PythonMod(x, d), "Int"


def _rdiv(t, args):
    if len(args) != 2:
        raise Untranslatable("n-ary /")
    (a, sa), (b, sb) = args
    if sa == sb == "Int":
        return t.F.IntTrueDiv(a, b), "Real"
    return t.F.FloatTrueDiv(t.real(args[0]), t.real(args[1])), "Real"


def _pow(t, args):
    (a, sa), (b, sb) = args
    if sa == sb == "Int" and b.is_Integer and b >= 0:
        return t.F.PowByNatural(a, b), "Int"
    return t.F.FloatPow(t.real(args[0]), t.real(args[1])), "Real"


def _chain(rel):
    def build(t, args):
        sympy = t.sympy
        parts = [rel(sympy, a[0], b[0]) for a, b in zip(args, args[1:])]
        return (parts[0] if len(parts) == 1 else sympy.And(*parts)), "Bool"

    return build


def _eq(t, args):
    sympy = t.sympy
    if args[0][1] == "Bool":
        parts = [sympy.Equivalent(a[0], b[0]) for a, b in zip(args, args[1:])]
    else:
        parts = [sympy.Eq(a[0], b[0]) for a, b in zip(args, args[1:])]
    return (parts[0] if len(parts) == 1 else sympy.And(*parts)), "Bool"


def _distinct(t, args):
    sympy = t.sympy
    parts = [sympy.Ne(a[0], b[0]) for i, a in enumerate(args) for b in args[i + 1:]]
    return (parts[0] if len(parts) == 1 else sympy.And(*parts)), "Bool"


def _ite(t, args):
    (c, _), (a, sa), (b, sb) = args
    if sa == "Bool":
        return t.sympy.ITE(c, a, b), "Bool"
    return t.F.Where(c, a, b), _num_sort(args[1:])


def _to_int(t, args):
    return t.F.FloorToInt(args[0][0]), "Int"


def _to_real(t, args):
    return t.real(args[0]), "Real"


def _abs(t, args):
    return t.sympy.Abs(args[0][0]), args[0][1]


_OPS = {
    "+": _add, "-": _sub, "*": _mul, "div": _div, "mod": _mod, "/": _rdiv, "^": _pow,
    "<": _chain(lambda s, a, b: s.Lt(a, b)), "<=": _chain(lambda s, a, b: s.Le(a, b)),
    ">": _chain(lambda s, a, b: s.Gt(a, b)), ">=": _chain(lambda s, a, b: s.Ge(a, b)),
    "=": _eq, "distinct": _distinct, "ite": _ite, "to_int": _to_int, "to_real": _to_real, "abs": _abs,
    "not": lambda t, a: (t.sympy.Not(a[0][0]), "Bool"),
    "and": lambda t, a: (t.sympy.And(*[e for e, _ in a]), "Bool"),
    "or": lambda t, a: (t.sympy.Or(*[e for e, _ in a]), "Bool"),
    "=>": lambda t, a: (t.sympy.Implies(a[0][0], a[1][0]), "Bool"),
    "xor": lambda t, a: (t.sympy.Xor(*[e for e, _ in a]), "Bool"),
}
