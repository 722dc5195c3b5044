"""Where files are analysed: a local process pool or a Dask cluster.

Three levels of process, so that no file can take a run down with it:

* the **parent** (``absint analyze``) schedules files, enforces a safety-net
  deadline, and replaces a worker that died;
* a **worker** is a long-lived process (started once: interpreter and imports
  cost ~0.2 s) that runs one file at a time;
* for each file the worker forks an **analysis process** from its pristine,
  already-imported and warmed state (:func:`warm_worker`). The analysis process has the memory limit
  (``RLIMIT_AS``), is killed by the worker at the time limit, and may crash
  without harming anyone. Forking per file also makes results independent of
  scheduling: terms are interned globally and canonical forms order atoms by
  intern id, so a reused interpreter could give a file different verdicts
  depending on which files it analysed before. Forking costs about a
  millisecond.

Every outcome is a :class:`absint.batch.record.FileRecord`: ``error`` is
``timeout: exceeded S s``, ``memory limit exceeded (N MB)``,
``worker died (signal SIGSEGV)`` / ``worker died (exit code N)``,
``internal error: ...`` (an exception escaped the analysis), the parse
error, or ``PATH: cannot read: ...`` (also ``not a regular file (a FIFO)`` and
``too large``: the worker reads a file only if it is a regular one within
``--max-file-size``). Workers die with the parent (``PR_SET_PDEATHSIG`` on
Linux, EOF on their pipe otherwise), and ignore SIGINT so that Ctrl-C stops the
run without turning the files in flight into error records.

Fault injection (tests only): ``ABSINT_FAULT_INJECTION="KIND:FILE[,KIND:FILE...]"``
in the workers' environment, where FILE is a base name and KIND is

* ``exit``: the analysis process calls ``os._exit(70)`` when it starts FILE;
* ``kill``: the analysis process sends itself SIGKILL (as the kernel's OOM killer would);
* ``kill-worker``: the worker itself calls ``os._exit(71)`` when given FILE;
* ``hang-worker``: the worker itself stops responding when given FILE (the
  parent's safety net, ``SAFETY_GRACE`` past the time limit, kills it);
* ``sleep``: the analysis process sleeps until the time limit kills it;
* ``memory``: the analysis process allocates more than the memory limit.

Unix only (fork, rlimits).
"""

from __future__ import annotations

import gc
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
from typing import Callable, Iterator, Sequence

import attrs

from absint.batch.record import DEATH, FileRecord, memory_reason, timeout_reason
from absint.readers.files import UnreadableFile, content_digest, file_sha256, read_regular

MB = 1 << 20
FAULT_ENV = "ABSINT_FAULT_INJECTION"
FAULT_KINDS = ("exit", "kill", "kill-worker", "hang-worker", "sleep", "memory")
SAFETY_GRACE = 30.0  # seconds past the time limit before the parent gives up on a worker
STARTUP_TIMEOUT = 120.0
MAX_STARTUP_FAILURES = 3

@dataclass(frozen=True)
class Task:
    """One file to analyse; ``sha256`` is None when the parent did not (or could not) hash it;
    ``attempt`` 2 when ``--resume`` retries a file whose process died; ``presets``: the
    ``--preset`` names whose facts are assumed ahead of the file's asserts."""

    path: str
    name: str
    size: int
    sha256: str | None
    attempt: int = 1
    presets: tuple[str, ...] = ()


class ExecutorUnavailable(Exception):
    """The executor cannot run (missing extra, unreachable scheduler): a usage error."""


class WorkerStartupError(Exception):
    """Workers die before they are ready: the installation is broken."""


# ------------------------------------------------------------------ records


def death_reason(returncode: int) -> str:
    """``worker died (signal SIGKILL)`` from a negative return code, else the exit code."""
    if returncode < 0:
        try:
            sig = signal.Signals(-returncode).name
        except ValueError:
            sig = str(-returncode)
        return f"{DEATH} (signal {sig})"
    return f"{DEATH} (exit code {returncode})"


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


def _prctl_handle():
    """Linux's ``prctl``, looked up once per process (~20 ms) so that forked children inherit it."""
    global _prctl
    if _prctl is None and sys.platform.startswith("linux"):
        try:
            import ctypes

            _prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            _prctl = False
    return _prctl or None


def _die_with_parent() -> None:
    """Linux: SIGKILL this process when its parent (thread) exits."""
    prctl = _prctl_handle()
    if prctl is not None:
        prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


