"""The Markdown of ``docs/precision.md``: how it was made, the totals, absint against the
referee (Z3) per model family, and a section per peer oracle (ShapeEnv) on its files."""

from __future__ import annotations

from typing import Any, Sequence

from absint.compare.oracle import Oracle
from absint.compare.row import FileRow
from absint.compare.summary import counts, group_line, peers, ran_on, ratio, referee_of

UNSOUND_LISTED = 50


def write_markdown(path: str, summary: dict[str, Any], rows: Sequence[FileRow], oracles: Sequence[Oracle],
                   command: str) -> None:
    referee = referee_of(oracles)
    parts = [*_header(summary, oracles, command), *_total_section(summary, oracles)]
    if referee is not None:
        parts += _referee_section(summary, rows, referee)
    for peer in peers(oracles):
        parts += _peer_section(summary, rows, oracles, peer, referee)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(parts))


def _table(head: list[str], lines: list[list[Any]]) -> str:
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|"]
    for line in lines:
        out.append("| " + " | ".join("" if v is None else str(v) for v in line) + " |")
    return "\n".join(out)


def _confusion(matrix: dict[str, dict[str, int]], a: str, b: str) -> str:
    cols = list(next(iter(matrix.values())).keys())
    return _table([f"{a} \\ {b}", *cols, "total"], [[x, *[row[c] for c in cols], sum(row.values())]
                                                   for x, row in matrix.items()])


def _pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:.1f}%"


def _s(s: float | None) -> str:
    return "" if s is None else f"{s:.2f}"


def _times(x: float | None) -> str:
    return "" if x is None else f"{x:g}"


def _header(summary: dict[str, Any], oracles: Sequence[Oracle], command: str) -> list[str]:
    st, v = summary["settings"], summary["versions"]
    reference = st["z3_source"] != "z3"
    software = "".join(f", {o.version_label} {v[o.version_label.lower()]}" for o in oracles[1:]
                       if o.version_label.lower() in v)
    return [
        "# Precision and speed: absint against " + " and ".join(o.full_title for o in oracles[1:]),
        "",
        "Regenerate this file with (from the repository root):",
        "",
        f"    {command}",
        "",
        f"Generated {summary['generated']} by absint {v.get('absint')}{software}, Python {v.get('python')}. "
        f"Z3: {st['z3_source']}"
        + ("" if reference else f" ({st['timeout_ms']} ms per query, {st['budget_s']:g} s per file)") + ".",
        "",
        "Each reasoner decides every assert against the asserts before it: `T` implied, `F` refuted, "
        "otherwise open. Z3 *gave up* on an assert when its query timed out or returned unknown (`u`) or "
        "the file's CPU budget was spent before it (`x`); those are not disagreements. *Unsound* counts "
        "absint verdicts contradicted by Z3 (a `T` where Z3 has a counterexample, an `F` where Z3 has a "
        "model): it must be 0. CPU seconds are process time of each reasoner's own work, parsing included"
        + ("; with a reference file, Z3's come from its SECONDS column." if reference else ".")
        + (" Z3's letters are the reference run's (1 s per query, 300 s per file); the soundness check "
           "still runs Z3 itself wherever absint claims `T` and the reference says `?` (for the "
           "counterexample) and wherever absint says `F` (the refutation query)." if reference else ""),
        "",
    ]


def _total_section(summary: dict[str, Any], oracles: Sequence[Oracle]) -> list[str]:
    head = ["reasoner", "files", "asserts", "T", "F", "open", "gave up", "not reached", "n/a", "CPU s", "× absint CPU"]
    lines = []
    for o in oracles:
        t = summary["totals"][o.name]
        lines.append([o.title, t["files"], t["asserts"], t["T"], t["F"], t["open"], t["gave up"], t["not reached"],
                      t["n/a"], _s(t["seconds"]), _times(summary["ratios"].get(f"{o.name}/absint CPU"))])
    return ["## Total", "", _table(head, lines), ""]


