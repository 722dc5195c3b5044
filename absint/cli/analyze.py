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
import hashlib
import os
import signal
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
    Record,
    Task,
    WorkerStartupError,
)
from absint.batch.jsonl import JsonlSink, read_records, record_key, write_sorted
from absint.presets import option as preset_option

DEFAULT_TIMEOUT = 300.0
DEFAULT_MAX_MEMORY = 4096
SLOWEST = 5

EPILOG = """\
output:
  stderr  a progress bar (files done, asserts/s, ETA) when stderr is a terminal
          and --quiet is not given; failures are shown above it as they happen.
  stdout  one line per file, sorted by file name, once the run has ended (so the
          output does not depend on completion order; not with --quiet), then a
          summary table (files, asserts, implied/refuted/open, errors, timeouts,
          CPU and wall time, slowest files); with --stats, verdicts per layer.
  --jsonl one JSON object per file, appended as each file finishes, rewritten
          sorted by file name at the end.
limits: each file is analysed in its own process, forked from a long-lived
  worker: past --timeout it is killed ("timeout: exceeded S s"), past
  --max-memory it fails ("memory limit exceeded (N MB)"), and if it or its
  worker dies the record says how ("worker died (signal SIGSEGV)"); the run
  goes on and a dead worker is replaced. Results do not depend on which
  worker ran which file, nor in which order.
resume: with --resume, files whose name and SHA-256 are already in OUT are
  skipped; a run killed at any moment loses only the files in flight.
presets: with --preset, the preset's facts are assumed ahead of each file's
  asserts; a file where one is false at the example point gets that fact as its
  error ("preset ge2 refused: ...") and the run exits with 2. --resume keeps only
  records made under the same presets.
exit status: 0 if every file was analysed without error and no verdict is
  contradicted by a file's example point (a soundness bug, reported loudly);
  1 otherwise; 2 on a usage error or a refused preset.
"""


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    parser.add_argument("paths", nargs="+", metavar="PATH", help=".smt2 files or directories (searched for *.smt2)")
    parser.add_argument("--jsonl", metavar="OUT", help="write one JSON record per file to OUT")
    parser.add_argument("--resume", action="store_true",
                        help="keep the records already in OUT (same file name and SHA-256) and analyse only the rest")
    parser.add_argument("--jobs", "-j", type=int, default=_cores(), metavar="N",
                        help="worker processes of the local executor (default: all cores, here %(default)s)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S",
                        help="wall-clock limit per file in seconds, 0 for none (default %(default)g)")
    parser.add_argument("--max-memory", type=int, default=DEFAULT_MAX_MEMORY, metavar="MB",
                        help="address-space limit of the process analysing a file, 0 for none "
                             "(default %(default)s)")
    parser.add_argument("--executor", choices=("local", "dask"), default="local",
                        help="local process pool (default), or an existing Dask cluster (needs --scheduler "
                             "and the 'dask' extra; file contents are sent to the workers, which need absint "
                             "installed but not the files)")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler, e.g. tcp://HOST:8786")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no per-file lines")
    parser.add_argument("--stats", action="store_true", help="also print how many verdicts each layer gave")
    preset_option.add_argument(parser)


# ------------------------------------------------------------------ inputs


