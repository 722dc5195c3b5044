"""What ``absint compare`` prints: a progress bar, then per-file and total tables over the
oracles that ran, the confusion matrices against the referee, and its findings (unsound
verdicts, asserts it gave up on, problems of files)."""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Iterator, Mapping, Sequence

from absint.compare.oracle import Oracle
from absint.compare.row import FileRow
from absint.compare.summary import COLUMNS, confirmed, counts, peers, ran_on, ratio, referee_of

UNSOUND_SHOWN = 50
GAVE_UP_SHOWN = 15
PROBLEMS_SHOWN = 20
LEGEND = ("T implied, F refuted, ? open, u gave up (timeout/unknown), x not reached (budget), "
          "n/a not translated or raised (ShapeEnv); CPU × absint: the reasoner's CPU over absint's")


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


def print_terminal(summary: dict[str, Any], rows: Sequence[FileRow], oracles: Sequence[Oracle],
                   show: int = 20, console=None) -> None:
    console = console or _console()
    referee = referee_of(oracles)
    console.print(_per_file_table(rows, oracles, referee, show))
    console.print(_totals_table(summary, rows, oracles))
    for oracle in oracles:
        if oracle in peers(oracles) and summary["totals"][oracle.name]["files"] != len(rows):
            console.print(_sample_table(summary, rows, oracles, oracle))
        for line in oracle.notes(summary["totals"][oracle.name]):
            console.print(line, markup=False, highlight=False)
    if referee is not None:
        for other in [oracles[0], *peers(oracles)]:
            key = f"confusion_{other.name}_x_{referee.name}"
            if key in summary:
                _print_confusion(console, summary[key], other.title, referee.title)
        _print_unsound(console, summary, referee)
        _print_gave_up(console, summary["gave_up"], referee)
    if summary["problems"]:
        console.print(f"[bold red]{summary['problem_count']} file problem(s):[/]")
        for p in summary["problems"][:PROBLEMS_SHOWN]:
            console.print(f"  {p['file']}: {p['problem']}", markup=False, highlight=False)


def _console():
    from rich.console import Console

    c = Console()
    if not c.is_terminal:
        c = Console(width=120)
    return c


def _fmt_s(s: float) -> str:
    return f"{s:.3f}" if s < 100 else f"{s:.1f}"


def _cells(tot: Mapping[str, Any], base: float | None) -> list[str]:
    """Letters per column, CPU seconds, and the CPU over absint's ``base`` (None for absint)."""
    cells = [str(tot.get(col, 0)) if tot.get(col, 0) else "·" for col, _ in COLUMNS]
    cells.append(_fmt_s(tot["seconds"]))
    r = ratio(tot["seconds"], base) if base else None
    cells.append("" if r is None else f"{r:g}×")
    return cells


def _table(title: str, legend: bool = False):
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


def _per_file_table(rows: Sequence[FileRow], oracles: Sequence[Oracle], referee: Oracle | None, show: int):
    """Every file, or the ``show`` with the largest precision gap to the referee."""
    from rich.markup import escape

    shown, title = rows, f"per file ({len(rows)})"
    if len(rows) > show:
        def gap(r: FileRow) -> int:
            return r.letters(referee.name).count("T") - r.letters("absint").count("T") if referee else 0

        shown = sorted(rows, key=lambda r: (-len(r.unsound), -gap(r), r.file))[:show]
        order = f"largest precision gap ({referee.title} T - absint T) first" if referee else "in name order"
        title = f"per file: {show} of {len(rows)}, {order}"
    table = _table(title)
    for r in shown:
        table.add_row(f"[bold]{escape(r.file)}[/]" + "".join(f" [red]{escape(p)}[/]" for p in r.problems[:1]))
        for i, o in enumerate(oracles):
            a = r.answers.get(o.name)
            if a is not None:
                tot = {**counts(a.letters), "seconds": a.seconds}
                table.add_row("  " + o.title, str(len(a.letters)), *_cells(tot, r.seconds("absint") if i else None))
    return table


