"""The latency benchmark runs end to end and measures what it says (timings themselves are not asserted)."""

from __future__ import annotations

from benchmarks import api_latency as A


def test_jagged_stream_queries_are_the_programs_guards_and_all_implied_ones_are_true():
    (stream,) = A.jagged_streams([6], "sympy", 1500)
    # 6 facts u_i >= 0, the sum, then three implied guards per split, less the first
    # split's 0 <= 0, which sympy folds to True (a constant is no query)
    assert len(stream.queries) == 6 + 1 + 3 * 6 - 1
    results = A.run_absint(stream)
    assert len(results) == len(stream.queries)
    implied = results[7:]
    assert all(true for _, _, _, true, _ in implied)
    assert all(cold >= 0 and warm >= 0 for cold, warm, _, _, _ in results)
    # start_i <= end_i is u_i >= 0 again, and 0 <= start_1 is u0 >= 0 once more: recorded
    # facts; the layer reported is still the reasoner's
    repeats = [layer for _, _, layer, _, repeat in results if repeat]
    assert len(repeats) == 6 + 1 and all(layer != "unknown" for layer in repeats)


def test_main_prints_the_table_and_the_targets_without_torch_or_corpus(tmp_path, capsys):
    assert A.main(["--no-shapeenv", "--corpus", str(tmp_path / "absent"), "--jagged", "4"]) == 0
    out = capsys.readouterr().out
    assert "corpus not found" in out
    assert "jagged_split(n=4)" in out
    assert "jagged_split: interval-congruence" in out
    assert "target (issue 7)" in out