def _task(path: str, presets: tuple[str, ...] = ()) -> Task:
    name = os.path.basename(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return Task(path, name, 0, None, presets)  # the worker reports why it cannot be read
    return Task(path, name, len(data), hashlib.sha256(data).hexdigest(), presets)


def plan(files: Iterable[str], presets: tuple[str, ...] = ()) -> list[Task]:
    """One task per distinct (name, content), largest first (then by name, for determinism)."""
    seen: set[tuple[str, str | None]] = set()
    tasks = []
    for path in files:
        t = _task(path, presets)
        key = (t.name, t.sha256)
        if t.sha256 is None or key not in seen:
            seen.add(key)
            tasks.append(t)
    tasks.sort(key=lambda t: (-t.size, t.name, t.path))
    return tasks


def split_resumed(tasks: list[Task], old: list[Record]) -> tuple[dict, list[Task]]:
    """Old records to keep (by (file, sha256)) and the tasks still to run.

    A record for a file of this run whose content changed is dropped (stale);
    records of files not in this run are kept untouched.
    """
    current = {(t.name, t.sha256) for t in tasks if t.sha256 is not None}
    names = {t.name for t in tasks}
    kept: dict[tuple[str, str], Record] = {}
    for rec in old:
        key = record_key(rec)
        if rec["file"] in names and key not in current:
            continue
        kept[key] = rec
    todo = [t for t in tasks if t.sha256 is None or (t.name, t.sha256) not in kept]
    return kept, todo


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

    def done(self, task: Task, record: Record) -> None:
        self.files += 1
        self.asserts += record.get("asserts") or 0
        if self._bar is None:
            return
        rate = self.asserts / max(time.monotonic() - self.start, 1e-9)
        self._bar.update(self._id, advance=max(task.size, 1), files=self.files, rate=f"{rate:,.0f}",
                         last=task.name)
        if record.get("error") or record.get("example_violations"):
            self._bar.console.print(Text(file_line(record), style="bold red"))


# ------------------------------------------------------------------ report


def is_timeout(record: Record) -> bool:
    return str(record.get("error") or "").startswith("timeout:")


def file_line(record: Record) -> str:
    name = record["file"]
    if record.get("error"):
        return f"{name}: ERROR {record['error']}"
    v = record.get("verdicts", "")
    line = (f"{name}: {record.get('asserts', 0)} asserts, T {v.count('T')} F {v.count('F')} ? {v.count('?')}, "
            f"{record.get('seconds', 0.0):.3f} s")
    if record.get("contradiction") is not None:
        line += f", contradictory after assert {record['contradiction']}"
    if record.get("example_violations"):
        line += f", SOUNDNESS BUG at asserts {record['example_violations']}"
    return line


def summarize(records: list[Record]) -> dict[str, Any]:
    verdicts = Counter()
    for r in records:
        verdicts.update(r.get("verdicts") or "")
    return {
        "files": len(records),
        "asserts": sum(r.get("asserts") or 0 for r in records),
        "implied": verdicts["T"],
        "refuted": verdicts["F"],
        "open": verdicts["?"],
        "errors": sum(1 for r in records if r.get("error") and not is_timeout(r)),
        "timeouts": sum(1 for r in records if is_timeout(r)),
        "violations": sum(1 for r in records if r.get("example_violations")),
        "cpu": sum(r.get("seconds") or 0.0 for r in records),
        "slowest": sorted(records, key=lambda r: -(r.get("seconds") or 0.0))[:SLOWEST],
    }


def layer_totals(records: list[Record]) -> Counter:
    total: Counter = Counter()
    for r in records:
        total.update(r.get("layers") or {})
    return total


def _print_summary(console, s: dict[str, Any], wall: float, resumed: int, where: str, stats: Counter | None):
    from rich.table import Table

    table = Table(title="absint analyze", title_justify="left", show_header=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    table.add_column()
    table.add_row("files", f"{s['files']}", f"{resumed} from an earlier run" if resumed else "")
    table.add_row("asserts", f"{s['asserts']}", "")
    for key, letter in (("implied", "T"), ("refuted", "F"), ("open", "?")):
        share = f"{100 * s[key] / s['asserts']:.1f} %" if s["asserts"] else ""
        table.add_row(f"{key} ({letter})", f"{s[key]}", share)
    table.add_row("errors", f"{s['errors']}", "", style="red" if s["errors"] else None)
    table.add_row("timeouts", f"{s['timeouts']}", "", style="red" if s["timeouts"] else None)
    if s["violations"]:
        table.add_row("SOUNDNESS BUGS", f"{s['violations']}", "files with example violations", style="bold red")
    table.add_row("CPU time", f"{s['cpu']:.2f} s", "")
    table.add_row("wall time", f"{wall:.2f} s", where)
    for i, r in enumerate(s["slowest"]):
        table.add_row("slowest" if i == 0 else "", f"{r.get('seconds') or 0.0:.2f} s", Text(r["file"]))
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
        return DaskExecutor(args.scheduler, args.timeout, args.max_memory), f"Dask at {args.scheduler}"
    return LocalPool(args.jobs, args.timeout, args.max_memory), f"{args.jobs} job(s)"


def _usage_problem(args) -> str | None:
    if args.resume and not args.jsonl:
        return "--resume needs --jsonl OUT"
    if args.jobs < 1 or args.timeout < 0 or args.max_memory < 0:
        return "--jobs must be >= 1, --timeout and --max-memory >= 0"
    if args.jsonl and not os.path.isdir(os.path.dirname(os.path.abspath(args.jsonl))):
        return f"no directory for {args.jsonl}"
    return None


def execute(executor, todo: list[Task], sink: JsonlSink | None, live: _Live, new: list[Record]) -> None:
    """Run ``todo``; each record goes to ``sink`` (flushed) and ``new`` the moment its file is finished."""
    if executor is None:
        return
    with contextlib.closing(executor.run(todo)) as results:
        for task, record in results:
            if sink is not None:
                sink.write(record)
            new.append(record)
            live.done(task, record)


def report(args, records: list[Record], new: int, wall: float, where: str) -> dict[str, Any]:
    """Per-file lines, the summary table, ``--stats``, and soundness bugs (loudly, on stderr)."""
    from rich.console import Console

    if not args.quiet:
        out = Console(file=sys.stdout, highlight=False, soft_wrap=True)
        for r in records:
            out.print(file_line(r), markup=False)
    s = summarize(records)
    _print_summary(Console(file=sys.stdout, highlight=False), s, wall, len(records) - new, where,
                   layer_totals(records) if args.stats else None)
    err = Console(file=sys.stderr, highlight=False)
    for r in records:
        if r.get("preset_refused"):
            err.print(Text(f"{r['file']}: {r['error']}"), style="red")
        if r.get("example_violations"):
            err.print(Text(f"SOUNDNESS BUG: {r['file']}: verdicts contradicted by the example point "
                           f"at asserts {r['example_violations']}", style="bold red"))
    return s


def run(args) -> int:
    from rich.console import Console

    from absint.readers.files import smt2_files

    problem = _usage_problem(args)
    try:
        presets = preset_option.names(args)
    except preset_option.PresetError as e:
        problem = problem or str(e)
    files = smt2_files(args.paths) if problem is None else []
    if problem is None and not files:
        problem = "no .smt2 files found"
    if problem is not None:
        print(f"absint analyze: {problem}", file=sys.stderr)
        return 2
    tasks = plan(files, presets)
    old = read_records(args.jsonl) if args.resume else []
    # a record made under other presets is not this run's result
    kept, todo = split_resumed(tasks, [r for r in old if tuple(r.get("presets") or ()) == presets])
    try:
        executor, where = _executor(args) if todo else (None, "nothing to do")
    except ExecutorUnavailable as e:
        print(f"absint analyze: {e}", file=sys.stderr)
        return 2

    started = time.monotonic()
    new: list[Record] = []
    sink = None
    if args.jsonl:
        sink = JsonlSink.resume(args.jsonl, kept.values()) if args.resume else JsonlSink.fresh(args.jsonl)
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
            sink.close()
            write_sorted(args.jsonl, [*kept.values(), *new])
    current = {(t.name, t.sha256) for t in tasks}
    records = sorted([r for k, r in kept.items() if k in current] + new, key=record_key)
    s = report(args, records, len(new), time.monotonic() - started, where)
    bad = s["errors"] + s["timeouts"] + s["violations"]
    if any(r.get("preset_refused") for r in records):
        return 2
    return 1 if bad or len(records) < len(tasks) else 0
