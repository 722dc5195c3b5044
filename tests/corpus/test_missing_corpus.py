"""``absint explain --missing`` on open asserts of the development corpus: every suggested
fact holds at the file's example point and, with the asserts before, implies the assert by
Z3 (none refuted); most open asserts get one."""

from __future__ import annotations

import pytest

from benchmarks.missing_corpus import check_file

pytestmark = pytest.mark.corpus


def test_missing_facts_on_open_corpus_asserts_hold_at_the_example_and_decide_by_z3(corpus):
    pytest.importorskip("z3", reason="the check needs z3-solver")
    files = sorted(corpus.glob("*.smt2"))[::150][:10]
    total: dict = {}
    for path in files:
        for k, v in check_file(str(path), 3, 5.0).items():
            total[k] = total.get(k, 0) + v
    assert total["asserts"] >= 25
    assert total.get("false at example", 0) == 0 and total.get("refuted", 0) == 0, total
    assert total["implied"] + total.get("unknown", 0) == total["suggestions"]
    assert total["with suggestion"] >= 0.8 * total["asserts"], total
