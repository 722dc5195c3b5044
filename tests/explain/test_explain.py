"""``absint analyze --asserts`` and ``absint explain FILE:LINE``: every listed verdict is
analyze's; premises decide the assert on their own and none can go; every point shown is
checked here with the evaluator."""

from __future__ import annotations

import json

import pytest

from absint import explain as X
from absint.cli import main
from absint.lang.evaluator import truth_at
from absint.readers.smtlib import parse
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Truth

PROGRAM = """(declare-const x Int)
(set-info :example-x 8)
(declare-const y Int)
(set-info :example-y 9)
(declare-const z Int)
(set-info :example-z 3)
(assert (>= x 2))
(assert (>= z 1))
(assert (<= x y))
(assert (>= y 1))
(assert (>= (+ y z) 3))
(assert (<= z x))
(assert (= (mod y 3) 0))
"""
# line 11, (>= (+ y z) 3): implied by x >= 2, x <= y and z >= 1 (lines 7, 9, 8)


def test_asserts_lists_every_assert_with_analyze_s_verdict(write_program, capsys):
    path = write_program("p.smt2", PROGRAM)
    assert main(["analyze", path, "--asserts", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["verdict"] for r in rows] == list("???TT??")
    assert rows[4] == {"file": path, "index": 4, "position": f"{path}:11:1", "text": "0 <= y + z - 3",
                       "verdict": "T", "layer": rows[4]["layer"]}
    assert main(["analyze", path, "--asserts"]) == 0
    assert f"{path}:11:1: T" in capsys.readouterr().out


def test_a_true_verdict_is_explained_by_premises_that_decide_it_and_none_can_go(write_program, capsys):
    path = write_program("p.smt2", PROGRAM)
    assert main(["explain", f"{path}:11", "--json"]) == 0
    e = json.loads(capsys.readouterr().out)
    assert e["verdict"] == "T" and e["minimal"] is True
    program = parse(PROGRAM, path)
    target = program.facts[e["index"]]
    premises = [program.facts[p["index"]] for p in e["premises"]]
    assert all(p.index < target.index for p in premises)
    assert _decides(premises, target)
    assert not any(_decides([q for q in premises if q is not p], target) for p in premises)
    assert {p["position"] for p in e["premises"]} == {f"{path}:7:1", f"{path}:8:1", f"{path}:9:1"}


def _decides(premises, target) -> bool:
    r = Reasoner()
    for p in premises:
        r.assume(p.term)
    return r.decide(target.term).truth is Truth.TRUE


def test_an_open_verdict_comes_with_checked_points_where_it_fails_and_holds(write_program, capsys):
    path = write_program("p.smt2", PROGRAM)
    assert main(["explain", f"{path}:13", "--json"]) == 0
    e = json.loads(capsys.readouterr().out)
    program = parse(PROGRAM, path)
    earlier, target = program.facts[:e["index"]], program.facts[e["index"]]
    assert e["verdict"] == "?"
    for key, holds in (("failing_point", False), ("passing_point", True)):
        point = e[key]
        assert all(truth_at(f.term, point) is True for f in earlier)
        assert truth_at(target.term, point) is holds


def test_a_refuted_assert_names_what_refutes_it(write_program, capsys):
    path = write_program("p.smt2", PROGRAM + "(assert (< y 0))\n")
    assert main(["explain", f"{path}:14"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{path}:14:1: F") and f"{path}:10:1: 0 <= y - 1" in out
    assert "fails at: x=" in out


def test_explain_usage_and_missing_line(write_program, capsys):
    path = write_program("p.smt2", PROGRAM)
    assert main(["explain", path]) == 2
    assert main(["explain", f"{path}:2"]) == 1
    assert "no assert on this line" in capsys.readouterr().err


def test_planted_error_premises_that_do_not_decide_are_caught(write_program, capsys, monkeypatch):
    """A deletion search that trusts every trial (all premises dropped) is caught: the
    test re-decides the assert from the premises shown."""
    monkeypatch.setattr(X, "_verdict_with", lambda definitions, facts, target: Truth.TRUE)
    with pytest.raises(AssertionError):
        test_a_true_verdict_is_explained_by_premises_that_decide_it_and_none_can_go(write_program, capsys)
