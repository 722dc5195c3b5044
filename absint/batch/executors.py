"""Where files are analysed: a local process pool or a Dask cluster.

Three levels of process, so that no file can take a run down with it:

* the **parent** (``absint analyze``) schedules files, enforces a safety-net
  deadline, and replaces a worker that died;
* a **worker** is a long-lived process (started once: interpreter and imports
  cost ~0.2 s) that runs one file at a time;
* for each file the worker forks an **analysis process** from its pristine,
  already-imported state. The analysis process has the memory limit
  (``RLIMIT_AS``), is killed by the worker at the time limit, and may crash
  without harming anyone. Forking per file also makes results independent of
  scheduling: terms are interned globally and canonical forms order atoms by
  intern id, so a reused interpreter could give a file different verdicts
  depending on which files it analysed before. Forking costs about a
  millisecond.

Every outcome is a record (see :mod:`absint.batch.analyze`): ``error`` is
``timeout: exceeded S s``, ``memory limit exceeded (N MB)``,
``worker died (signal SIGSEGV)`` / ``worker died (exit code N)``,
``internal error: ...`` (an exception escaped ``analyze_file``), or the parse
error. Workers die with the parent (``PR_SET_PDEATHSIG`` on Linux, EOF on
their pipe otherwise), and ignore SIGINT so that Ctrl-C stops the run without
turning the files in flight into error records.

Fault injection (tests only): ``ABSINT_FAULT_INJECTION="KIND:FILE[,KIND:FILE...]"``
in the workers' environment, where FILE is a base name and KIND is

* ``exit``: the analysis process calls ``os._exit(70)`` when it starts FILE;
* ``kill-worker``: the worker itself calls ``os._exit(71)`` when given FILE;
* ``hang-worker``: the worker itself stops responding when given FILE (the
  parent's safety net, ``SAFETY_GRACE`` past the time limit, kills it);
* ``sleep``: the analysis process sleeps until the time limit kills it;
* ``memory``: the analysis process allocates more than the memory limit.

Unix only (fork, rlimits).
"""

from __future__ import annotations

import os
import pickle
import resource
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, Iterator, Sequence

MB = 1 << 20
FAULT_ENV = "ABSINT_FAULT_INJECTION"
FAULT_KINDS = ("exit", "kill-worker", "hang-worker", "sleep", "memory")
SAFETY_GRACE = 30.0  # seconds past the time limit before the parent gives up on a worker
STARTUP_TIMEOUT = 120.0
MAX_STARTUP_FAILURES = 3

Record = dict[str, Any]


@dataclass(frozen=True)
class Task:
    """One file to analyse; ``sha256`` is None when the parent could not read it; ``presets``:
    the ``--preset`` names whose facts are assumed ahead of the file's asserts."""

    path: str
    name: str
    size: int
    sha256: str | None
    presets: tuple[str, ...] = ()


class ExecutorUnavailable(Exception):
    """The executor cannot run (missing extra, unreachable scheduler): a usage error."""


class WorkerStartupError(Exception):
    """Workers die before they are ready: the installation is broken."""


# ------------------------------------------------------------------ records


def error_record(name: str, reason: str, seconds: float = 0.0) -> Record:
    """The record of a file that produced no analysis (same leading keys as ``analyze_file``)."""
    return {"file": name, "asserts": 0, "verdicts": "", "seconds": round(seconds, 6), "error": reason}


def timeout_reason(timeout: float) -> str:
    return f"timeout: exceeded {timeout:g} s"


def memory_reason(max_memory: int) -> str:
    return f"memory limit exceeded ({max_memory} MB)"


def death_reason(returncode: int) -> str:
    """``worker died (signal SIGKILL)`` from a negative return code, else the exit code."""
    if returncode < 0:
        try:
            sig = signal.Signals(-returncode).name
        except ValueError:
            sig = str(-returncode)
        return f"worker died (signal {sig})"
    return f"worker died (exit code {returncode})"


def _status_reason(status: int) -> str:
    if os.WIFSIGNALED(status):
        return death_reason(-os.WTERMSIG(status))
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else status
    return death_reason(code) + (" without a result" if code == 0 else "")


