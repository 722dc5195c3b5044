"""``absint analyze``: many files, in parallel, resumable, never losing a finished result.

The run itself (planning, resume, executors, the ``--jsonl`` file, the summary's figures) is
:func:`absint.batch.run.run_batch`; this module parses the options, shows the progress bar
and prints the records and the summary. ``--asserts`` lists one file's asserts through
:func:`absint.explain.assert_rows`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from typing import Any, Sequence

from rich.text import Text

from absint.batch.budgets import add_budget_arguments
from absint.batch.record import FileRecord
from absint.batch.run import BatchResult, Options, Stopped, Task, UsageError, run_batch
from absint.cli.runner import PROBLEM, FileOutcome, add_paths, each_file
from absint.presets import option as preset_option

EPILOG = """\
output:
  stderr  a progress bar (files done, asserts/s, ETA) when stderr is a terminal
          and --quiet is not given; failures are shown above it as they happen.
  stdout  one line per file, sorted by file name, once the run has ended (so the
          output does not depend on completion order; not with --quiet), then a
          summary table (files, asserts, implied/refuted/open, errors, timeouts,
          CPU and wall time, slowest files); with --stats, verdicts per layer;
          with --json instead one JSON object: "summary" (those figures),
          "layers" (verdicts per layer) and "files" (the --jsonl records).
  --jsonl one JSON object per file, appended as each file finishes, rewritten
          sorted by file name at the end (keeping the file's mode); a file
          name that is not UTF-8 is written with its bad bytes as \\xff.
limits: only regular files are read, by the workers, and only up to
  --max-file-size ("cannot read: too large"); a FIFO, device or socket named
  *.smt2 is never opened for reading ("cannot read: not a regular file (a
  FIFO)"). Each file is analysed in its own process, forked from a long-lived
  worker: past --timeout it is killed ("timeout: exceeded S s"), past
  --max-memory it fails ("memory limit exceeded (N MB)"), and if it or its
  worker dies the record says how ("worker died (signal SIGSEGV)"); the run
  goes on and a dead worker is replaced. Results do not depend on which
  worker ran which file, nor in which order.
resume: with --resume, files whose name and SHA-256 are already in OUT are
  skipped, except a file whose process died ("worker died (signal SIGKILL)":
  perhaps the machine, not the file), which is run once more; if it dies again,
  its record says "attempts": 2 and is final. A run killed at any moment loses
  only the files in flight. Two runs cannot share OUT: the second is refused.
  --resume keeps only records made under the same presets.
presets: with --preset, the preset's facts are assumed ahead of each file's
  asserts (built in the file's own process, from the program it reads); a file
  where one is false at the example point gets that fact as its error ("preset
  ge2 refused: ...", "preset_refused": true in its record) and the run exits
  with 2. Every record of such a run says "presets": [...].
exit status: 0 if every file was analysed without error and no verdict is
  contradicted by a file's example point (a soundness bug, reported loudly);
  1 otherwise; 2 on a usage error (also: OUT cannot be written, or another
  run holds it), before any file is analysed, or on a refused preset. A file whose example point
  breaks one of its own asserts ("hints inconsistent") is a warning, not a
  failure: its verdicts are checked at the point only up to that assert.
"""


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_paths(parser, EPILOG)
    parser.add_argument("--jsonl", metavar="OUT", help="write one JSON record per file to OUT")
    parser.add_argument("--resume", action="store_true",
                        help="keep the records already in OUT (same file name and SHA-256) and analyse only the rest")
    parser.add_argument("--jobs", "-j", type=int, default=_cores(), metavar="N",
                        help="worker processes of the local executor (default: all cores, here %(default)s)")
    add_budget_arguments(parser)
    parser.add_argument("--executor", choices=("local", "dask"), default="local",
                        help="local process pool (default), or an existing Dask cluster (needs --scheduler "
                             "and the 'dask' extra; file contents are sent to the workers, which need absint "
                             "installed but not the files)")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler, e.g. tcp://HOST:8786")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no per-file lines")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="under each file's line: reading and deciding time, the verdicts each layer "
                             "gave, the asserts an internal error left undecided")
    parser.add_argument("--stats", action="store_true", help="also print how many verdicts each layer gave")
    parser.add_argument("--json", action="store_true",
                        help="stdout: one JSON object (summary, verdicts per layer, one record per file as "
                             "in --jsonl) instead of the lines and the table")
    parser.add_argument("--asserts", action="store_true",
                        help="list every assert of each file: FILE:LINE:COLUMN: verdict, deciding layer, the "
                             "assert in infix (with --json: one object per assert and line); in this process, "
                             "without the batch options; 'absint explain FILE:LINE' says why")
    preset_option.add_argument(parser)


# ------------------------------------------------------------------ progress


class _Live:
    """The progress bar on stderr (files, asserts/s, ETA by bytes); a no-op when disabled."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.files = 0
        self.asserts = 0
        self.start = time.monotonic()
        self._bar = None

    def started(self, tasks: Sequence[Task]) -> None:
        """Build and start the bar over ``tasks`` (the files still to run)."""
        self.start = time.monotonic()
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self._bar = Progress(
                TextColumn("analyze"), BarColumn(),
                TextColumn("{task.fields[files]}/{task.fields[total_files]} files"),
                TextColumn("{task.fields[rate]} asserts/s"),
                TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                TextColumn("{task.fields[last]}", style="dim"),
                console=Console(file=sys.stderr), transient=False,
            )
            self._id = self._bar.add_task("analyze", total=sum(max(t.size, 1) for t in tasks),
                                          files=0, total_files=len(tasks), rate=0, last="")
            self._bar.start()

    def stopped(self) -> None:
        if self._bar is not None:
            self._bar.stop()

    def done(self, task: Task, record: FileRecord) -> None:
        self.files += 1
        self.asserts += record.asserts
        if self._bar is None:
            return
        rate = self.asserts / max(time.monotonic() - self.start, 1e-9)
        self._bar.update(self._id, advance=max(task.size, 1), files=self.files, rate=f"{rate:,.0f}",
                         last=task.name)
        if record.error or record.example_violations or record.warning:
            self._bar.console.print(Text(file_line(record), style="bold red"))


# ------------------------------------------------------------------ report


def file_line(record: FileRecord) -> str:
    name = record.file
    if record.error:
        return f"{name}: ERROR {record.error}"
    v = record.verdicts
    line = (f"{name}: {record.asserts} asserts, T {v.count('T')} F {v.count('F')} ? {v.count('?')}, "
            f"{record.seconds:.3f} s")
    if record.contradiction is not None:
        line += f", contradictory after assert {record.contradiction}"
    if record.example_violations:
        line += f", SOUNDNESS BUG at asserts {list(record.example_violations)}"
    if record.warning:
        line += f", WARNING {record.warning}"
    return line


def _print_summary(console, s: dict[str, Any], wall: float, resumed: int, where: str, stats: Counter | None):
    from rich.table import Table

    table = Table(title="absint analyze", title_justify="left", show_header=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    table.add_column()
    table.add_row("files", f"{s['files']}", f"{resumed} from an earlier run" if resumed else "")
    unread = s["asserts"] - s["decided_over"]
    table.add_row("asserts", f"{s['asserts']}", f"{unread} in files not analysed: not in the shares" if unread else "")
    for key, letter in (("implied", "T"), ("refuted", "F"), ("open", "?")):
        share = f"{100 * s[key] / s['decided_over']:.1f} %" if s["decided_over"] else ""
        table.add_row(f"{key} ({letter})", f"{s[key]}", share)
    table.add_row("errors", f"{s['errors']}", "", style="red" if s["errors"] else None)
    table.add_row("timeouts", f"{s['timeouts']}", "", style="red" if s["timeouts"] else None)
    if s["violations"]:
        table.add_row("SOUNDNESS BUGS", f"{s['violations']}", "files with example violations", style="bold red")
    table.add_row("CPU time", f"{s['cpu']:.2f} s", "")
    table.add_row("wall time", f"{wall:.2f} s", where)
    for i, r in enumerate(s["slowest"]):
        table.add_row("slowest" if i == 0 else "", f"{r.seconds or 0.0:.2f} s", Text(r.file))
    console.print(table)
    if stats is not None:
        st = Table(title="verdicts per layer", title_justify="left")
        st.add_column("layer")
        st.add_column("verdicts", justify="right")
        for layer, n in sorted(stats.items(), key=lambda kv: (-kv[1], kv[0])):
            st.add_row(Text(layer), str(n))
        console.print(st)


# ------------------------------------------------------------------ the command


def run(args) -> int:
    if args.asserts:
        return _asserts(args)
    options = Options(tuple(args.paths), args.jsonl, args.resume, args.jobs, args.timeout, args.max_memory,
                      args.max_file_size, args.executor, args.scheduler, args.preset)
    from rich.console import Console

    try:
        result = run_batch(options, _Live(not args.quiet and Console(file=sys.stderr).is_terminal))
    except (UsageError, Stopped) as e:
        print(f"absint analyze: {e}", file=sys.stderr)
        return e.status if isinstance(e, Stopped) else 2
    report(args, result)
    return result.exit_status


def detail_lines(record: FileRecord) -> list[str]:
    """``--verbose``: where a file's time went and who decided what (the record's own fields)."""
    if record.error or record.parse_seconds is None:
        return []
    decide = max(0.0, (record.seconds or 0.0) - record.parse_seconds)
    lines = [f"read {record.parse_seconds:.3f} s, decided in {decide:.3f} s"]
    if record.layers:
        lines.append("decided by " + ", ".join(f"{layer} {n}" for layer, n in record.layers))
    lines += [f"internal error: {message}" for _, message in record.assert_errors]
    return lines


def report(args, result: BatchResult) -> None:
    """Per-file lines, the summary table, ``--stats``, and soundness bugs (loudly, on stderr)."""
    from rich.console import Console

    s, records, wall = result.summary, result.records, result.wall
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        if not args.quiet:
            out = Console(file=sys.stdout, highlight=False, soft_wrap=True)
            for r in records:
                out.print(file_line(r), markup=False)
                if args.verbose:
                    for line in detail_lines(r):
                        out.print("  " + line, markup=False)
        _print_summary(Console(file=sys.stdout, highlight=False), s, wall, result.resumed, result.where,
                       result.layers() if args.stats else None)
    err = Console(file=sys.stderr, highlight=False, soft_wrap=True)  # messages unwrapped: grep-able
    for r in records:
        if r.preset_refused:
            err.print(Text(f"{r.file}: {r.error}"), style="red")
        if r.example_violations:
            err.print(Text(f"SOUNDNESS BUG: {r.file}: verdicts contradicted by the example point "
                           f"at asserts {list(r.example_violations)}", style="bold red"))
        if r.warning:
            err.print(Text(f"WARNING: {r.file}: {r.warning} (verdicts checked up to that assert)",
                           style="yellow"))


def _asserts(args) -> int:
    """``--asserts``: each file's asserts, one line (or JSON object) each."""
    from absint.explain import NotRead, rows_of_file

    def job(path: str, presets: tuple[str, ...]) -> FileOutcome:
        try:
            rows = rows_of_file(path, presets)
        except NotRead as e:
            return FileOutcome(None, (), (str(e),), PROBLEM)
        return FileOutcome(tuple(r.to_json(path) for r in rows), tuple(r.line() for r in rows))

    return each_file(args, "analyze", job, budgeted=False)
