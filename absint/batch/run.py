"""One batch run (``absint analyze``): many files, in parallel, resumable, never losing a finished result.

For each file, every assert is decided against the asserts before it
(:func:`absint.batch.analyze.analyze_file`). Files run in a local process pool
(:class:`absint.batch.executors.LocalPool`) or on a Dask cluster
(:class:`absint.batch.executors.DaskExecutor`), largest first so that the last
files to finish are short ones (:mod:`absint.batch.plan`). Each record is appended
to the ``--jsonl`` file the moment its file finishes (:mod:`absint.batch.jsonl`); at
the end the file is rewritten sorted by file name, so its content does not depend on
completion order, worker count or executor. :func:`run_batch` is the whole run; the
command parses its options into :class:`Options` and prints the :class:`BatchResult`.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections import Counter
from typing import Any, Callable, Protocol, Sequence

import attrs

from absint.batch.budgets import DEFAULT_MAX_MEMORY, DEFAULT_TIMEOUT
from absint.batch.executors import DaskExecutor, ExecutorUnavailable, LocalPool, Task, WorkerStartupError
from absint.batch.jsonl import JsonlSink, ResultsBusy
from absint.batch.plan import plan, read_file_records, split_resumed
from absint.batch.record import FileRecord
from absint.batch.summary import json_report, layer_totals, summarize
from absint.presets.facts import PresetError, parse
from absint.readers.files import DEFAULT_MAX_FILE_SIZE, MB, shown


@attrs.frozen(slots=True)
class Options:
    """What a run is asked for: the command's options, parsed. ``preset``: the ``--preset``
    values as given (checked by the run, after the other options)."""

    paths: tuple[str, ...]
    jsonl: str | None = None
    resume: bool = False
    jobs: int = 1
    timeout: float = DEFAULT_TIMEOUT
    max_memory: int = DEFAULT_MAX_MEMORY
    max_file_size: int = DEFAULT_MAX_FILE_SIZE  # MB
    executor: str = "local"
    scheduler: str | None = None
    preset: Sequence[str] | None = None


class UsageError(Exception):
    """A problem found before any work: exit status 2 and one line on stderr."""


class Stopped(Exception):
    """The run stopped before its end (workers that do not start, SIGTERM); every finished
    record is kept. ``status``: the exit status."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


class Terminated(Exception):
    """SIGTERM (e.g. a batch system's time limit): stop like Ctrl-C, keeping every finished record."""


class Progress(Protocol):
    """Who watches the run (the command's progress bar)."""

    def started(self, todo: Sequence[Task]) -> None:
        """The files about to run."""

    def done(self, task: Task, record: FileRecord) -> None:
        """One file finished, its record kept."""

    def stopped(self) -> None:
        """No more records will come."""


class _Unwatched:
    def started(self, todo: Sequence[Task]) -> None:
        pass

    def done(self, task: Task, record: FileRecord) -> None:
        pass

    def stopped(self) -> None:
        pass


@attrs.frozen(slots=True)
class BatchResult:
    """This run's files' records, sorted by (file, sha256); ``new`` of them made by this run
    (the others kept from ``--resume``); ``planned``: the distinct files of the run;
    ``where``: what ran them; ``summary``: :func:`absint.batch.summary.summarize` of the records."""

    records: tuple[FileRecord, ...]
    new: int
    planned: int
    wall: float
    where: str
    summary: dict[str, Any]

    @property
    def resumed(self) -> int:
        return len(self.records) - self.new

    @property
    def exit_status(self) -> int:
        """2 when a preset was refused; 1 on an error, a timeout, an example violation or a
        file left without a record; else 0."""
        s = self.summary
        if any(r.preset_refused for r in self.records):
            return 2
        bad = s["errors"] + s["timeouts"] + s["violations"]
        return 1 if bad or len(self.records) < self.planned else 0

    def layers(self) -> Counter:
        """Verdicts per deciding layer, over every record."""
        return layer_totals(list(self.records))

    def to_json(self) -> dict[str, Any]:
        """``--json``: the summary's figures, the verdicts per layer, and every record."""
        return json_report(self.summary, list(self.records), self.wall, self.resumed)


