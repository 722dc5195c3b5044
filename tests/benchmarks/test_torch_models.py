"""benchmarks.torch_models: one real family traced off and under primary in fresh processes,
the row's figures read back; families whose package is absent are skipped with the reason."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch", reason="needs torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

from benchmarks import real_models, torch_models  # noqa: E402


def test_the_prefix_split_traces_off_and_under_primary_with_the_same_result(tmp_path, capsys):
    out = tmp_path / "table.md"
    code = torch_models.main(["--families", "prefix_split", "--sizes", "6", "--modes", "off,primary,shadow",
                              "--markdown", str(out), "--json"])
    rows = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert code == 0
    off, primary, shadow = rows
    assert [r["mode"] for r in rows] == ["off", "primary", "shadow"] and all(r["ok"] for r in rows)
    assert off["accepts"] == primary["accepts"] == shadow["accepts"] == [True, False]  # as the family says
    assert primary["asked"] > 0 and primary["answered"] > 0 and primary["asserts"] <= off["asserts"]
    assert primary["shown_open"] <= primary["final_unknown"] and shadow["disagreements"] == 0
    assert 0 < off["torch_static"] < off["cpu"] and 0 < primary["ceiling"] < 1
    assert primary["ms_per_question"] > 0 and "| prefix_split | 6 |" in out.read_text()


def test_a_family_without_its_package_is_skipped_with_the_reason(monkeypatch, capsys):
    family = real_models.Family((2,), "n", ("no_such_package_for_absint",), real_models.prefix_split)
    monkeypatch.setitem(real_models.FAMILIES, "absent", family)
    monkeypatch.setitem(torch_models.FAMILIES, "absent", family)
    assert torch_models.main(["--families", "absent"]) == 0
    assert "absent: skipped: no_such_package_for_absint is not installed" in capsys.readouterr().out


def test_an_unknown_family_is_refused():
    with pytest.raises(SystemExit):
        torch_models.main(["--families", "nonesuch"])
