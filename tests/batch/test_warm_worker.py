"""A worker analyses a tiny program before its first file, then freezes what is left.

Each file is analysed in a process forked from the worker; started warm, it skips first-call
costs (about 3 ms of user and 2 ms of system CPU a small file). The warm-up must leave no
term behind: term ids order the atoms of canonical forms, so a term of the warm-up in the
worker's table would make a file's analysis depend on it. Each check runs in a new
interpreter (``gc.freeze`` and the term table are per process).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from benchmarks import generators as G

PROBE = textwrap.dedent("""
    import gc, json, sys
    from absint.batch import executors
    from absint.lang import terms as T
    executors.preload()
    before = T.table_size()
    if sys.argv[1] == "planted":  # a warm-up that parses outside a fresh term table
        from absint.readers.smtlib import parse_bytes
        executors.preload = lambda: parse_bytes(executors.WARM_UP, "warm-up.smt2")
    executors.warm_worker()
    print(json.dumps({"before": before, "after": T.table_size(), "frozen": gc.get_freeze_count()}))
""")


def _probe(variant: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, variant], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_warm_up_leaves_the_term_table_as_it_found_it_and_freezes_the_rest():
    seen = _probe("plain")
    assert seen["after"] == seen["before"] > 0
    assert seen["frozen"] > 0


def test_a_warm_up_that_leaves_terms_behind_is_caught():
    seen = _probe("planted")
    assert seen["after"] > seen["before"]


def test_a_warm_worker_gives_the_records_of_a_cold_process(tmp_path):
    """The same verdicts whether a file is analysed by ``absint analyze``'s warm worker or
    alone in a new interpreter (in a fresh term table, as the batch does)."""
    paths = []
    for family, n in (("jagged", 6), ("conv", 3), ("chain", 8)):
        p = tmp_path / f"{family}.smt2"
        p.write_text(G.build(family, n, 1).text)
        paths.append(p)
    done = subprocess.run([sys.executable, "-m", "absint", "analyze", *map(str, paths), "--jobs", "1", "--json",
                           "--quiet"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    warm = {r["file"]: r["verdicts"] for r in json.loads(done.stdout)["files"]}
    for p in paths:
        cold = subprocess.run([sys.executable, "-c", "import sys, json; from absint.batch.analyze import "
                               "analyze_file; print(json.dumps(analyze_file(sys.argv[1]).verdicts))", str(p)],
                              capture_output=True, text=True, timeout=120)
        assert cold.returncode == 0, cold.stderr
        assert warm[str(p)] == json.loads(cold.stdout)
        assert "T" in warm[str(p)]
