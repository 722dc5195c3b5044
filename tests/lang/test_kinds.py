"""Operator kinds are :class:`absint.lang.kinds.Kind` members, not strings.

Every kind has one row in the operator table and every row one kind; each kind is built
by its constructor, evaluated, and printed both ways; a member is its text as a value and
as a key; and no code of absint outside the readers and the printer compares a term's
kind with a string literal (shown able to fail on a planted comparison).
"""

from __future__ import annotations

import ast
import json
from fractions import Fraction

import pytest

from absint.lang import kinds
from absint.lang import terms as T
from absint.lang.dag import subterms
from absint.lang.evaluator import evaluate
from absint.lang.kinds import Kind
from absint.lang.ops import OPS, NotEvaluable, uninterpreted
from absint.lang.printer import to_infix, to_smtlib
from absint.readers import smtlib
from repo_paths import ROOT

#: where text is mapped to kinds: the readers and the printer may spell kinds as text
BOUNDARY = ("absint/readers/", "absint/lang/printer.py")
KIND_TEXTS = frozenset(k.value for k in Kind)

x, y = T.var("x", T.INT), T.var("y", T.INT)
p = T.var("p", T.REAL)
b = T.var("b", T.BOOL)
POINT = {"x": 5, "y": 2, "p": Fraction(7, 2), "b": True}

#: the operands each kind's constructor (``OPS[kind].constructor``) is called with
OPERANDS = {
    Kind.CONST: (7,),
    Kind.VAR: ("x", T.INT),
    Kind.LIN: (T.scale(x, 3), T.neg(y), T.const(2)),
    Kind.MUL: (x, y),
    Kind.DIV: (x, T.const(3)),  # a positive constant divisor: the infix operator, not div(x, y)
    Kind.MOD: (x, T.const(3)),
    Kind.RDIV: (p, T.to_real(y)),
    Kind.POW: (x, y),
    Kind.TO_INT: (p,),
    Kind.CEIL: (p,),
    Kind.TO_REAL: (x,),
    Kind.MIN: (x, y),
    Kind.MAX: (x, y),
    Kind.FN: ("log2", T.add(x, T.const(1))),
    Kind.DEF: (T.add(x, T.scale(y, 2), T.const(1)),),
    Kind.ITE: (b, x, y),
    Kind.LE: (x, y),
    Kind.LT: (p, T.to_real(x)),
    Kind.EQ: (x, y),
    Kind.NE: (x, y),
    Kind.DISTINCT: (*(T.add(x, T.const(i)) for i in range(T.MAX_DISTINCT_EXPANDED)), y),
    Kind.NOT: (b,),
    Kind.AND: (b, T.le(x, y)),
    Kind.OR: (b, T.le(x, y)),
}


def built(kind: Kind) -> T.Term:
    return getattr(T, OPS[kind].constructor)(*OPERANDS[kind])


def test_every_kind_has_exactly_one_row_and_every_row_a_kind():
    rows = [op.kind for op in OPS.values()]
    assert sorted(rows) == sorted(Kind) and len(set(rows)) == len(rows)
    assert all(type(k) is Kind and OPS[k].kind is k for k in OPS)


def test_every_member_has_its_module_level_alias():
    assert set(kinds.__all__) == {"Kind", *Kind.__members__}
    assert all(getattr(kinds, k.name) is k for k in Kind)


@pytest.mark.parametrize("kind", list(Kind))
def test_a_member_equals_and_hashes_as_its_text(kind):
    text = kind.value
    assert kind == text and hash(kind) == hash(text) and str(kind) == f"{kind}" == text
    assert {text: 1}[kind] == 1 and {kind: 1}[text] == 1 and text in frozenset(Kind)
    assert json.loads(json.dumps({kind: kind})) == {text: text}


@pytest.mark.parametrize("kind", list(Kind))
def test_constructor_builds_the_kind_as_a_member(kind):
    t = built(kind)
    assert t.kind == kind
    assert all(type(s.kind) is Kind for s in subterms(t))


