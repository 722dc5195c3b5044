"""The torch-free parts of ``absint.torch.diagnose``: where a check is pasted (the statement a
line belongs to, an ``elif``'s ``if``, a comprehension's clause), pasting with line maps, the
Python a term is written as (evaluated against the term at random points, a planted wrong
operator caught), and the cover (a loop's one line, one fact for many questions, PyTorch's
preference)."""

from __future__ import annotations

import random
import types

import pytest

from absint.lang import terms as T
from absint.lang.evaluator import truth_at
from absint.lang.sorts import INT
from absint.torch.diagnose import cover, pytext, source
from absint.torch.diagnose.model import Check, Question
from absint.torch.diagnose.pytext import Names, python_text

CODE = '''def f(values, ls, o):
    out = [
        x + 1
        for x in ls
    ]
    if ls[0] <= 3:
        y = 1
    elif ls[1] <= values.size(0):
        y = 2
    total = sum(
        values[a:b].sum() for a, b in zip(o, o[1:])
    )
    return [p for p in ls if p > 0], y, total
'''


@pytest.fixture
def code_file(tmp_path):
    path = tmp_path / "code.py"
    path.write_text(CODE)
    return str(path)


def test_a_line_belongs_to_the_statement_it_is_in_and_an_elif_to_its_if(code_file):
    assert source.statement_at(code_file, 3).line == 2  # inside a multi-line statement
    assert source.statement_at(code_file, 3).indent == 4
    assert source.statement_at(code_file, 6).line == 6  # an if's test
    assert source.statement_at(code_file, 7).line == 7  # its body
    assert source.statement_at(code_file, 8).line == 6  # an elif: before its if
    assert source.statement_at(code_file, 11).line == 10
    assert source.statement_at(code_file, 6).names == frozenset({"ls"})
    assert {"values", "o", "sum", "zip", "total", "a", "b"} <= source.statement_at(code_file, 11).names


def test_a_comprehension_clause_is_read_when_it_has_one_for_and_no_if(code_file):
    assert source.comprehension_clause(code_file, 10, {"a", "b", ".0"}) == ("(a, b)", "zip(o, o[1:])",
                                                                             frozenset({"a", "b"}))
    assert source.comprehension_clause(code_file, 2, {"x"}) == ("x", "ls", frozenset({"x"}))
    assert source.comprehension_clause(code_file, 13, {"p"}) is None  # an if: the check would run for every p


def test_pasting_keeps_each_line_s_origin_and_tags_the_pasted_ones():
    text, origin = source.insert_lines("a\nb\nc\n", {2: [(4, "x", "k1"), (4, "y", "k2")]})
    assert text == "a\n    x\n    y\nb\nc\n"
    assert origin == [(1, None), (2, "k1"), (2, "k2"), (2, None), (3, None)]


def _var(name):
    return T.var(name, INT)


def _names() -> Names:
    a, b, c, d = (_var(n) for n in "abcd")
    names = Names()
    for v in (a, b, c, d):
        names.add(v, v.data, (0, 0, 1))
    names.add(T.add(a, b), "ab", (0, 0, 2))
    names.families.append(((1, 2, 2), "ls", (a, b, c)))
    return names


def _random_term(rng: random.Random):
    a, b, c, d = (_var(n) for n in "abcd")
    atoms = [a, b, c, d, T.mul(a, b), T.div(c, T.const(rng.randint(1, 4))), T.mod(d, T.const(rng.randint(1, 4))),
             T.maximum(a, d), T.minimum(b, c)]
    lhs = T.add(*[T.scale(rng.choice(atoms), rng.randint(-3, 3)) for _ in range(rng.randint(1, 3))],
                T.const(rng.randint(-5, 5)))
    rhs = rng.choice(atoms)
    return rng.choice([T.le, T.lt, T.eq, T.ne, T.ge])(lhs, rhs)