def parse_faults(text: str | None) -> dict[str, str]:
    """``"exit:a.smt2,sleep:b.smt2"`` -> ``{"a.smt2": "exit", "b.smt2": "sleep"}``."""
    faults: dict[str, str] = {}
    for item in (text or "").split(","):
        kind, sep, name = item.strip().partition(":")
        if sep and kind in FAULT_KINDS and name:
            faults[name] = kind
    return faults


# ------------------------------------------------------------------ worker side


_prctl = None


def _die_with_parent() -> None:
    """Linux: SIGKILL this process when its parent (thread) exits.

    The ``prctl`` handle is looked up once per worker (~10 ms) and inherited by
    the forked analysis processes.
    """
    global _prctl
    if not sys.platform.startswith("linux"):
        return
    try:
        if _prctl is None:
            import ctypes

            _prctl = ctypes.CDLL(None, use_errno=True).prctl
        _prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _analysis_process(path: str, name: str, max_memory: int, fault: str | None, wfd: int,
                      worker_pid: int, presets: tuple[str, ...] = ()) -> None:
    """In the forked child: analyse one file, send the pickled record on ``wfd``, exit. Never returns."""
    code = 0
    try:
        _die_with_parent()
        if os.getppid() != worker_pid:  # the worker died before PDEATHSIG was armed
            os._exit(1)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if max_memory > 0:
            limit = max_memory * MB
            resource.setrlimit(resource.RLIMIT_AS, (limit if hard < 0 else min(limit, hard), hard))
        if fault == "exit":
            os._exit(70)
        start = time.process_time()
        failure = None
        record = None
        try:
            if fault == "sleep":
                while True:
                    time.sleep(3600)
            if fault == "memory":
                if max_memory <= 0:
                    raise MemoryError
                bytearray((max_memory + 1) * MB)
            from absint.batch.analyze import analyze_file

            record = analyze_file(path, presets)
        except MemoryError:
            failure = "memory"
        except BaseException as e:  # noqa: BLE001 - a bug in analysis is one file's error
            failure = f"internal error: {type(e).__name__}: {e}"
        if record is None:
            resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
            reason = memory_reason(max_memory) if failure == "memory" else str(failure)
            record = error_record(name, reason, time.process_time() - start)
        _write_all(wfd, pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL))
    except BaseException:  # noqa: BLE001
        code = 1
    os._exit(code)