@attrs.frozen(slots=True)
class ForkOutcome:
    """What a job run in a forked process came to: its value, or why there is none.

    ``kind`` is ``ok``, ``timeout``, ``memory``, ``died`` or ``internal``; ``reason``
    says it in words (``memory limit exceeded (N MB)``, ``worker died (signal SIGKILL)``).
    """

    kind: str
    value: object = None
    reason: str = ""
    cpu: float = 0.0

    def message(self, timeout: float) -> str:
        """The failure as one line for a command's stderr: ``timeout after N s`` and so on."""
        return f"timeout after {timeout:g} s" if self.kind == "timeout" else self.reason


def _limit_memory(max_memory: int) -> int:
    """Set ``RLIMIT_AS`` to what the process maps now plus ``max_memory`` MB (0: unchanged);
    returns the hard limit, to lift it again. The budget is the file's own: a process forked
    from one that has imported torch (a CUDA build maps several GB of address space before
    any work) would otherwise fail its first allocation."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if max_memory > 0:
        limit = _mapped_bytes() + max_memory * MB
        resource.setrlimit(resource.RLIMIT_AS, (limit if hard < 0 else min(limit, hard), hard))
    return hard


def _mapped_bytes() -> int:
    """The address space this process maps (``/proc/self/statm``), 0 where it cannot be read."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0


def _run_job(job: Callable[[], object], max_memory: int, fault: str | None) -> tuple:
    """Run ``job`` (and the injected fault) in the child: ``("ok", value)`` or the failure."""
    try:
        if fault == "sleep":
            while True:
                time.sleep(3600)
        if fault == "memory":
            if max_memory <= 0:
                raise MemoryError
            bytearray(2 * (max_memory + 1) * MB)  # past the limit even where freed heap is reused
        return ("ok", job())
    except MemoryError:
        return ("memory", memory_reason(max_memory))
    except BaseException as e:  # noqa: BLE001 - a bug in the job is one file's error
        return ("internal", f"internal error: {type(e).__name__}: {e}")


