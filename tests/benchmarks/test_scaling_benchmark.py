"""benchmarks.scaling: every family builds, and the chained totals run end to end with every
implied guard proved (the benchmark exits 1 when one is not)."""

from __future__ import annotations

import json

from benchmarks import scaling


def test_every_family_builds_its_program():
    for family in scaling.FAMILIES:
        gen = scaling.build(family, 200)
        assert "T" in gen.claims, family


def test_the_chained_totals_prove_every_guard_end_to_end(capsys):
    status = scaling.main(["--families", "jagged-chain,jagged-links", "--sizes", "40", "--z3-up-to", "0", "--json"])
    rows = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert status == 0
    assert [(r["family"], r["proved"], r["implied"]) for r in rows] == [("jagged-chain", 120, 120),
                                                                       ("jagged-links", 120, 120)]
