"""The precision benchmark's per-file time check (on made-up records: tests never time runs)."""

from __future__ import annotations

from benchmarks.precision import time_limits


def test_time_limits_lists_files_over_three_parses_plus_a_second_and_the_closest():
    records = [
        {"file": "a.smt2", "seconds": 1.5, "parse_seconds": 0.1, "error": None},   # limit 1.3: over
        {"file": "b.smt2", "seconds": 0.5, "parse_seconds": 0.2, "error": None},   # limit 1.6
        {"file": "c.smt2", "seconds": 9.0, "parse_seconds": None, "error": "truncated"},
    ]
    over, closest = time_limits(records)
    assert [name for name, _, _ in over] == ["a.smt2"]
    assert closest[0] == "a.smt2" and abs(closest[2] - 1.3) < 1e-9
    assert time_limits(records[1:]) == ([], ("b.smt2", 0.5, 3 * 0.2 + 1))