def _child(job: Callable[[], object], max_memory: int, fault: str | None, wfd: int, worker_pid: int) -> None:
    """In the forked child: run ``job``, send the pickled outcome on ``wfd``, exit. Never returns."""
    code = 0
    try:
        _die_with_parent()
        if os.getppid() != worker_pid:  # the worker died before PDEATHSIG was armed
            os._exit(1)
        hard = _limit_memory(max_memory)
        if fault == "exit":
            os._exit(70)
        if fault == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        start = time.process_time()
        result = _run_job(job, max_memory, fault)
        if result[0] != "ok":
            resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
            result = (*result, time.process_time() - start)
        _write_all(wfd, pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    except BaseException:  # noqa: BLE001
        code = 1
    os._exit(code)


def _collect(pid: int, rfd: int, timeout: float, parent_pid: int | None) -> tuple[bytes, bool]:
    """Read the child's message until EOF or the deadline; (message, timed out). Closes ``rfd``."""
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout if timeout > 0 else None
    try:
        while True:
            wait_for = 1.0 if deadline is None else min(1.0, deadline - time.monotonic())
            if wait_for <= 0:
                return b"".join(chunks), True
            readable, _, _ = select.select([rfd], [], [], wait_for)
            if parent_pid is not None and os.getppid() != parent_pid:
                os.kill(pid, signal.SIGKILL)
                os._exit(0)
            if readable:
                chunk = os.read(rfd, 1 << 20)
                if not chunk:
                    return b"".join(chunks), False
                chunks.append(chunk)
    finally:
        os.close(rfd)


def run_forked(job: Callable[[], object], timeout: float, max_memory: int, fault: str | None = None,
               conn_fd: int | None = None, parent_pid: int | None = None) -> ForkOutcome:
    """Run ``job`` in a forked process with the time and memory limits; always an :class:`ForkOutcome`.

    Every command's per-file budget is this one function. The caller must be
    single-threaded (safe to fork). ``conn_fd`` is closed in the child;
    ``parent_pid`` is watched so that a worker gives up (and kills the child) if
    its own parent disappears.
    """
    rfd, wfd = os.pipe()
    me = os.getpid()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        os.close(rfd)
        if conn_fd is not None:
            os.close(conn_fd)
        _child(job, max_memory, fault, wfd, me)
    os.close(wfd)
    timed_out = True
    try:
        message, timed_out = _collect(pid, rfd, timeout, parent_pid)
    finally:
        if timed_out:
            os.kill(pid, signal.SIGKILL)
        _, status, usage = os.wait4(pid, 0)
    cpu = usage.ru_utime + usage.ru_stime
    if timed_out:
        return ForkOutcome("timeout", reason=timeout_reason(timeout), cpu=cpu)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and message:
        try:
            result = pickle.loads(message)
        except Exception:  # noqa: BLE001 - a truncated message is a crash
            result = None
        if result is not None:
            if result[0] == "ok":
                return ForkOutcome("ok", result[1])
            return ForkOutcome(result[0], None, result[1], result[2])
    return ForkOutcome("died", reason=_status_reason(status), cpu=cpu)


def run_isolated(path: str, name: str, timeout: float, max_memory: int, max_size: int = 0,
                 fault: str | None = None, conn_fd: int | None = None,
                 parent_pid: int | None = None, presets: tuple[str, ...] = ()) -> FileRecord:
    """Analyse one file in a forked process with the time and memory limits; always a record.

    The file is read here, in the worker, and only if it is a regular file of at
    most ``max_size`` bytes: the parent never holds a file's content. The presets' facts
    are built in the forked process, from the program it loads.
    """
    try:
        data = read_regular(path, max_size)
    except UnreadableFile as e:
        return FileRecord.failed(name, str(e)).with_presets(presets)
    from absint.batch.analyze import analyze_bytes

    out = run_forked(lambda: analyze_bytes(path, data, presets), timeout, max_memory, fault, conn_fd,
                     parent_pid)
    if out.kind == "ok":
        record = out.value
    elif out.kind == "timeout":
        record = FileRecord.timed_out(name, timeout, out.cpu)
    else:
        record = FileRecord.failed(name, out.reason, out.cpu)
    return record.with_sha256(content_digest(data)).with_presets(presets)


#: a tiny program that meets the reader, evaluator and reasoner once (see :func:`warm_worker`)
WARM_UP = b"""(define-fun ceil ((x Real)) Int (ite (= (to_int x) x) (to_int x) (+ (to_int x) 1)))
(declare-const s0 Int)
(set-info :example-s0 8)
(declare-const u0 Int)
(assert (>= s0 0))
(assert (= (mod s0 2) 0))
(assert (<= (ceil (/ s0 2)) s0))
(assert (<= u0 (* s0 s0)))
"""


def warm(job: Callable[[], object]) -> None:
    """:func:`preload`, then ``job`` once here (a tiny analysis, :data:`WARM_UP`) and the
    objects left frozen (``gc.freeze``): each forked process then starts as a second analysis
    would, and its collector leaves the parent's pages alone. A failing job shows up again,
    in a file's own process."""
    preload()
    try:
        job()
    except Exception:  # noqa: BLE001 - a problem shows up again, in a file's own process
        pass
    gc.collect()
    gc.freeze()


def warm_worker() -> None:
    """:func:`warm` with one analysis of :data:`WARM_UP`. Measured on the 150 smallest corpus
    files, a process forked per file: about 3 ms of user and 2 ms of system CPU less a file
    (of about 26 ms). The analysis runs in its own term table (:func:`analyze_bytes` opens
    one), so none of its terms reaches a file's, as in-process runs of many files rely on."""
    from absint.batch.analyze import analyze_bytes

    warm(lambda: analyze_bytes("warm-up.smt2", WARM_UP))


def preload() -> None:
    """Import what the analysis needs once, so each forked child starts warm."""
    import importlib
    import pkgutil

    _prctl_handle()

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
    """The worker loop: ``("run", path, name, timeout, max_memory, max_size, presets)`` in,
    ``("done", record)`` out."""
    _die_with_parent()
    parent = os.getppid()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    conn = Connection(fd)
    faults = parse_faults(os.environ.get(FAULT_ENV))
    warm_worker()
    conn.send(("ready", os.getpid()))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            break
        if msg is None:
            break
        _, path, name, timeout, max_memory, max_size, presets = msg
        fault = faults.get(os.path.basename(name))
        if fault == "kill-worker":
            os._exit(71)
        while fault == "hang-worker":
            time.sleep(3600)
        record = run_isolated(path, name, timeout, max_memory, max_size, fault, fd, parent, presets)
        try:
            conn.send(("done", record))
        except OSError:
            break


# ------------------------------------------------------------------ parent side


#: ``-P``: the working directory is not put first on the worker's ``sys.path`` (``python -c``
#: would put it there, and a folder holding another ``absint/`` would have the workers run that
#: package while the parent runs this one); :func:`_worker_env` puts this package's root first
WORKER_FLAGS = ("-P",)


def _worker_env() -> dict[str, str]:
    """The environment of a worker: ours, with this package's root first on ``PYTHONPATH``, so a
    worker imports the ``absint`` (and ``domains``) the command was started with."""
    import absint

    root = os.path.dirname(os.path.dirname(os.path.abspath(absint.__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    return env


class WorkerProcess:
    """The parent's handle on one worker process and the task it is running."""

    def __init__(self) -> None:
        mine, theirs = socket.socketpair()
        cmd = [sys.executable, *WORKER_FLAGS, "-c", "import sys; from absint.batch.executors import worker_main; "
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

    def start(self, task: Task, timeout: float, max_memory: int, max_size: int = 0) -> None:
        self.conn.send(("run", task.path, task.name, timeout, max_memory, max_size, task.presets))
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
                 presets: tuple[str, ...] = ()) -> FileRecord:
        """Run one file and wait for its record (for callers without an event loop, e.g. Dask tasks)."""
        try:
            while not self.ready:
                if not self.conn.poll(STARTUP_TIMEOUT):
                    self.kill()
                    raise WorkerStartupError("worker did not start")
                if self.conn.recv()[0] == "ready":
                    self.ready = True
            self.start(Task(path, name, 0, None, presets=presets), timeout, max_memory)
            while True:
                left = None if self.deadline is None else max(0.0, self.deadline - time.monotonic())
                if not self.conn.poll(left):
                    self.kill()
                    return FileRecord.timed_out(name, timeout, unresponsive=True)
                msg = self.conn.recv()
                if msg[0] == "done":
                    self.task = None
                    return msg[1]
        except (EOFError, OSError):
            if self.ready:
                return FileRecord.died(name, self.died())
            raise WorkerStartupError(self.died()) from None


class LocalPool:
    """``jobs`` worker processes on this machine; files are started in the order given."""

    def __init__(self, jobs: int, timeout: float, max_memory: int, max_size: int = 0):
        self.jobs = max(1, jobs)
        self.timeout = timeout
        self.max_memory = max_memory
        self.max_size = max_size

    def _lost(self, task: Task, record: FileRecord) -> FileRecord:
        """A record made here because the worker was lost: the hash is read here (in chunks), if needed."""
        return record.with_sha256(task.sha256 or file_sha256(task.path, self.max_size))

    def run(self, tasks: Sequence[Task]) -> Iterator[tuple[Task, FileRecord]]:
        """Yield ``(task, record)`` as files finish; every task yields exactly once."""
        pending = deque(tasks)
        workers = [WorkerProcess() for _ in range(min(self.jobs, len(pending)))]
        startup_failures = 0
        try:
            while pending or any(w.task is not None for w in workers):
                for w in workers:
                    if w.idle and pending:
                        w.start(pending.popleft(), self.timeout, self.max_memory, self.max_size)
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
                                yield w.task, self._lost(w.task, FileRecord.died(w.task.name, reason))
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
                            yield task, msg[1].with_sha256(task.sha256)
                    elif w.task is not None and w.deadline is not None and time.monotonic() >= w.deadline:
                        task = w.task
                        w.kill()
                        workers[i] = WorkerProcess() if pending else None
                        yield task, self._lost(task, FileRecord.timed_out(task.name, self.timeout, unresponsive=True))
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
                 presets: tuple[str, ...] = ()) -> FileRecord:
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

    def __init__(self, scheduler: str, timeout: float, max_memory: int, max_size: int = 0,
                 connect_timeout: float = 5.0):
        try:
            import distributed
        except ImportError as e:
            raise ExecutorUnavailable(
                "--executor dask needs dask[distributed]: pip install 'absint[dask]'") from e
        self._distributed = distributed
        self.timeout = timeout
        self.max_memory = max_memory
        self.max_size = max_size
        try:
            self.client = distributed.Client(scheduler, timeout=connect_timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as e:
            raise ExecutorUnavailable(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None

    def run(self, tasks: Sequence[Task]) -> Iterator[tuple[Task, FileRecord]]:
        import uuid

        run_id = uuid.uuid4().hex[:8]
        futures = {}
        digests: dict[int, str] = {}
        try:
            for i, t in enumerate(tasks):
                try:
                    data = read_regular(t.path, self.max_size)  # the same checks as a local worker's
                except UnreadableFile as e:
                    yield t, FileRecord.failed(t.name, str(e))
                    continue
                digests[i] = content_digest(data)
                fut = self.client.submit(dask_analyze, t.name, data, self.timeout, self.max_memory, t.presets,
                                         key=f"absint-{t.name}-{run_id}-{i}", pure=False,
                                         priority=len(tasks) - i)
                futures[fut] = i
            for fut in self._distributed.as_completed(list(futures), loop=self.client.loop):
                t = tasks[futures[fut]]
                try:
                    record = fut.result()
                except Exception as e:  # noqa: BLE001 - a lost task is one file's error
                    record = FileRecord.failed(t.name, f"dask task failed: {type(e).__name__}: {e}")
                yield t, record.with_sha256(digests[futures[fut]])
        finally:
            if futures:
                self.client.cancel(list(futures))
            self.client.close()