def _referee_section(summary: dict[str, Any], rows: Sequence[FileRow], referee: Oracle) -> list[str]:
    """Per model family and in total, absint against the referee; its confusion; unsound verdicts."""
    z, title = referee.name, referee.title
    head = ["model family", "files", "asserts", f"{title} T", "absint T", f"absint T / {title} T", f"of {title}'s T",
            f"{title} gave up", "absint decided there", "unsound", "absint CPU s", f"{title} CPU s",
            f"{title} / absint CPU"]

    def line(g: dict[str, Any]) -> list[Any]:
        return [g["group"], g["files"], g["asserts"], g[f"{z}_T"], g["absint_T"], _pct(g[f"absint_T_over_{z}_T"]),
                _pct(g[f"absint_T_of_{z}_T"]), g[f"{z}_gave_up"], g[f"absint_decided_where_{z}_gave_up"],
                g["unsound"], _s(g["absint_s"]), _s(g[f"{z}_s"]), _times(g[f"{z}_over_absint_time"])]

    total = group_line("**total**", rows, referee)
    parts = [
        "## Per model family",
        "",
        f"*absint T / {title} T*: absint's implied count over {title}'s; *of {title}'s T*: the share of "
        f"{title}'s `T` that absint also proves; *absint decided there*: absint `T`/`F` where {title} gave up.",
        "",
        _table(head, [line(g) for g in summary["by_family"]] + [line(total)]),
        "",
        f"## absint (rows) against {title} (columns), all asserts",
        "",
        _confusion(summary[f"confusion_absint_x_{z}"], "absint", title),
        "",
        f"Unsound verdicts: **{summary['unsound_count']}**.",
        "",
    ]
    for u in summary["unsound"][:UNSOUND_LISTED]:
        parts.append(f"- `{u['file']}` assert #{u['index']}: absint {u['absint']}, {title} {u['z3']} "
                     f"({u['kind']}{'' if 'model' in u else ', ' + u.get('note', '')})")
    return parts + ([""] if summary["unsound"] else [])


def _peer_section(summary: dict[str, Any], rows: Sequence[FileRow], oracles: Sequence[Oracle], peer: Oracle,
                  referee: Oracle | None) -> list[str]:
    """Every oracle on the files ``peer`` ran on: totals, confusions, one line per file."""
    sample = ran_on(rows, peer.name)
    note = peer.markdown_note(summary, len(rows))
    parts = [f"## {peer.title}, on {len(sample)} file(s)", "", *([note, ""] if note else []),
             _sample_table(summary[f"{peer.name}_sample"], oracles), ""]
    if referee is not None:
        parts += [f"{peer.title} (rows) against {referee.title} (columns):", "",
                  _confusion(summary[f"confusion_{peer.name}_x_{referee.name}"], peer.title, referee.title), "",
                  f"absint (rows) against {peer.title} (columns):", "",
                  _confusion(summary[f"confusion_absint_x_{peer.name}"], "absint", peer.title), ""]
    return parts + ["Per file:", "", _per_file(sample, peer, referee), ""]


def _sample_table(totals: dict[str, dict[str, Any]], oracles: Sequence[Oracle]) -> str:
    head = ["reasoner", "asserts", "T", "F", "open", "gave up", "n/a", "CPU s", "× absint CPU"]
    base = totals["absint"]["seconds"]
    lines = []
    for i, o in enumerate(oracles):
        t = totals[o.name]
        lines.append([o.title, t["asserts"], t["T"], t["F"], t["open"], t["gave up"] + t["not reached"], t["n/a"],
                      _s(t["seconds"]), _times(ratio(t["seconds"], base) if i else None)])
    return _table(head, lines)


def _per_file(sample: Sequence[FileRow], peer: Oracle, referee: Oracle | None) -> str:
    ref = referee.title if referee is not None else "Z3"
    head = ["file", "asserts", f"{ref} T", "absint T", f"{peer.title} T", f"{peer.title} n/a", "absint CPU s",
            f"{ref} CPU s", f"{peer.title} CPU s"]
    lines = []
    for r in sample:
        z = r.answers.get(referee.name) if referee is not None else None
        a, p = counts(r.letters("absint")), counts(r.letters(peer.name))
        lines.append([r.file, r.asserts, "" if z is None else counts(z.letters)["T"], a["T"], p["T"], p["n/a"],
                      _s(r.seconds("absint")), "" if z is None else _s(z.seconds), _s(r.seconds(peer.name))])
    return _table(head, lines)
