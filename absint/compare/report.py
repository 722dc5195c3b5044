"""What ``absint compare`` writes: terminal tables, ``summary.json``, ``asserts.csv``,
``cactus.png`` and the Markdown table of ``docs/precision.md``.

A *row* is one file's result (built by :func:`absint.cli.compare.compare_file`):
``file``, ``family``, ``asserts``, ``problems``, ``unsound``, ``gave_up``, and per
reasoner (``absint``, ``z3``, ``shapeenv``; absent where it did not run)
``letters`` (one per assert), ``per_assert`` and ``seconds`` (CPU).
"""

from __future__ import annotations

import contextlib
import csv
import datetime
import json
import platform
import sys
from collections import Counter
from typing import Any, Iterable, Iterator

REASONERS = ("absint", "z3", "shapeenv")
TITLES = {"absint": "absint", "z3": "Z3", "shapeenv": "ShapeEnv"}
CSV_TEXT = 200
UNSOUND_SHOWN = 50
GAVE_UP_SHOWN = 15
#: letter -> column; "gave up" is u (Z3 timeout/unknown), "not reached" is x (budget spent),
#: "n/a" is n + e (ShapeEnv could not take the assert)
COLUMNS = (("T", "T"), ("F", "F"), ("open", "?"), ("gave up", "u"), ("not reached", "x"), ("n/a", "ne"))


def family(name: str) -> str:
    """The model a corpus file belongs to: ``BERT_pytorch___3.smt2`` -> ``BERT_pytorch``."""
    base = name[:-5] if name.endswith(".smt2") else name
    return base.split("___")[0]


def assert_text(term, limit: int = CSV_TEXT) -> str:
    """The assert as SMT-LIB text, cut at ``limit`` characters (huge DAGs are not expanded)."""
    from absint.lang.printer import to_smtlib

    size: dict[int, int] = {}
    budget = 4 * limit
    stack = [term]
    while stack:  # tree size (with repetition), stopping early past the budget
        t = stack[-1]
        if t.id in size:
            stack.pop()
            continue
        todo = [a for a in t.args if a.id not in size]
        if todo:
            stack.extend(todo)
            continue
        stack.pop()
        size[t.id] = min(budget + 1, 1 + sum(size[a.id] for a in t.args))
    n = size[term.id]
    if n > budget:
        return f"<{term.kind} term of more than {budget} nodes>"
    text = to_smtlib(term)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def counts(letters: str) -> dict[str, int]:
    c = Counter(letters)
    return {col: sum(c[ch] for ch in chars) for col, chars in COLUMNS}


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 3) if b > 0 else None


# ---------------------------------------------------------------- summary


def _totals(rows: list[dict], who: str) -> dict[str, Any]:
    ran = [r for r in rows if who in r]
    letters = "".join(r[who]["letters"] for r in ran)
    out = {"files": len(ran), "asserts": len(letters), **counts(letters),
           "seconds": round(sum(r[who]["seconds"] for r in ran), 6)}
    if who == "z3":
        out["verify_seconds"] = round(sum(r[who].get("verify_seconds", 0.0) for r in ran), 6)
    if who == "shapeenv":
        out["translate_seconds"] = round(sum(r[who]["translate_seconds"] for r in ran), 6)
        out["positive_divisor_reading"] = sum(r[who]["positive_divisor_reading"] for r in ran)
        reasons: Counter = Counter()
        for r in ran:
            reasons.update(r[who]["reasons"])
        out["not_translated_reasons"] = dict(reasons.most_common())
    return out


def _pairs(rows: list[dict], a: str, b: str) -> Counter:
    """(letter of a, letter of b) over the asserts both answered."""
    c: Counter = Counter()
    for r in rows:
        if a in r and b in r and len(r[a]["letters"]) == len(r[b]["letters"]):
            c.update(zip(r[a]["letters"], r[b]["letters"]))
    return c


def confusion(rows: list[dict], a: str = "absint", b: str = "z3") -> dict[str, dict[str, int]]:
    pairs = _pairs(rows, a, b)
    la = sorted({x for x, _ in pairs} | set("TF?"), key="TF?uxne".index)
    lb = sorted({y for _, y in pairs} | set("TF?u" if b == "z3" else "TF?"), key="TF?uxne".index)
    return {x: {y: pairs[(x, y)] for y in lb} for x in la}