_TORCH = types.SimpleNamespace(sym_max=max, sym_min=min, sym_not=lambda x: not x)


def _agrees(rng, t, names, rounds=6) -> bool:
    text = python_text(t, names)
    if text is None:
        return True
    for _ in range(rounds):
        point = {n: rng.randint(-6, 6) for n in "abcd"}
        env = {**point, "ab": point["a"] + point["b"], "ls": [point["a"], point["b"], point["c"]], "torch": _TORCH}
        if eval(text, {}, env) != truth_at(t, point):  # noqa: S307 - our own text
            return False
    return True


def test_the_python_text_of_a_term_means_the_term_at_random_points():
    rng = random.Random(5)
    names, written = _names(), 0
    for _ in range(300):
        t = _random_term(rng)
        assert _agrees(rng, t, names), (t, python_text(t, names))
        written += python_text(t, names) is not None
    assert written >= 250


def test_a_planted_wrong_operator_is_caught(monkeypatch):
    monkeypatch.setitem(pytext._SIGN, T.le(_var("a"), T.ZERO).kind, "<")
    rng = random.Random(5)
    names = _names()
    assert not all(_agrees(rng, _random_term(rng), names) for _ in range(300))


def test_names_statement_locals_sums_and_families_are_used():
    names = _names()
    a, b, c = (_var(n) for n in "abc")
    assert python_text(T.le(T.add(a, b, c), _var("d")), names) == "ab + c <= d"
    fam = Names(families=[((0, 2, 2), "ls", (a, b, c))])
    for v in (a, b, c):
        fam.add(v, f"ls[{v.data}]", (1, 2, 5))
    fam.add(_var("d"), "values.size(0)", (0, 1, 6))
    assert python_text(T.le(T.add(a, b, c), _var("d")), fam) == "sum(ls) <= values.size(0)"
    diff = Names()
    diff.add(T.sub(b, a), "d", (0, 0, 1))
    assert python_text(T.gt(T.sub(b, a), T.ZERO), diff) == "d >= 1"
    assert python_text(T.le(T.div(a, b), c), names) is None  # a quotient by a symbol: no Python spelling
    assert python_text(T.le(_var("zz"), a), names) is None  # no name in the frame


def _check(key, kind="question", pytorch=True, statement="torch._check(x)"):
    return Check(key, "f.py", 3, 4, statement, key, kind, pytorch)


def _q(i, *checks, line=3):
    return Question(i, "guard", f"q{i}", f"q{i}", "f.py", line, "f", (), tuple(checks))


def test_the_cover_takes_a_loop_s_one_line_and_prefers_one_fact_for_many():
    loop = [_q(i, _check("loop")) for i in range(5)]
    assert [(s.check.key, s.covers) for s in cover.choose(loop)] == [("loop", (0, 1, 2, 3, 4))]
    qs = [_q(0, _check("q0"), _check("bound", "bound")), _q(1, _check("q1"), _check("bound", "bound")),
          _q(2, _check("q2"))]
    assert [s.check.key for s in cover.choose(qs)] == ["bound", "q2"]
    tie = [_q(0, _check("order", "order"), _check("q0"))]
    assert [s.check.key for s in cover.choose(tie)] == ["q0"]  # the question itself: the weakest
    pt = [_q(0, _check("absint", "sum", pytorch=False), _check("q0")),
          _q(1, _check("absint", "sum", pytorch=False), _check("q1"))]
    assert [s.check.key for s in cover.choose(pt)] == ["q0", "q1"]  # PyTorch alone can use them
    unwritten = [_q(0, _check("sympy", statement=None), _check("q0", "bound"))]
    assert [s.check.key for s in cover.choose(unwritten)] == ["q0"]
    assert cover.choose(qs, taken=frozenset({"bound", "q0", "q1", "q2"})) == []
    assert cover.lines([_check("a", statement="x\ny"), _check("b")]) == 3