def run_batch(options: Options, progress: Progress | None = None) -> BatchResult:
    """Plan, resume, run and sort; raises :class:`UsageError` before any work, :class:`Stopped`
    when the run ends early (the records made so far are in the ``--jsonl`` file)."""
    files, presets, sink = _inputs(options)
    tasks = plan(files, hash_all=options.resume, max_size=options.max_file_size * MB, presets=presets)
    old = read_file_records(options.jsonl) if options.resume else []
    # a record made under other presets is not this run's result
    kept, todo = split_resumed(tasks, [r for r in old if r.presets == presets])
    try:
        executor, where = _executor(options) if todo else (None, "nothing to do")
    except ExecutorUnavailable as e:
        if sink is not None:
            sink.abandon()
        raise UsageError(str(e)) from None
    if sink is not None:
        sink.start([r.to_json() for r in kept.values()])
    started = time.monotonic()
    new = _execute_all(options, sink, executor, todo, kept, progress or _Unwatched())
    current = {(t.name, t.sha256) for t in tasks}
    records = sorted([r for k, r in kept.items() if k in current] + new, key=lambda r: r.key)
    return BatchResult(tuple(records), len(new), len(tasks), time.monotonic() - started, where, summarize(records))


def _usage_problem(o: Options) -> str | None:
    if o.resume and not o.jsonl:
        return "--resume needs --jsonl OUT"
    if o.jobs < 1 or o.timeout < 0 or o.max_memory < 0 or o.max_file_size < 0:
        return "--jobs must be >= 1, --timeout, --max-memory and --max-file-size >= 0"
    return None


def _inputs(o: Options) -> tuple[list[str], tuple[str, ...], JsonlSink | None]:
    """The files to analyse, the presets and the results file, opened and locked for this run."""
    from absint.readers.files import smt2_files

    problem = _usage_problem(o)
    if problem is not None:
        raise UsageError(problem)
    try:
        presets = parse(o.preset)
    except PresetError as e:
        raise UsageError(str(e)) from None
    files = smt2_files(list(o.paths))
    if not files:
        raise UsageError("no .smt2 files found")
    if not o.jsonl:
        return files, presets, None
    try:
        return files, presets, JsonlSink(o.jsonl)
    except ResultsBusy as e:
        raise UsageError(f"{e}; not started (wait for it, or write to another file)") from None
    except OSError as e:
        raise UsageError(f"cannot write --jsonl {o.jsonl}: {e.strerror or e}") from None


def _executor(o: Options):
    if o.executor == "dask":
        if not o.scheduler:
            raise ExecutorUnavailable("--executor dask needs --scheduler tcp://HOST:PORT")
        return DaskExecutor(o.scheduler, o.timeout, o.max_memory, o.max_file_size * MB), f"Dask at {o.scheduler}"
    return LocalPool(o.jobs, o.timeout, o.max_memory, o.max_file_size * MB), f"{o.jobs} job(s)"


def _execute_all(o: Options, sink: JsonlSink | None, executor, todo: list[Task], kept: dict,
                 progress: Progress) -> list[FileRecord]:
    """Run ``todo`` under SIGTERM's stop; the new records. The ``--jsonl`` file is finished
    (sorted, kept and new records) however the run ends."""
    new: list[FileRecord] = []
    try:
        with _sigterm_stops_the_run():
            progress.started(todo)
            try:
                execute(executor, todo, sink, progress.done, new)
            finally:
                progress.stopped()
    except WorkerStartupError as e:
        raise Stopped(f"{e}; {len(todo) - len(new)} file(s) not analysed", 1) from None
    except Terminated:
        raise Stopped(f"terminated; {len(new)} new record(s) kept"
                      + (f" in {o.jsonl} (--resume to finish)" if o.jsonl else ""), 128 + signal.SIGTERM) from None
    finally:
        if sink is not None:
            sink.finish([r.to_json() for r in (*kept.values(), *new)])
    return new


def execute(executor, todo: list[Task], sink: JsonlSink | None, done: Callable[[Task, FileRecord], None],
            new: list[FileRecord]) -> None:
    """Run ``todo``; each record goes to ``sink`` (flushed) and ``new`` the moment its file is finished."""
    if executor is None:
        return
    with contextlib.closing(executor.run(todo)) as results:
        for task, record in results:
            record = record.after_attempts(task.attempt).with_presets(task.presets).as_given(shown(record.file))
            if sink is not None:
                sink.write(record.to_json())
            new.append(record)
            done(task, record)


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
