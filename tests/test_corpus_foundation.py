"""Every corpus file parses, and every assert holds at its example point.

The programs were traced at their hints, so an assert that is false (or not
evaluable) there means the reader or a normal form is wrong.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from absint.lang.evaluator import NotEvaluable, evaluate
from absint.readers.smtlib import SmtLibError, read_file

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


@pytest.mark.corpus
def test_every_corpus_file_parses_and_holds_at_its_example_point():
    if not CORPUS.is_dir():
        pytest.skip(f"../shared/corpus is absent: {CORPUS} is not a directory")
    files = sorted(CORPUS.glob("*.smt2"))
    assert files, f"no .smt2 files in {CORPUS}"
    problems: list[str] = []
    asserts = 0
    for path in files:
        try:
            program = read_file(path)
        except SmtLibError as e:
            problems.append(str(e))
            continue
        point, memo = program.hints(), {}
        for fact in program.facts:
            asserts += 1
            try:
                holds = evaluate(fact.term, point, memo)
            except NotEvaluable as e:
                problems.append(f"{fact.position}: not evaluable: {e}")
                continue
            if holds is not True:
                problems.append(f"{fact.position}: false at the example point")
        if len(problems) > 20:
            break
    assert not problems, "\n".join(problems[:20])
    assert asserts > len(files)