def run_isolated(path: str, name: str, timeout: float, max_memory: int, fault: str | None = None,
                 conn_fd: int | None = None, parent_pid: int | None = None,
                 presets: tuple[str, ...] = ()) -> Record:
    """Analyse one file in a forked process with the time and memory limits; always a record.

    Runs in a worker (single-threaded: safe to fork). ``conn_fd`` is closed in
    the child; ``parent_pid`` is watched so that the worker gives up (and kills
    the child) if its own parent disappears.
    """
    rfd, wfd = os.pipe()
    me = os.getpid()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        os.close(rfd)
        if conn_fd is not None:
            os.close(conn_fd)
        _analysis_process(path, name, max_memory, fault, wfd, me, presets)
    os.close(wfd)
    chunks: list[bytes] = []
    timed_out = False
    deadline = time.monotonic() + timeout if timeout > 0 else None
    try:
        while True:
            wait_for = 1.0 if deadline is None else min(1.0, deadline - time.monotonic())
            if wait_for <= 0:
                timed_out = True
                break
            readable, _, _ = select.select([rfd], [], [], wait_for)
            if parent_pid is not None and os.getppid() != parent_pid:
                os.kill(pid, signal.SIGKILL)
                os._exit(0)
            if readable:
                chunk = os.read(rfd, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
    finally:
        os.close(rfd)
        if timed_out:
            os.kill(pid, signal.SIGKILL)
        _, status, usage = os.wait4(pid, 0)
    cpu = usage.ru_utime + usage.ru_stime
    if timed_out:
        return error_record(name, timeout_reason(timeout), cpu)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and chunks:
        try:
            return pickle.loads(b"".join(chunks))
        except Exception:  # noqa: BLE001 - a truncated message is a crash
            pass
    return error_record(name, _status_reason(status), cpu)


def _preload() -> None:
    """Import what the analysis needs once, so each forked child starts warm."""
    import importlib
    import pkgutil

    import absint.batch.analyze  # noqa: F401

    try:
        import domains

        for info in pkgutil.iter_modules(domains.__path__, "domains."):
            try:
                importlib.import_module(info.name)
            except Exception:  # noqa: BLE001 - a broken domain shows up as each file's error
                pass
    except ImportError:
        pass


def worker_main(fd: int) -> None:
    """The worker loop: ``("run", path, name, timeout, max_memory, presets)`` in, ``("done", record)`` out."""
    _die_with_parent()
    parent = os.getppid()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    conn = Connection(fd)
    faults = parse_faults(os.environ.get(FAULT_ENV))
    _preload()
    conn.send(("ready", os.getpid()))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            break
        if msg is None:
            break
        _, path, name, timeout, max_memory, presets = msg
        fault = faults.get(name)
        if fault == "kill-worker":
            os._exit(71)
        while fault == "hang-worker":
            time.sleep(3600)
        record = run_isolated(path, name, timeout, max_memory, fault, fd, parent, presets)
        try:
            conn.send(("done", record))
        except OSError:
            break


# ------------------------------------------------------------------ parent side


def _worker_env() -> dict[str, str]:
    """The environment of a worker: ours, with this package importable."""
    import absint

    root = os.path.dirname(os.path.dirname(os.path.abspath(absint.__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    return env


class WorkerProcess:
    """The parent's handle on one worker process and the task it is running."""

    def __init__(self) -> None:
        mine, theirs = socket.socketpair()
        cmd = [sys.executable, "-c", "import sys; from absint.batch.executors import worker_main; "
               "worker_main(int(sys.argv[1]))", str(theirs.fileno())]
        try:
            self.proc = subprocess.Popen(cmd, pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, env=_worker_env())
        finally:
            theirs.close()
        self.conn = Connection(mine.detach())
        self.ready = False
        self.task: Task | None = None
        self.deadline: float | None = None

    @property
    def idle(self) -> bool:
        return self.ready and self.task is None

    def start(self, task: Task, timeout: float, max_memory: int) -> None:
        self.conn.send(("run", task.path, task.name, timeout, max_memory, task.presets))
        self.task = task
        self.deadline = time.monotonic() + timeout + SAFETY_GRACE if timeout > 0 else None

    def died(self) -> str:
        """The death reason, once the connection has reported EOF."""
        try:
            code = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        self.conn.close()
        return death_reason(code)

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self.conn.close()

    def stop(self) -> None:
        """Ask to exit; kill if busy or slow. Idempotent."""
        if self.proc.poll() is None:
            if self.task is None and not self.conn.closed:
                try:
                    self.conn.send(None)
                    self.proc.wait(timeout=2)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        if not self.conn.closed:
            self.conn.close()

    def run_sync(self, path: str, name: str, timeout: float, max_memory: int,
                 presets: tuple[str, ...] = ()) -> Record:
        """Run one file and wait for its record (for callers without an event loop, e.g. Dask tasks)."""
        try:
            while not self.ready:
                if not self.conn.poll(STARTUP_TIMEOUT):
                    self.kill()
                    raise WorkerStartupError("worker did not start")
                if self.conn.recv()[0] == "ready":
                    self.ready = True
            self.start(Task(path, name, 0, None, presets), timeout, max_memory)
            while True:
                left = None if self.deadline is None else max(0.0, self.deadline - time.monotonic())
                if not self.conn.poll(left):
                    self.kill()
                    return error_record(name, timeout_reason(timeout) + " (worker unresponsive)")
                msg = self.conn.recv()
                if msg[0] == "done":
                    self.task = None
                    return msg[1]
        except (EOFError, OSError):
            if self.ready:
                return error_record(name, self.died())
            raise WorkerStartupError(self.died()) from None


def _fill(record: Record, task: Task) -> Record:
    """The parent knows the content hash even when the analysis could not report it."""
    if "sha256" not in record and task.sha256 is not None:
        record["sha256"] = task.sha256
    return record


class LocalPool:
    """``jobs`` worker processes on this machine; files are started in the order given."""

    def __init__(self, jobs: int, timeout: float, max_memory: int):
        self.jobs = max(1, jobs)
        self.timeout = timeout
        self.max_memory = max_memory

    def run(self, tasks: Sequence[Task]) -> Iterator[tuple[Task, Record]]:
        """Yield ``(task, record)`` as files finish; every task yields exactly once."""
        pending = deque(tasks)
        workers = [WorkerProcess() for _ in range(min(self.jobs, len(pending)))]
        startup_failures = 0
        try:
            while pending or any(w.task is not None for w in workers):
                for w in workers:
                    if w.idle and pending:
                        w.start(pending.popleft(), self.timeout, self.max_memory)
                deadlines = [w.deadline for w in workers if w.deadline is not None and w.task is not None]
                wait_for = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
                ready = set(wait([w.conn for w in workers], wait_for))
                for i, w in enumerate(workers):
                    if w.conn in ready:
                        try:
                            msg = w.conn.recv()
                        except (EOFError, OSError):
                            reason = w.died()
                            if w.task is not None:
                                yield w.task, _fill(error_record(w.task.name, reason), w.task)
                            elif not w.ready:
                                startup_failures += 1
                                if startup_failures >= MAX_STARTUP_FAILURES:
                                    raise WorkerStartupError(f"workers fail to start: {reason}") from None
                            workers[i] = WorkerProcess() if pending else None
                            continue
                        if msg[0] == "ready":
                            w.ready = True
                            startup_failures = 0
                        elif msg[0] == "done":
                            task, w.task, w.deadline = w.task, None, None
                            yield task, _fill(msg[1], task)
                    elif w.task is not None and w.deadline is not None and time.monotonic() >= w.deadline:
                        task = w.task
                        w.kill()
                        workers[i] = WorkerProcess() if pending else None
                        yield task, _fill(error_record(task.name, timeout_reason(self.timeout)
                                                       + " (worker unresponsive)"), task)
                workers = [w for w in workers if w is not None]
                if not pending:  # retire the workers that have nothing left to do
                    for w in workers:
                        if w.task is None:
                            w.stop()
                    workers = [w for w in workers if w.task is not None]
        finally:
            for w in workers:
                if w is not None:
                    w.stop()


# ------------------------------------------------------------------ Dask


_local = threading.local()


def dask_analyze(name: str, data: bytes, timeout: float, max_memory: int,
                 presets: tuple[str, ...] = ()) -> Record:
    """A Dask task: the record of one file, sent as bytes (workers need not see the files).

    Each Dask worker thread keeps one absint worker process, so the time and
    memory limits and the crash isolation are exactly those of the local pool.
    """
    import tempfile

    worker = getattr(_local, "worker", None)
    if worker is None or worker.proc.poll() is not None or worker.conn.closed:
        worker = _local.worker = WorkerProcess()
    with tempfile.TemporaryDirectory(prefix="absint-") as d:
        path = os.path.join(d, name)
        with open(path, "wb") as f:
            f.write(data)
        return worker.run_sync(path, name, timeout, max_memory, presets)


class DaskExecutor:
    """Files sent to an existing Dask distributed cluster (``dask[distributed]``, the ``dask`` extra).

    The file contents travel with the tasks, so workers need ``absint``
    installed but not the files. Larger files get a higher priority.
    """

    def __init__(self, scheduler: str, timeout: float, max_memory: int, connect_timeout: float = 5.0):
        try:
            import distributed
        except ImportError as e:
            raise ExecutorUnavailable(
                "--executor dask needs dask[distributed]: pip install 'absint[dask]'") from e
        self._distributed = distributed
        self.timeout = timeout
        self.max_memory = max_memory
        try:
            self.client = distributed.Client(scheduler, timeout=connect_timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as e:
            raise ExecutorUnavailable(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None

    def run(self, tasks: Sequence[Task]) -> Iterator[tuple[Task, Record]]:
        import uuid

        run_id = uuid.uuid4().hex[:8]
        futures = {}
        try:
            for i, t in enumerate(tasks):
                try:
                    with open(t.path, "rb") as f:
                        data = f.read()
                except OSError as e:
                    yield t, error_record(t.name, f"{t.path}: cannot read: {e.strerror or e}")
                    continue
                fut = self.client.submit(dask_analyze, t.name, data, self.timeout, self.max_memory, t.presets,
                                         key=f"absint-{t.name}-{run_id}-{i}", pure=False,
                                         priority=len(tasks) - i)
                futures[fut] = t
            for fut in self._distributed.as_completed(list(futures), loop=self.client.loop):
                t = futures[fut]
                try:
                    record = fut.result()
                except Exception as e:  # noqa: BLE001 - a lost task is one file's error
                    record = error_record(t.name, f"dask task failed: {type(e).__name__}: {e}")
                yield t, _fill(record, t)
        finally:
            if futures:
                self.client.cancel(list(futures))
            self.client.close()
