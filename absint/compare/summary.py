"""The numbers of a comparison (what ``summary.json`` holds), over whichever oracles ran.

absint is the subject: every ratio is another oracle's over absint's. The *referee* (Z3)
adds the per-family table and the confusion of absint against it; every other oracle (a
*peer*, such as ShapeEnv) is also summed over the files it ran on (``NAME_sample``).
"""

from __future__ import annotations

import contextlib
import datetime
import platform
from collections import Counter
from typing import Any, Sequence

from absint.compare.oracle import Oracle
from absint.compare.row import FileRow

#: letter -> column; "gave up" is u (Z3 timeout/unknown), "not reached" is x (budget spent),
#: "n/a" is n + e (ShapeEnv could not take the assert)
COLUMNS = (("T", "T"), ("F", "F"), ("open", "?"), ("gave up", "u"), ("not reached", "x"), ("n/a", "ne"))
LETTER_ORDER = "TF?uxne"


def counts(letters: str) -> dict[str, int]:
    c = Counter(letters)
    return {col: sum(c[ch] for ch in chars) for col, chars in COLUMNS}


def ratio(a: float, b: float) -> float | None:
    return round(a / b, 3) if b > 0 else None


def referee_of(oracles: Sequence[Oracle]) -> Oracle | None:
    return next((o for o in oracles if o.referee), None)


def peers(oracles: Sequence[Oracle]) -> list[Oracle]:
    """The oracles other than absint (the first) and the referee."""
    return [o for o in oracles[1:] if not o.referee]


def ran_on(rows: Sequence[FileRow], name: str) -> list[FileRow]:
    return [r for r in rows if name in r.answers]


def cpu_ratio(rows: Sequence[FileRow], name: str) -> float | None:
    """Oracle ``name``'s CPU over absint's, on the files it answered."""
    both = ran_on(rows, name)
    return ratio(sum(r.seconds(name) for r in both), sum(r.seconds("absint") for r in both))


def totals(rows: Sequence[FileRow], oracle: Oracle) -> dict[str, Any]:
    ran = ran_on(rows, oracle.name)
    return {"files": len(ran), **_counted(ran, oracle.name), **oracle.totals([r.answers[oracle.name] for r in ran])}


def _counted(rows: Sequence[FileRow], name: str) -> dict[str, Any]:
    """Asserts, letters per column and CPU seconds of oracle ``name`` over ``rows``."""
    letters = "".join(r.letters(name) for r in rows)
    return {"asserts": len(letters), **counts(letters), "seconds": round(sum(r.seconds(name) for r in rows), 6)}


def _pairs(rows: Sequence[FileRow], a: str, b: str) -> Counter:
    """(letter of a, letter of b) over the asserts both answered."""
    c: Counter = Counter()
    for r in rows:
        if a in r.answers and b in r.answers and len(r.letters(a)) == len(r.letters(b)):
            c.update(zip(r.letters(a), r.letters(b)))
    return c


def confirmed(matrix: dict[str, dict[str, int]]) -> tuple[int, int]:
    """Of absint's T/F verdicts in a confusion matrix (absint rows, referee columns): how many
    the referee decided (T or F: confirmed, where nothing is unsound), and how many in all."""
    given = sum(n for x, col in matrix.items() if x in "TF" for n in col.values())
    decided = sum(n for x, col in matrix.items() if x in "TF" for c, n in col.items() if c in ("T", "F"))
    return decided, given


def confusion(rows: Sequence[FileRow], a: str, b: Oracle) -> dict[str, dict[str, int]]:
    """How often ``a`` said x where ``b`` said y (rows x, columns y)."""
    pairs = _pairs(rows, a, b.name)
    la = sorted({x for x, _ in pairs} | set("TF?"), key=LETTER_ORDER.index)
    lb = sorted({y for _, y in pairs} | set(b.confusion_columns), key=LETTER_ORDER.index)
    return {x: {y: pairs[(x, y)] for y in lb} for x in la}


def group_table(rows: Sequence[FileRow], referee: Oracle) -> list[dict[str, Any]]:
    """Per model family, the precision and speed figures of the Markdown table."""
    groups: dict[str, list[FileRow]] = {}
    for r in rows:
        groups.setdefault(r.family, []).append(r)
    return [group_line(name, groups[name], referee) for name in sorted(groups, key=str.lower)]


def group_line(name: str, rows: Sequence[FileRow], referee: Oracle) -> dict[str, Any]:
    """absint against the referee ``z`` on ``rows``: counts, shares, CPU."""
    z = referee.name
    a, t, pairs = _counted(rows, "absint"), _counted(rows, z), _pairs(rows, "absint", z)
    return {
        "group": name, "files": len(rows), "asserts": sum(r.asserts for r in rows),
        "absint_T": a["T"], "absint_F": a["F"], "absint_s": a["seconds"],
        f"{z}_T": t["T"], f"{z}_F": t["F"], f"{z}_s": t["seconds"], f"{z}_gave_up": t["gave up"] + t["not reached"],
        "both_T": pairs[("T", "T")],
        f"absint_T_of_{z}_T": ratio(pairs[("T", "T")], t["T"]),
        f"absint_T_over_{z}_T": ratio(a["T"], t["T"]),
        f"absint_decided_where_{z}_gave_up": sum(n for (x, y), n in pairs.items() if x in "TF" and y in "ux"),
        "unsound": sum(len(r.unsound) for r in rows),
        f"{z}_over_absint_time": cpu_ratio(rows, z),
    }


def summarize(rows: Sequence[FileRow], oracles: Sequence[Oracle], settings: dict[str, Any]) -> dict[str, Any]:
    """``summary.json`` without its per-file list (``oracles``: absint first)."""
    referee = referee_of(oracles)
    summary: dict[str, Any] = {
        "settings": settings,
        "generated": datetime.datetime.now().isoformat(timespec="seconds"),
        "versions": versions(oracles),
        "reasoners": [o.name for o in oracles],
        "totals": {o.name: totals(rows, o) for o in oracles},
        "ratios": {f"{o.name}/absint CPU": cpu_ratio(rows, o.name) for o in oracles[1:]},
    }
    if referee is not None:
        summary[f"confusion_absint_x_{referee.name}"] = confusion(rows, "absint", referee)
        summary["by_family"] = group_table(rows, referee)
    for peer in peers(oracles):
        sample = ran_on(rows, peer.name)
        summary[f"{peer.name}_sample"] = {o.name: totals(sample, o) for o in oracles}
        if referee is not None:
            summary[f"confusion_{peer.name}_x_{referee.name}"] = confusion(sample, peer.name, referee)
            summary[f"confusion_absint_x_{peer.name}"] = confusion(sample, "absint", peer)
    return {**summary, **findings(rows)}


def findings(rows: Sequence[FileRow]) -> dict[str, Any]:
    """What makes the command exit 1: unsound verdicts and problems; and where Z3 gave up."""
    unsound = [u for r in rows for u in r.unsound]
    gave_up = [g for r in rows for g in r.gave_up]
    problems = [{"file": r.file, "problem": p} for r in rows for p in r.problems]
    return {"unsound_count": len(unsound), "unsound": unsound, "gave_up_count": len(gave_up), "gave_up": gave_up,
            "problem_count": len(problems), "problems": problems}


def versions(oracles: Sequence[Oracle]) -> dict[str, str]:
    """absint's, Python's, then each oracle's software, keyed by its label in lower case."""
    out = {"absint": oracles[0].version(), "python": platform.python_version()}
    for o in oracles[1:]:
        with contextlib.suppress(Exception):
            out[o.version_label.lower()] = o.version()
    return out
