"""``python -m benchmarks.metamorphic``: per rewrite, files checked, identical, and each
difference; exit 1 on a difference (a planted rewrite registered for the test makes one)."""

from __future__ import annotations

import json

from absint.metamorphic import rewrites
from absint.metamorphic.sexpr import bottom_up
from benchmarks import generators as G
from benchmarks import metamorphic


def write_programs(folder) -> None:
    for kind, n, seed in [("jagged", 8, 0), ("conv", 4, 0)]:
        (folder / f"{kind}_{n}.smt2").write_text(G.build(kind, n, seed).text)


def test_every_rewrite_of_every_file_is_checked_and_identical(tmp_path, capsys):
    write_programs(tmp_path)
    assert metamorphic.main([str(tmp_path), "--jobs", "1", "--json"]) == 0
    table = json.loads(capsys.readouterr().out)["rewrites"]
    assert set(table) == set(rewrites.REWRITES)
    for name, row in table.items():
        assert (row["checked"], row["identical"], row["different"], row["differences"]) == (2, 2, 0, []), name
        assert row["error"] == row["timeout"] == row["skipped"] == []


def test_a_difference_is_listed_with_its_file_and_assert_and_fails_the_run(tmp_path, capsys, monkeypatch):
    def strict_inequalities(commands, max_tokens):
        memo = {}
        return [bottom_up(c, lambda x: ("<", *x[1:]) if x and x[0] == "<=" else x, memo) for c in commands]

    monkeypatch.setitem(rewrites.REWRITES, "planted",
                        rewrites.TextRewrite("planted", "every <= made < (changes the meaning)", strict_inequalities))
    write_programs(tmp_path)
    assert metamorphic.main([str(tmp_path), "--jobs", "1", "--rewrites", "planted,reorder"]) == 1
    out = capsys.readouterr().out
    assert "DIFFERENT planted: jagged_8.smt2 assert 9: T -> F" in out
    assert "DIFFERENT reorder" not in out


def test_a_rewrite_over_the_size_limit_is_reported_as_skipped(tmp_path, capsys):
    (tmp_path / "j.smt2").write_text(G.build("jagged", 30, 0).text)
    assert metamorphic.main([str(tmp_path), "--jobs", "1", "--rewrites", "inline", "--max-tokens", "500"]) == 0
    out = capsys.readouterr().out
    assert "skipped inline: j.smt2: inlined, the asserts are over 500 tokens" in out