def _totals_table(summary: dict[str, Any], rows: Sequence[FileRow], oracles: Sequence[Oracle]):
    table = _table(f"total: {len(rows)} file(s)", legend=True)
    for i, o in enumerate(oracles):
        tot = summary["totals"][o.name]
        name = o.title + (f" ({tot['files']} files)" if tot["files"] != len(rows) else "")
        base = sum(r.seconds("absint") for r in ran_on(rows, o.name)) if i else None
        table.add_row(name, str(tot["asserts"]), *_cells(tot, base))
    return table


def _sample_table(summary: dict[str, Any], rows: Sequence[FileRow], oracles: Sequence[Oracle], peer: Oracle):
    """Every oracle on only the files ``peer`` ran on."""
    table = _table(f"on the {summary['totals'][peer.name]['files']} file(s) {peer.title} ran on")
    base = sum(r.seconds("absint") for r in ran_on(rows, peer.name))
    for i, o in enumerate(oracles):
        tot = summary[f"{peer.name}_sample"][o.name]
        table.add_row(o.title, str(tot["asserts"]), *_cells(tot, base if i else None))
    return table


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


def _print_unsound(console, summary: dict[str, Any], referee: Oracle) -> None:
    if not summary["unsound"]:
        matrix = summary[f"confusion_absint_x_{referee.name}"]
        decided, given = confirmed(matrix)
        console.print(f"[green]unsound verdicts: none[/] ({decided} of absint's {given} T/F verdicts confirmed "
                      f"by {referee.title}, which decided them; {given - decided} it did not decide)")
        return
    console.print(f"[bold red]UNSOUND: {summary['unsound_count']} verdict(s) contradicted by {referee.title}[/]")
    for u in summary["unsound"][:UNSOUND_SHOWN]:
        _print_unsound_item(console, u, referee.title)
    if summary["unsound_count"] > UNSOUND_SHOWN:
        console.print(f"  ... {summary['unsound_count'] - UNSOUND_SHOWN} more in summary.json")


def _print_unsound_item(console, u: dict[str, Any], referee: str) -> None:
    def say(text: str) -> None:
        console.print(text, markup=False, highlight=False)

    say(f"  {u['file']}:{u.get('line', '?')} assert #{u['index']}: absint {u['absint']} ({u['layer']}), "
        f"{referee} {u['z3']} -> {u['kind']}")
    if u.get("assert"):
        say(f"    assert: {u['assert'][:500]}")
    if "model" in u:
        shown = u.get("model_of_assert") or u["model"]
        more = len(u["model"]) - len(shown)
        say(f"    {referee} model: " + ", ".join(f"{k}={v}" for k, v in list(shown.items())[:20])
            + (f"  (+{more} more symbols in summary.json)" if more > 0 else ""))
        if u.get("evaluator"):
            say(f"    check: {u['evaluator']}")
    if u.get("note"):
        say(f"    note: {u['note']}")


def _print_gave_up(console, gave_up: list[dict[str, Any]], referee: Oracle) -> None:
    if not gave_up:
        console.print(f"absint decided no assert that {referee.title} gave up on")
        return
    console.print(f"absint decided {len(gave_up)} assert(s) {referee.title} gave up on "
                  "(timeouts are not disagreements):")
    for item in gave_up[:GAVE_UP_SHOWN]:
        text = item.get("assert", "")
        text = text if len(text) <= 60 else text[:59] + "…"
        console.print(f"  {item['file']}:{item.get('line', '?')} #{item['index']}: absint {item['absint']} "
                      f"({item['layer']}), {referee.title} {item['z3']} ({item['why']}): {text}",
                      markup=False, highlight=False, overflow="ellipsis", no_wrap=True)
    if len(gave_up) > GAVE_UP_SHOWN:
        console.print(f"  ... {len(gave_up) - GAVE_UP_SHOWN} more in summary.json")
