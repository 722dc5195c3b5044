"""The whole development corpus through the analysis: every file parses and every assert
holds at its example point (the programs were traced at their hints, so one that is false or
not evaluable there means the reader or a normal form is wrong); soundness against the
example points and the Z3 reference; the precision floor the issues set (99.5% of Z3's
implied asserts); no verdict letter pinned in tests/data/corpus_verdicts.txt lost. Each file is
read once, in a worker, for all of these."""

from __future__ import annotations

import multiprocessing
import os
import time

import warnings

import pytest

from benchmarks import pin_verdicts
from benchmarks.precision import family, read_reference, tabulate

pytestmark = pytest.mark.corpus


def _analyze(path: str) -> dict:
    """The file's record, plus ``at_example``: the asserts false or not evaluable at its
    example point, and ``asserts_read``."""
    from absint.batch.analyze import record_of
    from absint.lang.terms import fresh_table
    from absint.readers.files import load_program

    with fresh_table():
        start = time.process_time()
        loaded = load_program(path)
        record = record_of(loaded, start).to_json()
        record["at_example"] = [] if loaded.program is None else _not_at_example(loaded.program)
        record["asserts_read"] = 0 if loaded.program is None else len(loaded.program.facts)
    return record


def _not_at_example(program) -> list[str]:
    from absint.lang.evaluator import NotEvaluable, evaluate

    point, memo, problems = program.hints(), {}, []
    for fact in program.facts:
        try:
            holds = evaluate(fact.term, point, memo)
        except NotEvaluable as e:
            problems.append(f"{fact.position}: not evaluable: {e}")
            continue
        if holds is not True:
            problems.append(f"{fact.position}: false at the example point")
    return problems


@pytest.fixture(scope="module")
def records(corpus) -> list[dict]:
    files = sorted((str(p) for p in corpus.glob("*.smt2")), key=lambda f: -os.path.getsize(f))
    with multiprocessing.get_context("fork").Pool(os.cpu_count() or 1, maxtasksperchild=100) as pool:
        return list(pool.imap_unordered(_analyze, files, chunksize=4))


def test_every_file_is_analysed_without_error(records, corpus):
    assert len(records) == len(list(corpus.glob("*.smt2")))
    assert [r["file"] for r in records if r["error"]] == []


def test_every_assert_holds_at_its_example_point(records):
    problems = [p for r in records for p in r["at_example"]]
    assert not problems, "\n".join(problems[:20])
    assert sum(r["asserts_read"] for r in records) > len(records)


def test_no_assert_is_refuted_and_no_verdict_contradicts_the_example_point(records):
    refuted = [(r["file"], i) for r in records for i, v in enumerate(r["verdicts"]) if v == "F"]
    violations = [(r["file"], r["example_violations"]) for r in records if r["example_violations"]]
    assert refuted == [] and violations == []


def test_no_true_where_z3_finds_the_assert_not_implied(records, z3_reference):
    reference = read_reference(z3_reference)
    wrong = [(r["file"], i) for r in records
             for i, (a, z) in enumerate(zip(r["verdicts"], reference[os.path.basename(r["file"])][0])) if a == "T" and z == "?"]
    assert wrong == []


def test_at_least_99_5_percent_of_z3s_implied_asserts_are_proved(records, z3_reference):
    rows, info = tabulate(records, read_reference(z3_reference))
    total = rows[-1][1]
    assert total["both_T"] / total["z3_T"] >= 0.995, f"recall {total['both_T'] / total['z3_T']:.4f}"
    assert {family(r["file"]) for r in records} == {name for name, _ in rows[:-1]}


def test_no_pinned_verdict_is_lost(records):
    """A pinned T or F that is now ``?`` or flipped fails, naming the file and the assert's index
    (from 0); a letter gained is a warning: the pin moves with ``python -m benchmarks.pin_verdicts
    --write``, in a commit that says why."""
    result = pin_verdicts.compare(pin_verdicts.read_pin(), pin_verdicts.current_verdicts(records))
    if result.gained or result.new_files:
        warnings.warn(f"verdicts gained against the pin (re-pin with python -m benchmarks.pin_verdicts "
                      f"--write):\n{pin_verdicts.report(result, limit=20)}", stacklevel=1)
    assert not result.failed, pin_verdicts.report(result)
