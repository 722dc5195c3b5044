"""The figures of a batch run: totals over its records, verdicts per layer, the ``--json`` object.

The command prints them (a table, or ``--json``); the figures themselves depend only on
the records, so a resumed run and a fresh one over the same files report the same.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from absint.batch.record import FileRecord

#: slowest files named in the summary
SLOWEST = 5


def summarize(records: list[FileRecord]) -> dict[str, Any]:
    """Files, asserts, T/F/? counts, errors, timeouts, files with example violations, CPU
    seconds and the :data:`SLOWEST` slowest records."""
    verdicts: Counter = Counter()
    for r in records:
        verdicts.update(r.verdicts)
    return {
        "files": len(records),
        "asserts": sum(r.asserts for r in records),
        "decided_over": sum(len(r.verdicts) for r in records),  # asserts of analysed files only
        "implied": verdicts["T"],
        "refuted": verdicts["F"],
        "open": verdicts["?"],
        "errors": sum(1 for r in records if r.error and not r.is_timeout),
        "timeouts": sum(1 for r in records if r.is_timeout),
        "violations": sum(1 for r in records if r.example_violations),
        "cpu": sum(r.seconds or 0.0 for r in records),
        "slowest": sorted(records, key=lambda r: -(r.seconds or 0.0))[:SLOWEST],
    }


def layer_totals(records: list[FileRecord]) -> Counter:
    """Verdicts per deciding layer, over every record."""
    total: Counter = Counter()
    for r in records:
        total.update(dict(r.layers))
    return total


def json_report(s: dict[str, Any], records: list[FileRecord], wall: float, resumed: int) -> dict[str, Any]:
    """``--json``: the summary table's figures, the verdicts per layer, and every record."""
    summary = {k: v for k, v in s.items() if k != "slowest"}
    summary.update(cpu=round(s["cpu"], 3), wall=round(wall, 3), resumed=resumed,
                   slowest=[{"file": r.file, "seconds": r.seconds} for r in s["slowest"]])
    return {"summary": summary, "layers": dict(layer_totals(records)), "files": [r.to_json() for r in records]}
