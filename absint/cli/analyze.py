"""``absint analyze``: many files, in parallel, resumable, never losing a finished result.

For each file, every assert is decided against the asserts before it
(:func:`absint.batch.analyze.analyze_file`). Files run in a local process pool
(:class:`absint.batch.executors.LocalPool`) or on a Dask cluster
(:class:`absint.batch.executors.DaskExecutor`), largest first so that the last
files to finish are short ones. Each record is appended to the ``--jsonl``
file the moment its file finishes (:mod:`absint.batch.jsonl`); at the end the file is
rewritten sorted by file name, so its content does not depend on completion
order, worker count or executor.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import signal
import stat
import sys
import threading
import time
from collections import Counter
from typing import Any, Iterable

from rich.text import Text

from absint.batch.executors import (
    DaskExecutor,
    ExecutorUnavailable,
    LocalPool,
    Task,
    WorkerStartupError,
)
from absint.batch.jsonl import JsonlSink, ResultsBusy, read_records
from absint.batch.record import FileRecord, readable
from absint.cli.runner import PROBLEM, Outcome, add_paths, each_file
from absint.cli.budgets import add_budget_arguments
from absint.presets import option as preset_option
from absint.lang.terms import fresh_table
from absint.readers.files import MB, file_sha256, shown

SLOWEST = 5

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


# ------------------------------------------------------------------ inputs


def _task(path: str, presets: tuple[str, ...] = ()) -> Task:
    """The file as the parent sees it: its name and size from ``stat``, never its content.

    The name is the records' name: the path as given (two ``model.smt2`` in different
    folders are two records), :func:`readable` (an undecodable byte is written ``\\xff``).
    """
    name = readable(path)
    try:
        st = os.stat(path)
    except OSError:
        return Task(path, name, 0, None, presets=presets)  # the worker reports why it cannot be read
    return Task(path, name, st.st_size if stat.S_ISREG(st.st_mode) else 0, None, presets=presets)


def plan(files: Iterable[str], hash_all: bool = False, max_size: int = 0,
         presets: tuple[str, ...] = ()) -> list[Task]:
    """One task per distinct (name, content), largest first (then by name, for determinism).

    The parent does not read files (the workers do); it hashes a file, in chunks,
    only where the content decides something: for ``--resume`` (``hash_all``) and
    between files of the same name. A file it cannot hash is left to a worker.
    """
    tasks = [_task(path, presets) for path in files]
    names = Counter(t.name for t in tasks)
    tasks = [dataclasses.replace(t, sha256=file_sha256(t.path, max_size))
             if hash_all or names[t.name] > 1 else t for t in tasks]
    seen: set[tuple[str, str]] = set()
    distinct = []
    for t in tasks:
        if t.sha256 is None or (t.name, t.sha256) not in seen:
            if t.sha256 is not None:
                seen.add((t.name, t.sha256))
            distinct.append(t)
    distinct.sort(key=lambda t: (-t.size, t.name, t.path))
    return distinct


def split_resumed(tasks: list[Task], old: list[FileRecord]) -> tuple[dict, list[Task]]:
    """Old records to keep (by (file, sha256)) and the tasks still to run.

    A record for a file of this run whose content changed is dropped (stale);
    records of files not in this run are kept untouched. A file whose process
    died (``worker died ...``: perhaps the machine, not the file) is run once
    more; a record that already says it died twice is final.
    """
    current = {(t.name, t.sha256) for t in tasks if t.sha256 is not None}
    names = {t.name for t in tasks}
    kept: dict[tuple[str, str], FileRecord] = {}
    retry: set[tuple[str, str]] = set()
    for rec in old:
        key = rec.key
        if rec.file in names and key not in current:
            continue
        if key in current and rec.is_death and rec.attempts < 2:
            retry.add(key)
            continue
        kept[key] = rec
    todo = [dataclasses.replace(t, attempt=2) if (t.name, t.sha256) in retry else t
            for t in tasks if t.sha256 is None or (t.name, t.sha256) not in kept]
    return kept, todo


def read_file_records(path: str) -> list[FileRecord]:
    """The records of an earlier run; a line that is JSON but not a record is skipped, as a cut line is."""
    out = []
    for obj in read_records(path):
        try:
            out.append(FileRecord.from_json(obj))
        except ValueError:
            continue
    return out


# ------------------------------------------------------------------ progress


class _Live:
    """The progress bar on stderr (files, asserts/s, ETA by bytes); a no-op when disabled."""

    def __init__(self, enabled: bool, tasks: list[Task]):
        self.enabled = enabled
        self.files = 0
        self.asserts = 0
        self.start = time.monotonic()
        self._bar = None
        if enabled:
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

    def __enter__(self) -> "_Live":
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(self, *exc) -> None:
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


def summarize(records: list[FileRecord]) -> dict[str, Any]:
    verdicts = Counter()
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
    total: Counter = Counter()
    for r in records:
        total.update(dict(r.layers))
    return total


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


class Terminated(Exception):
    """SIGTERM (e.g. a batch system's time limit): stop like Ctrl-C, keeping every finished record."""


@contextlib.contextmanager
def _sigterm_stops_the_run():
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise Terminated

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _executor(args):
    if args.executor == "dask":
        if not args.scheduler:
            raise ExecutorUnavailable("--executor dask needs --scheduler tcp://HOST:PORT")
        return (DaskExecutor(args.scheduler, args.timeout, args.max_memory, args.max_file_size * MB),
                f"Dask at {args.scheduler}")
    return LocalPool(args.jobs, args.timeout, args.max_memory, args.max_file_size * MB), f"{args.jobs} job(s)"


def _usage_problem(args) -> str | None:
    if args.resume and not args.jsonl:
        return "--resume needs --jsonl OUT"
    if args.jobs < 1 or args.timeout < 0 or args.max_memory < 0 or args.max_file_size < 0:
        return "--jobs must be >= 1, --timeout, --max-memory and --max-file-size >= 0"
    return None


def execute(executor, todo: list[Task], sink: JsonlSink | None, live: _Live, new: list[FileRecord]) -> None:
    """Run ``todo``; each record goes to ``sink`` (flushed) and ``new`` the moment its file is finished."""
    if executor is None:
        return
    with contextlib.closing(executor.run(todo)) as results:
        for task, record in results:
            record = record.after_attempts(task.attempt).with_presets(task.presets).as_given(shown(record.file))
            if sink is not None:
                sink.write(record.to_json())
            new.append(record)
            live.done(task, record)


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


def report(args, records: list[FileRecord], new: int, wall: float, where: str) -> dict[str, Any]:
    """Per-file lines, the summary table, ``--stats``, and soundness bugs (loudly, on stderr)."""
    from rich.console import Console

    s = summarize(records)
    if args.json:
        print(json.dumps(json_report(s, records, wall, len(records) - new)))
    else:
        if not args.quiet:
            out = Console(file=sys.stdout, highlight=False, soft_wrap=True)
            for r in records:
                out.print(file_line(r), markup=False)
                if args.verbose:
                    for line in detail_lines(r):
                        out.print("  " + line, markup=False)
        _print_summary(Console(file=sys.stdout, highlight=False), s, wall, len(records) - new, where,
                       layer_totals(records) if args.stats else None)
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
    return s


def json_report(s: dict[str, Any], records: list[FileRecord], wall: float, resumed: int) -> dict[str, Any]:
    """``--json``: the summary table's figures, the verdicts per layer, and every record."""
    summary = {k: v for k, v in s.items() if k != "slowest"}
    summary.update(cpu=round(s["cpu"], 3), wall=round(wall, 3), resumed=resumed,
                   slowest=[{"file": r.file, "seconds": r.seconds} for r in s["slowest"]])
    return {"summary": summary, "layers": dict(layer_totals(records)), "files": [r.to_json() for r in records]}


class UsageError(Exception):
    """A problem found before any work: exit status 2 and one line on stderr."""


def _inputs(args) -> tuple[list[str], JsonlSink | None]:
    """The files to analyse and the results file, opened and locked for this run."""
    from absint.readers.files import smt2_files

    problem = _usage_problem(args)
    if problem is not None:
        raise UsageError(problem)
    try:
        preset_option.names(args)
    except preset_option.PresetError as e:
        raise UsageError(str(e)) from None
    files = smt2_files(args.paths)
    if not files:
        raise UsageError("no .smt2 files found")
    if not args.jsonl:
        return files, None
    try:
        return files, JsonlSink(args.jsonl)
    except ResultsBusy as e:
        raise UsageError(f"{e}; not started (wait for it, or write to another file)") from None
    except OSError as e:
        raise UsageError(f"cannot write --jsonl {args.jsonl}: {e.strerror or e}") from None


def run(args) -> int:
    if args.asserts:
        return _asserts(args)
    try:
        files, sink = _inputs(args)
    except UsageError as e:
        print(f"absint analyze: {e}", file=sys.stderr)
        return 2
    presets = preset_option.names(args)
    tasks = plan(files, hash_all=args.resume, max_size=args.max_file_size * MB, presets=presets)
    old = read_file_records(args.jsonl) if args.resume else []
    # a record made under other presets is not this run's result
    kept, todo = split_resumed(tasks, [r for r in old if r.presets == presets])
    try:
        executor, where = _executor(args) if todo else (None, "nothing to do")
    except ExecutorUnavailable as e:
        if sink is not None:
            sink.abandon()
        print(f"absint analyze: {e}", file=sys.stderr)
        return 2
    if sink is not None:
        sink.start([r.to_json() for r in kept.values()])
    return _run(args, sink, executor, where, tasks, kept, todo)


def _asserts(args) -> int:
    """``--asserts``: each file's asserts, one line (or JSON object) each."""
    from absint.explain import assert_rows
    from absint.readers.files import load_program

    def job(path: str, presets: tuple[str, ...]) -> Outcome:
        with fresh_table():
            loaded = load_program(path, label=path)
            if not loaded.ok:
                return Outcome(None, (), (" ".join(str(loaded.error).split()),), PROBLEM)
            rows = assert_rows(loaded.program, presets)
            return Outcome(tuple(r.to_json(path) for r in rows), tuple(r.line() for r in rows))

    return each_file(args, "analyze", job, budgeted=False)


def _run(args, sink: JsonlSink | None, executor, where: str, tasks: list[Task], kept: dict,
         todo: list[Task]) -> int:
    """Analyse ``todo``, keep every record in ``sink``, report; the exit status."""
    from rich.console import Console

    started = time.monotonic()
    new: list[FileRecord] = []
    live = _Live(not args.quiet and Console(file=sys.stderr).is_terminal, todo)
    try:
        with _sigterm_stops_the_run(), live:
            execute(executor, todo, sink, live, new)
    except WorkerStartupError as e:
        print(f"absint analyze: {e}; {len(todo) - len(new)} file(s) not analysed", file=sys.stderr)
        return 1
    except Terminated:
        print(f"absint analyze: terminated; {len(new)} new record(s) kept"
              + (f" in {args.jsonl} (--resume to finish)" if args.jsonl else ""), file=sys.stderr)
        return 128 + signal.SIGTERM
    finally:
        if sink is not None:
            sink.finish([r.to_json() for r in (*kept.values(), *new)])
    current = {(t.name, t.sha256) for t in tasks}
    records = sorted([r for k, r in kept.items() if k in current] + new, key=lambda r: r.key)
    s = report(args, records, len(new), time.monotonic() - started, where)
    bad = s["errors"] + s["timeouts"] + s["violations"]
    if any(r.preset_refused for r in records):
        return 2
    return 1 if bad or len(records) < len(tasks) else 0