def group_table(rows: list[dict], against: list[str], key) -> list[dict[str, Any]]:
    """Per group (``key(row)``), the precision/speed figures of the Markdown table."""
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(key(r), []).append(r)
    out = []
    for name in sorted(groups, key=str.lower):
        out.append(_group_line(name, groups[name], against))
    return out


def _group_line(name: str, rows: list[dict], against: list[str]) -> dict[str, Any]:
    line: dict[str, Any] = {"group": name, "files": len(rows), "asserts": sum(r["asserts"] for r in rows)}
    a = _totals(rows, "absint")
    line["absint_T"], line["absint_F"], line["absint_s"] = a["T"], a["F"], a["seconds"]
    if "z3" in against:
        z = _totals(rows, "z3")
        pairs = _pairs(rows, "absint", "z3")
        line["z3_T"], line["z3_F"], line["z3_s"] = z["T"], z["F"], z["seconds"]
        line["z3_gave_up"] = z["gave up"] + z["not reached"]
        line["both_T"] = pairs[("T", "T")]
        line["absint_T_of_z3_T"] = _ratio(pairs[("T", "T")], z["T"])
        line["absint_T_over_z3_T"] = _ratio(a["T"], z["T"])
        line["absint_decided_where_z3_gave_up"] = sum(n for (x, y), n in pairs.items() if x in "TF" and y in "ux")
        line["unsound"] = sum(len(r["unsound"]) for r in rows)
        both = [r for r in rows if "z3" in r]
        line["z3_over_absint_time"] = _ratio(sum(r["z3"]["seconds"] for r in both),
                                             sum(r["absint"]["seconds"] for r in both))
    return line


def summarize(rows: list[dict], against: list[str], settings: dict[str, Any]) -> dict[str, Any]:
    who = ["absint", *[w for w in REASONERS[1:] if w in against]]
    totals = {w: _totals(rows, w) for w in who}
    summary: dict[str, Any] = {
        "settings": settings,
        "generated": datetime.datetime.now().isoformat(timespec="seconds"),
        "versions": _versions(against),
        "reasoners": who,
        "totals": totals,
        "ratios": {},
    }
    for w in who[1:]:
        both = [r for r in rows if w in r]
        summary["ratios"][f"{w}/absint CPU"] = _ratio(sum(r[w]["seconds"] for r in both),
                                                      sum(r["absint"]["seconds"] for r in both))
    if "z3" in who:
        summary["confusion_absint_x_z3"] = confusion(rows)
        summary["by_family"] = group_table(rows, against, lambda r: r["family"])
    if "shapeenv" in who:
        sample = [r for r in rows if "shapeenv" in r]
        summary["shapeenv_sample"] = {w: _totals(sample, w) for w in who}
        if "z3" in who:
            summary["confusion_shapeenv_x_z3"] = confusion(sample, "shapeenv", "z3")
            summary["confusion_absint_x_shapeenv"] = confusion(sample, "absint", "shapeenv")
    unsound = [u for r in rows for u in r["unsound"]]
    gave_up = [g for r in rows for g in r["gave_up"]]
    problems = [{"file": r["file"], "problem": p} for r in rows for p in r["problems"]]
    summary.update(unsound_count=len(unsound), unsound=unsound, gave_up_count=len(gave_up), gave_up=gave_up,
                   problem_count=len(problems), problems=problems)
    return summary


def _versions(against: Iterable[str]) -> dict[str, str]:
    from absint import __version__

    out = {"absint": __version__, "python": platform.python_version()}
    if "z3" in against:
        with contextlib.suppress(Exception):
            from absint.compare.z3_oracle import z3_version

            out["z3"] = z3_version()
    if "shapeenv" in against:
        with contextlib.suppress(Exception):
            from absint.compare.shapeenv_oracle import torch_version

            out["torch"] = torch_version()
    return out


# ---------------------------------------------------------------- files