def test_read_terms_carry_members():
    program = smtlib.parse("(declare-const x Int) (declare-const y Int)\n"
                           "(assert (or (<= (div x 2) (mod y 3)) (distinct x (* x y))))")
    assert all(type(s.kind) is Kind for fact in program.facts for s in subterms(fact.term))


@pytest.mark.parametrize("kind", list(Kind))
def test_evaluator_gives_each_kind_a_meaning(kind):
    t = built(kind)
    assert (OPS[kind].meaning is None) == (kind == Kind.VAR)
    if OPS[kind].meaning is uninterpreted:
        with pytest.raises(NotEvaluable, match="opaque"):
            evaluate(t, POINT)
    else:
        assert evaluate(t, POINT) is not None


@pytest.mark.parametrize("kind", list(Kind))
def test_both_printers_print_each_kind(kind):
    t = built(kind)
    text, infix = to_smtlib(t), to_infix(t)
    assert text and infix
    assert OPS[kind].smtlib is None or OPS[kind].smtlib in text
    assert OPS[kind].infix.symbol in infix


# ---------------------------------------------------------------- kinds never compared as strings


def _kind_text(node: ast.AST) -> bool:
    """A kind's text, or a tuple/list/set (or ``frozenset``/``set`` call over one) holding one."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value in KIND_TEXTS
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_kind_text(e) for e in node.elts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("frozenset", "set"):
        return any(_kind_text(a) for a in node.args)
    return False


def _kind_names(scope: ast.AST) -> set[str]:
    """Names in ``scope`` that hold a term's kind: assigned from ``X.kind``, or a parameter
    named ``kind`` or annotated ``Kind``."""
    names: set[str] = set()
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute) and node.value.attr == "kind":
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.arg) and (node.arg == "kind" or (
                isinstance(node.annotation, ast.Name) and node.annotation.id == "Kind")):
            names.add(node.arg)
    return names


def _holds_kind(node: ast.AST, names: set[str]) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "kind") or (
        isinstance(node, ast.Name) and node.id in names)


def string_kind_comparisons(source: str) -> list[int]:
    """Lines comparing a term's kind (``X.kind``, or a name holding one) with a kind's text."""
    tree = ast.parse(source)
    scopes = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    names_at = {}
    for scope in scopes:  # outer functions first: an inner one's names win for its own lines
        names = _kind_names(scope)
        for node in ast.walk(scope):
            names_at[id(node)] = names
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            names = names_at.get(id(node), set())
            if any(_holds_kind(o, names) for o in operands) and any(_kind_text(o) for o in operands):
                lines.add(node.lineno)
    return sorted(lines)


def _planted() -> str:
    """Comparisons the scan must catch, each spelt the old way (a kind's text)."""
    div, mod, mn, mx, le = (f'"{k.value}"' for k in (Kind.DIV, Kind.MOD, Kind.MIN, Kind.MAX, Kind.LE))
    return "\n".join([
        "def f(t, g, kind, op: Kind):",
        f"    a = t.kind == {div}",
        f"    b = {mod} != g.args[0].kind",
        "    k = g.kind",
        f"    c = k in ({mn}, {mx})",
        f"    d = kind == {le}",
        f"    e = t.kind not in frozenset(({div}, {mod}))",
        f"    h = op != {mod}",
        "    return a, b, c, d, e, h",
    ])


def test_the_scan_catches_planted_string_comparisons():
    assert string_kind_comparisons(_planted()) == [2, 3, 5, 6, 7, 8]


def test_the_scan_leaves_alias_and_other_comparisons_alone():
    source = "\n".join([
        "def f(t, item, kind: Kind):",
        "    a = t.kind == DIV or kind in (MIN, MAX)",
        '    return a, item.status == "div", t.data in ("min", "max")',
    ])
    assert string_kind_comparisons(source) == []


def test_no_term_kind_is_compared_with_a_string_outside_the_readers_and_printer():
    found = []
    for path in sorted((ROOT / "absint").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if not relative.startswith(BOUNDARY):
            found += [f"{relative}:{line}" for line in string_kind_comparisons(path.read_text())]
    assert found == []
