"""PyTorch's ``ShapeEnv`` as a third reasoner for ``absint compare``.

The file is read from its own text (not through absint's reader, so absint's
normal forms do not help or hurt ShapeEnv) and every expression is rebuilt with
the sympy functions the compiler itself uses (``torch.utils._sympy.functions``).
Then it is driven the way the compiler drives it:

* every declared Int with an example value becomes a backed symbol,
  ``create_symbol(hint, source, dynamic_dim=DimDynamic.DYNAMIC, positive=None,
  do_not_specialize_zero_one=True)`` on a ``ShapeEnv(specialize_zero_one=False,
  duck_shape=False)``: no 0/1 specialisation, no duck sizing, and *no sign
  assumption* (``positive=None`` gives the range ``[-oo, oo]``), the same
  knowledge absint has; one without a value becomes an unbacked symbol,
  ``create_unbacked_symint()`` (also ``[-oo, oo]``);
* for each assert, in file order: ``_maybe_evaluate_static(expr)`` gives the
  verdict (``sympy.true`` -> ``T``, ``sympy.false`` -> ``F``, anything else ->
  ``?``), then the assert is recorded as the compiler records a ``torch._check``:
  ``evaluate_expr(expr)`` (a guard) when all its symbols are backed,
  ``guard_or_defer_runtime_assert(expr, msg)`` (a deferred runtime assert) when it
  mentions unbacked ones.

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
(letter ``n``), as does any construct outside the list above. An assert ShapeEnv
raises on gets ``e``.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

INSTALL_HINT = "ShapeEnv comparison needs torch: pip install 'absint[shapeenv]' (torch==2.13.0)"

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


def require_torch():
    from absint.compare.z3_oracle import MissingExtra

    try:
        import torch  # noqa: F401
        from torch.fx.experimental import symbolic_shapes  # noqa: F401
    except ImportError:
        raise MissingExtra(INSTALL_HINT) from None


def torch_version() -> str:
    import torch

    return torch.__version__


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


def _unparse(x) -> str:
    return "(" + " ".join(_unparse(y) for y in x) + ")" if isinstance(x, list) else x


@dataclass
class ShapeEnvFileResult:
    letters: str = ""
    seconds: list[float] = field(default_factory=list)  # per assert; translation spread evenly
    total_seconds: float = 0.0  # translation + queries + recording
    translate_seconds: float = 0.0
    positive_divisor_reading: int = 0
    reasons: dict[str, int] = field(default_factory=dict)  # why asserts were not translated / raised
    error: str | None = None
    source: str = "shapeenv"


class _Translator:
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


def run_file(data: bytes, *, budget_s: float = 300.0) -> ShapeEnvFileResult:
    """Every assert of one file through a fresh ShapeEnv (see the module docstring)."""
    require_torch()
    import sympy
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    start = time.process_time()
    try:
        commands = read_sexprs(data.decode("utf-8", errors="replace"))
    except Untranslatable as e:
        return ShapeEnvFileResult(error=str(e))
    hints = {}
    for c in commands:
        if isinstance(c, list) and len(c) == 3 and c[0] == "set-info" and c[1].startswith(":example-"):
            v = c[2]
            if isinstance(v, list) and len(v) == 2 and v[0] == "-" and isinstance(v[1], str):
                v = "-" + v[1]
            if isinstance(v, str):
                hints[c[1][len(":example-"):]] = v
    se = ShapeEnv(specialize_zero_one=False, duck_shape=False, assume_static_by_default=False)
    t = _Translator(se, hints)
    reasons: dict[str, int] = {}
    letters: list[str] = []
    seconds: list[float] = []
    translate = 0.0
    positive_reading = 0
    for c in commands:
        if not isinstance(c, list) or not c:
            continue
        head = c[0]
        if head == "declare-const" and len(c) == 3:
            t.declared[c[1]] = c[2]
        elif head == "declare-fun" and len(c) == 4 and c[2] == []:
            t.declared[c[1]] = c[3]
        elif head == "define-fun" and len(c) == 5:
            name, params, sort, body = c[1:]
            if params:
                t.macros[name] = ([(p[0], p[1]) for p in params], body)
                if PRELUDE.get(name) == " ".join(_unparse(y) for y in c[2:]):
                    t.prelude.add(name)
                else:
                    t.prelude.discard(name)
                continue
            if _OUTPUT.match(name):
                continue
            t0 = time.process_time()
            if t0 - start > budget_s:
                continue  # the budget is spent: the asserts left will be 'x' anyway
            t.positive_reading = False
            try:
                t.defines[name] = t.expr(body)
                if t.positive_reading:
                    t.positive_defs.add(name)
            except Untranslatable as e:
                t.defines[name] = e
            except Exception as e:  # sympy or torch refused the expression
                t.defines[name] = Untranslatable(f"{type(e).__name__}")
            translate += time.process_time() - t0
        elif head == "assert" and len(c) == 2:
            t0 = time.process_time()
            if t0 - start > budget_s:
                letters.append("x")
                seconds.append(0.0)
                continue
            t.positive_reading = False
            try:
                expr, sort = t.expr(c[1])
                if sort != "Bool":
                    raise Untranslatable("assert of a non-Bool")
            except Exception as e:
                why = str(e) if isinstance(e, Untranslatable) else type(e).__name__
                reasons[why] = reasons.get(why, 0) + 1
                letters.append("n")
                translate += time.process_time() - t0
                seconds.append(time.process_time() - t0)
                continue
            positive_reading += t.positive_reading
            t1 = time.process_time()
            translate += t1 - t0
            letters.append(_decide_and_record(se, expr, t.unbacked, len(letters), reasons, sympy))
            seconds.append(time.process_time() - t1)
    total = time.process_time() - start
    n = len(letters)
    if n:
        seconds = [s + translate / n for s in seconds]
    return ShapeEnvFileResult("".join(letters), seconds, total, translate, positive_reading, reasons)


def _decide_and_record(se, expr, unbacked, index: int, reasons: dict, sympy) -> str:
    try:
        r = se._maybe_evaluate_static(expr)
        letter = "T" if r is sympy.true else "F" if r is sympy.false else "?"
        if expr is sympy.true or expr is sympy.false:
            return letter
        if expr.free_symbols & unbacked:
            se.guard_or_defer_runtime_assert(expr, f"assert {index}")
        else:
            se.evaluate_expr(expr)
        return letter
    except Exception as e:
        why = f"ShapeEnv raised {type(e).__name__}"
        reasons[why] = reasons.get(why, 0) + 1
        return "e"