def write_json(path: str, summary: dict[str, Any], rows: list[dict]) -> None:
    files = []
    for r in rows:
        f = {"file": r["file"], "family": r["family"], "asserts": r["asserts"], "problems": r["problems"],
             "unsound": len(r["unsound"]), "absint_decided_where_z3_gave_up": len(r["gave_up"])}
        for w in REASONERS:
            if w in r:
                f[w] = {"letters": r[w]["letters"], "seconds": round(r[w]["seconds"], 6), **counts(r[w]["letters"])}
                if w == "absint":
                    f[w]["layers"] = dict(Counter(x for x, l in zip(r[w]["layers"], r[w]["letters"]) if l in "TF"))
                if w == "z3":
                    f[w]["source"] = r[w]["source"]
                    f[w]["verify_seconds"] = round(r[w]["verify_seconds"], 6)
        files.append(f)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump({**summary, "files": files}, fh, indent=1, default=str)
        fh.write("\n")


class CsvSink:
    """``asserts.csv``: one line per assert, written as each file finishes."""

    def __init__(self, path: str, against: list[str]):
        self.path = path
        self.against = [w for w in REASONERS[1:] if w in against]

    def __enter__(self) -> "CsvSink":
        self.fh = open(self.path, "w", encoding="utf-8", newline="")
        self.w = csv.writer(self.fh)
        head = ["file", "index", "line", "assert", "absint", "layer"] + self.against
        head += ["absint_seconds"] + [f"{w}_seconds" for w in self.against]
        self.w.writerow(head)
        return self

    def __exit__(self, *exc) -> None:
        self.fh.close()

    def write(self, row: dict) -> None:
        texts = row.get("texts") or []
        for i in range(row["asserts"]):
            line, text = texts[i] if i < len(texts) else (None, "")
            out = [row["file"], i, "" if line is None else line, text]
            for w in ["absint", "layer", *self.against]:
                src = row.get("absint" if w == "layer" else w)
                key = "layers" if w == "layer" else "letters"
                out.append(src[key][i] if src is not None and i < len(src[key]) else "")
            for w in ["absint", *self.against]:
                src = row.get(w)
                out.append(f"{src['per_assert'][i]:.6f}" if src is not None and i < len(src["per_assert"]) else "")
            self.w.writerow(out)


