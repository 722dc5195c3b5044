"""Z3 as referee: absint's ``T``/``F`` verdicts checked against Z3's answers on the same file.

A ``T`` where Z3 finds a model of ``facts and not a_i`` (a counterexample), or an ``F``
where Z3 finds a model of ``facts and a_i`` (a witness), is *unsound*; the model is checked
once more by absint's own evaluator, so that a bug in either reader shows. Where Z3 gave up
(``u``: timeout or incompleteness; ``x``: the budget was spent; a refutation query without
an answer) nothing is claimed: absint's decision there is listed apart, never counted as a
disagreement.
"""

from __future__ import annotations

from typing import Any

from absint.compare.excerpt import assert_text
from absint.compare.oracle import Case
from absint.compare.z3_solver import Z3FileResult, as_value
from absint.lang.evaluator import truth_at
from absint.lang.program import Program
from absint.lang.terms import free_vars

#: a judgement of one verdict: ("counterexample" | "witness", Z3's model or None) is unsound,
#: ("gave up", why) is not checked; None is confirmed
Judgement = tuple[str, Any] | None


def check_verdicts(case: Case, z3: Z3FileResult, *, with_models: bool) -> tuple[list[dict], list[dict]]:
    """(unsound verdicts, verdicts Z3 could not check) among absint's letters in ``case``."""
    unsound, gave_up = [], []
    for i, letter in enumerate(case.absint.letters):
        if letter not in "TF":
            continue
        judged = _judge_true(z3, i) if letter == "T" else _judge_false(z3, i)
        if judged is None:
            continue
        kind, detail = judged
        item = _item(case, i, z3)
        if kind == "gave up":
            gave_up.append({**item, "why": detail})
        else:
            unsound.append(_unsound(case.loaded.program, item, kind, detail, z3, with_models))
    return unsound, gave_up


def _judge_true(z3: Z3FileResult, i: int) -> Judgement:
    base = z3.letters[i] if i < len(z3.letters) else "x"
    cx = z3.extra.get(i, {}).get("cx")
    if base == "?" and not (cx is not None and cx["result"] == "unsat"):
        return "counterexample", (cx or {}).get("model")
    if base in "ux":
        return "gave up", "timeout/unknown" if base == "u" else "not reached (budget)"
    return None


def _judge_false(z3: Z3FileResult, i: int) -> Judgement:
    base = z3.letters[i] if i < len(z3.letters) else "x"
    ref = z3.extra.get(i, {}).get("refute")
    if ref is not None and ref["result"] == "sat":
        return "witness", ref.get("model")
    if ref is not None and ref["result"] == "unsat":
        return None
    if ref is None and base == "x":
        return "gave up", "not reached (budget)"
    return "gave up", "refutation query: " + (ref or {}).get("result", "not asked")


def _item(case: Case, i: int, z3: Z3FileResult) -> dict[str, Any]:
    """Where the verdict stands and what each side said."""
    item = {"file": case.loaded.name, "index": i, "absint": case.absint.letters[i],
            "layer": case.absint.details["layers"][i], "z3": z3.letter(i)}
    program = case.loaded.program
    if program is not None:
        fact = program.facts[i]
        item["line"] = None if fact.position is None else fact.position.line
        item["assert"] = assert_text(fact.term, limit=300)
    return item


def _unsound(program: Program | None, item: dict, kind: str, model: dict | None, z3: Z3FileResult,
             with_models: bool) -> dict[str, Any]:
    """The contradicted verdict with Z3's model (restricted to the assert's symbols too),
    checked by absint's evaluator, or a note saying why there is no model."""
    i = item["index"]
    item["kind"] = kind
    if program is not None:
        item["assert"] = assert_text(program.facts[i].term, limit=4000)
    if model is None:
        item["note"] = ("Z3 said not implied (reference)" if z3.source == "reference" else
                        "Z3 found a model earlier; the re-query did not reproduce it") + \
            ("" if with_models else "; install z3 for the counterexample")
        return item
    item["model"] = model
    if program is not None:
        names = [v.data for v in free_vars(program.facts[i].term)]
        item["model_of_assert"] = {n: model[n] for n in names if n in model}
        item["evaluator"] = evaluator_says(program, i, model, kind)
    return item


def evaluator_says(program: Program, index: int, model: dict[str, Any], kind: str) -> str:
    """Does absint's evaluator agree that ``model`` is a counterexample (the facts before hold,
    the assert fails) or a witness (the facts before and the assert hold)?"""
    point = {k: as_value(v) for k, v in model.items()}
    memo: dict = {}
    for fact in program.facts[:index]:
        held = truth_at(fact.term, point, memo)
        if held is None:
            return "not evaluable there"
        if not held:
            return "evaluator disagrees: an earlier assert is false there"
    value = truth_at(program.facts[index].term, point, memo)
    if value is None:
        return "not evaluable there"
    want = kind == "witness"
    return "confirmed by absint's evaluator" if value is want else f"evaluator disagrees: the assert is {value}"