def cactus(path: str, rows: list[dict], against: list[str]) -> None:
    """Decided asserts (T or F) against cumulative CPU seconds, one line per reasoner: each
    reasoner's per-assert times of the asserts it decided, sorted ascending, summed up."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5), dpi=120)
    total = sum(r["asserts"] for r in rows)
    styles = {"absint": ("tab:blue", "-"), "z3": ("tab:red", "--"), "shapeenv": ("tab:green", "-.")}
    for w in ["absint", *[x for x in REASONERS[1:] if x in against]]:
        times = sorted(t for r in rows if w in r
                       for t, l in zip(r[w]["per_assert"], r[w]["letters"]) if l in "TF")
        if not times:
            continue
        acc, xs = 0.0, []
        for t in times:
            acc += t
            xs.append(max(acc, 1e-6))
        ran = sum(1 for r in rows if w in r)
        color, ls = styles[w]
        label = f"{TITLES[w]}: {len(times)} decided, {acc:.2f} s on them" + (f" ({ran} files)" if ran != len(rows) else "")
        if any(r[w].get("source") == "reference" for r in rows if w in r):
            label += "\n(reference file: each file's time spread evenly over its asserts)"
        ax.step(xs, range(1, len(xs) + 1), where="post", color=color, linestyle=ls, label=label)
    ax.axhline(total, color="grey", linestyle=":", linewidth=1, label=f"all asserts ({total})")
    ax.set_xscale("log")
    ax.set_xlabel("cumulative CPU seconds (log scale)")
    ax.set_ylabel("asserts decided (T or F)")
    ax.set_title(f"Cactus plot: {len(rows)} file(s), {total} asserts")
    ax.grid(True, which="both", alpha=0.3)
    ax.set_ylim(bottom=0)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


# ---------------------------------------------------------------- terminal


@contextlib.contextmanager
def progress(n: int, quiet: bool = False) -> Iterator:
    """A progress bar on stderr (only when it is a terminal); yields ``advance(name)``."""
    if quiet or not sys.stderr.isatty():
        yield lambda name: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn("compare"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  TextColumn("{task.description}"), console=Console(stderr=True), transient=True) as p:
        task = p.add_task("", total=n)
        yield lambda name: p.update(task, advance=1, description=name)


def _fmt_s(s: float) -> str:
    return f"{s:.3f}" if s < 100 else f"{s:.1f}"


def _reasoner_cells(tot: dict[str, Any], base: float | None) -> list[str]:
    cells = [str(tot.get(col, 0)) if tot.get(col, 0) else "·" for col, _ in COLUMNS]
    cells.append(_fmt_s(tot["seconds"]))
    r = _ratio(tot["seconds"], base) if base else None
    cells.append("" if r is None else f"{r:g}×")
    return cells


LEGEND = ("T implied, F refuted, ? open, u gave up (timeout/unknown), x not reached (budget), "
          "n/a not translated or raised (ShapeEnv); CPU × absint: the reasoner's CPU over absint's")


def _console():
    from rich.console import Console

    c = Console()
    if not c.is_terminal:
        c = Console(width=120)
    return c


def _reasoner_table(title: str, legend: bool = False):
    from rich import box
    from rich.table import Table

    t = Table(title=title, box=box.SIMPLE_HEAVY, title_justify="left", caption=LEGEND if legend else None,
              caption_justify="left")
    t.add_column("reasoner", overflow="fold")
    t.add_column("asserts", justify="right")
    for h in ("T", "F", "?", "u", "x", "n/a"):
        t.add_column(h, justify="right")
    t.add_column("CPU s", justify="right")
    t.add_column("× absint", justify="right")
    return t


def print_terminal(summary: dict[str, Any], rows: list[dict], show: int = 20, console=None) -> None:
    console = console or _console()
    who = summary["reasoners"]

    shown = rows
    title = f"per file ({len(rows)})"
    if len(rows) > show:
        def gap(r):
            if "z3" not in r:
                return 0
            return r["z3"]["letters"].count("T") - r["absint"]["letters"].count("T")
        shown = sorted(rows, key=lambda r: (-len(r["unsound"]), -gap(r), r["file"]))[:show]
        title = f"per file: {show} of {len(rows)}, largest precision gap (Z3 T - absint T) first"
    table = _reasoner_table(title)
    for r in shown:
        base = r["absint"]["seconds"]
        from rich.markup import escape

        table.add_row(f"[bold]{escape(r['file'])}[/]" + "".join(f" [red]{escape(p)}[/]" for p in r["problems"][:1]))
        for w in who:
            if w not in r:
                continue
            tot = {**counts(r[w]["letters"]), "seconds": r[w]["seconds"]}
            table.add_row("  " + TITLES[w], str(len(r[w]["letters"])),
                          *_reasoner_cells(tot, base if w != "absint" else None))
    console.print(table)

    totals = _reasoner_table(f"total: {len(rows)} file(s)", legend=True)
    for w in who:
        tot = summary["totals"][w]
        name = TITLES[w] + (f" ({tot['files']} files)" if tot["files"] != len(rows) else "")
        ratio_base = None
        if w != "absint":
            ratio_base = sum(r["absint"]["seconds"] for r in rows if w in r)
        totals.add_row(name, str(tot["asserts"]), *_reasoner_cells(tot, ratio_base))
    console.print(totals)
    if "shapeenv" in who and summary["totals"]["shapeenv"]["files"] != len(rows):
        sample = _reasoner_table(f"on the {summary['totals']['shapeenv']['files']} file(s) ShapeEnv ran on")
        b = sum(r["absint"]["seconds"] for r in rows if "shapeenv" in r)
        for w in who:
            tot = summary["shapeenv_sample"][w]
            sample.add_row(TITLES[w], str(tot["asserts"]), *_reasoner_cells(tot, b if w != "absint" else None))
        console.print(sample)
    if "shapeenv" in who:
        reasons = summary["totals"]["shapeenv"].get("not_translated_reasons") or {}
        if reasons:
            console.print("ShapeEnv could not take: " + ", ".join(f"{k} ({v})" for k, v in reasons.items()),
                          markup=False, highlight=False)

    if "confusion_absint_x_z3" in summary:
        _print_confusion(console, summary["confusion_absint_x_z3"], "absint", "Z3")
    if "confusion_shapeenv_x_z3" in summary:
        _print_confusion(console, summary["confusion_shapeenv_x_z3"], "ShapeEnv", "Z3")

    if "z3" in who:
        if summary["unsound"]:
            console.print(f"[bold red]UNSOUND: {summary['unsound_count']} verdict(s) contradicted by Z3[/]")
            for u in summary["unsound"][:UNSOUND_SHOWN]:
                _print_unsound(console, u)
            if summary["unsound_count"] > UNSOUND_SHOWN:
                console.print(f"  ... {summary['unsound_count'] - UNSOUND_SHOWN} more in summary.json")
        else:
            checked = sum(n for x, col in summary["confusion_absint_x_z3"].items() if x in "TF" for n in col.values())
            console.print(f"[green]unsound verdicts: none[/] ({checked} absint T/F verdicts checked against Z3)")
        g = summary["gave_up"]
        if g:
            console.print(f"absint decided {len(g)} assert(s) Z3 gave up on (timeouts are not disagreements):")
            for item in g[:GAVE_UP_SHOWN]:
                text = item.get("assert", "")
                text = text if len(text) <= 60 else text[:59] + "…"
                console.print(f"  {item['file']}:{item.get('line', '?')} #{item['index']}: absint {item['absint']} "
                              f"({item['layer']}), Z3 {item['z3']} ({item['why']}): {text}",
                              markup=False, highlight=False, overflow="ellipsis", no_wrap=True)
            if len(g) > GAVE_UP_SHOWN:
                console.print(f"  ... {len(g) - GAVE_UP_SHOWN} more in summary.json")
        else:
            console.print("absint decided no assert that Z3 gave up on")
    if summary["problems"]:
        console.print(f"[bold red]{summary['problem_count']} file problem(s):[/]")
        for p in summary["problems"][:20]:
            console.print(f"  {p['file']}: {p['problem']}", markup=False, highlight=False)


def _print_confusion(console, matrix: dict[str, dict[str, int]], a: str, b: str) -> None:
    from rich import box
    from rich.table import Table

    cols = list(next(iter(matrix.values())).keys())
    t = Table(title=f"{a} (rows) x {b} (columns)", box=box.SIMPLE, title_justify="left")
    t.add_column(f"{a} \\ {b}")
    for c in cols:
        t.add_column(c, justify="right")
    t.add_column("total", justify="right")
    for x, row in matrix.items():
        t.add_row(x, *[str(row[c]) for c in cols], str(sum(row.values())))
    console.print(t)


def _print_unsound(console, u: dict[str, Any]) -> None:
    where = f"{u['file']}:{u.get('line', '?')} assert #{u['index']}"
    console.print(f"  {where}: absint {u['absint']} ({u['layer']}), Z3 {u['z3']} -> {u['kind']}",
                  markup=False, highlight=False)
    if u.get("assert"):
        console.print(f"    assert: {u['assert'][:500]}", markup=False, highlight=False)
    if "model" in u:
        shown = u.get("model_of_assert") or u["model"]
        console.print("    Z3 model: " + ", ".join(f"{k}={v}" for k, v in list(shown.items())[:20])
                      + (f"  (+{len(u['model']) - len(shown)} more symbols in summary.json)"
                         if len(u["model"]) > len(shown) else ""), markup=False, highlight=False)
        if u.get("evaluator"):
            console.print(f"    check: {u['evaluator']}", markup=False, highlight=False)
    if u.get("note"):
        console.print(f"    note: {u['note']}", markup=False, highlight=False)


# ---------------------------------------------------------------- markdown


def _md_table(head: list[str], lines: list[list[Any]]) -> str:
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|"]
    for l in lines:
        out.append("| " + " | ".join("" if v is None else str(v) for v in l) + " |")
    return "\n".join(out)


def _pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:.1f}%"


def _md_s(s: float | None) -> str:
    return "" if s is None else f"{s:.2f}"


def write_markdown(path: str, summary: dict[str, Any], rows: list[dict], command: str) -> None:
    who = summary["reasoners"]
    st = summary["settings"]
    v = summary["versions"]
    parts = [
        "# Precision and speed: absint against Z3" + (" and PyTorch's ShapeEnv" if "shapeenv" in who else ""),
        "",
        "Regenerate this file with (from the repository root):",
        "",
        f"    {command}",
        "",
        f"Generated {summary['generated']} by absint {v.get('absint')}"
        + (f", Z3 {v['z3']}" if "z3" in v else "") + (f", torch {v['torch']}" if "torch" in v else "")
        + f", Python {v.get('python')}. Z3: {st['z3_source']}"
        + ("" if st["z3_source"] != "z3" else f" ({st['timeout_ms']} ms per query, {st['budget_s']:g} s per file)")
        + ".",
        "",
        "Each reasoner decides every assert against the asserts before it: `T` implied, `F` refuted, "
        "otherwise open. Z3 *gave up* on an assert when its query timed out or returned unknown (`u`) or "
        "the file's CPU budget was spent before it (`x`); those are not disagreements. *Unsound* counts "
        "absint verdicts contradicted by Z3 (a `T` where Z3 has a counterexample, an `F` where Z3 has a "
        "model): it must be 0. CPU seconds are process time of each reasoner's own work, parsing included"
        + ("; with a reference file, Z3's come from its SECONDS column." if st["z3_source"] != "z3" else ".")
        + (" Z3's letters are the reference run's (1 s per query, 300 s per file); the soundness check "
           "still runs Z3 itself wherever absint claims `T` and the reference says `?` (for the "
           "counterexample) and wherever absint says `F` (the refutation query)."
           if st["z3_source"] != "z3" else ""),
        "",
        "## Total",
        "",
    ]
    head = ["reasoner", "files", "asserts", "T", "F", "open", "gave up", "not reached", "n/a", "CPU s", "× absint CPU"]
    lines = []
    for w in who:
        t = summary["totals"][w]
        ratio = summary["ratios"].get(f"{w}/absint CPU") if w != "absint" else None
        lines.append([TITLES[w], t["files"], t["asserts"], t["T"], t["F"], t["open"], t["gave up"],
                      t["not reached"], t["n/a"], _md_s(t["seconds"]), "" if ratio is None else f"{ratio:g}"])
    parts += [_md_table(head, lines), ""]
    if "z3" in who:
        fam = summary["by_family"]
        total = _group_line("**total**", rows, [w for w in who if w != "absint"])
        head = ["model family", "files", "asserts", "Z3 T", "absint T", "absint T / Z3 T", "of Z3's T",
                "Z3 gave up", "absint decided there", "unsound", "absint CPU s", "Z3 CPU s", "Z3 / absint CPU"]

        def fl(g):
            return [g["group"], g["files"], g["asserts"], g["z3_T"], g["absint_T"], _pct(g["absint_T_over_z3_T"]),
                    _pct(g["absint_T_of_z3_T"]), g["z3_gave_up"], g["absint_decided_where_z3_gave_up"],
                    g["unsound"], _md_s(g["absint_s"]), _md_s(g["z3_s"]),
                    "" if g["z3_over_absint_time"] is None else f"{g['z3_over_absint_time']:g}"]

        parts += [
            "## Per model family",
            "",
            "*absint T / Z3 T*: absint's implied count over Z3's; *of Z3's T*: the share of Z3's `T` that "
            "absint also proves; *absint decided there*: absint `T`/`F` where Z3 gave up.",
            "",
            _md_table(head, [fl(g) for g in fam] + [fl(total)]),
            "",
            "## absint (rows) against Z3 (columns), all asserts",
            "",
        ]
        m = summary["confusion_absint_x_z3"]
        cols = list(next(iter(m.values())).keys())
        parts += [_md_table(["absint \\ Z3", *cols, "total"],
                            [[x, *[row[c] for c in cols], sum(row.values())] for x, row in m.items()]), ""]
        parts += [f"Unsound verdicts: **{summary['unsound_count']}**.", ""]
        for u in summary["unsound"][:UNSOUND_SHOWN]:
            parts.append(f"- `{u['file']}` assert #{u['index']}: absint {u['absint']}, Z3 {u['z3']} "
                         f"({u['kind']}{'' if 'model' in u else ', ' + u.get('note', '')})")
        if summary["unsound"]:
            parts.append("")
    if "shapeenv" in who:
        sample = [r for r in rows if "shapeenv" in r]
        se_tot = summary["shapeenv_sample"]
        st_se = summary["totals"]["shapeenv"]
        reasons = st_se.get("not_translated_reasons") or {}
        parts += [
            f"## ShapeEnv, on {len(sample)} file(s)",
            "",
            "ShapeEnv (`torch.fx.experimental.symbolic_shapes`) is driven as the compiler drives it, with "
            "the knowledge absint has: DYNAMIC symbols, no 0/1 specialisation, no sign assumption; each "
            "assert is asked with `_maybe_evaluate_static`, then recorded (`evaluate_expr`, or a deferred "
            "runtime assert when it mentions unbacked symbols). *n/a*: asserts it could not take (not "
            "translated, see `absint/shapeenv_oracle.py`, or it raised)"
            + (": " + ", ".join(f"{k} ({n})" for k, n in reasons.items()) if reasons else "")
            + ". The files are spread evenly over the size ranking of the files above"
            + (f" (`--shapeenv-sample {st['shapeenv_files']}`)" if st["shapeenv_files"] != len(rows) else "")
            + "; every column below is on the same files. ShapeEnv's CPU includes rebuilding the "
            f"expressions in sympy ({st_se['translate_seconds']:.2f} s of {st_se['seconds']:.2f} s). "
            f"{st_se['positive_divisor_reading']} asserts use `div`/`mod` by a symbol, read as "
            "`FloorDiv`/`PythonMod` (equal to SMT-LIB's Euclidean ones when the divisor is positive, "
            "as it is at the example point).",
            "",
        ]
        head = ["reasoner", "asserts", "T", "F", "open", "gave up", "n/a", "CPU s", "× absint CPU"]
        base = se_tot["absint"]["seconds"]
        lines = []
        for w in who:
            t = se_tot[w]
            r = _ratio(t["seconds"], base) if w != "absint" else None
            lines.append([TITLES[w], t["asserts"], t["T"], t["F"], t["open"], t["gave up"] + t["not reached"],
                          t["n/a"], _md_s(t["seconds"]), "" if r is None else f"{r:g}"])
        parts += [_md_table(head, lines), ""]
        if "confusion_shapeenv_x_z3" in summary:
            m = summary["confusion_shapeenv_x_z3"]
            cols = list(next(iter(m.values())).keys())
            parts += ["ShapeEnv (rows) against Z3 (columns):", "",
                      _md_table(["ShapeEnv \\ Z3", *cols, "total"],
                                [[x, *[row[c] for c in cols], sum(row.values())] for x, row in m.items()]), ""]
        m = summary["confusion_absint_x_shapeenv"] if "confusion_absint_x_shapeenv" in summary else None
        if m:
            cols = list(next(iter(m.values())).keys())
            parts += ["absint (rows) against ShapeEnv (columns):", "",
                      _md_table(["absint \\ ShapeEnv", *cols, "total"],
                                [[x, *[row[c] for c in cols], sum(row.values())] for x, row in m.items()]), ""]
        per_file = []
        for r in sample:
            a, s = counts(r["absint"]["letters"]), counts(r["shapeenv"]["letters"])
            z = counts(r["z3"]["letters"]) if "z3" in r else None
            per_file.append([r["file"], r["asserts"], "" if z is None else z["T"], a["T"], s["T"], s["n/a"],
                             _md_s(r["absint"]["seconds"]), "" if z is None else _md_s(r["z3"]["seconds"]),
                             _md_s(r["shapeenv"]["seconds"])])
        parts += ["Per file:", "", _md_table(["file", "asserts", "Z3 T", "absint T", "ShapeEnv T", "ShapeEnv n/a",
                                              "absint CPU s", "Z3 CPU s", "ShapeEnv CPU s"], per_file), ""]
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(parts))
