"""Per-file budgets, the same on every command: ``--timeout``, ``--max-memory``, ``--max-file-size``.

One file must not stop a command over many: each file's work runs in a forked
process (:func:`absint.batch.executors.run_forked`, the machinery ``analyze``'s
workers use), killed past the time limit and failing past the memory limit,
while the command goes on with the next file. The options are shared here, as
:mod:`absint.presets.option` shares ``--preset``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from typing import Callable, TypeVar

from absint.batch.executors import FAULT_ENV, WARM_UP, parse_faults, run_forked, warm
from absint.readers.files import DEFAULT_MAX_FILE_SIZE, MB

DEFAULT_TIMEOUT = 300.0  # seconds per file; the slowest corpus file takes about 2 s
DEFAULT_MAX_MEMORY = 4096  # MB per file

T = TypeVar("T")


def add_budget_arguments(parser: argparse.ArgumentParser) -> None:
    """``--timeout``, ``--max-memory`` and ``--max-file-size``, with the same defaults everywhere."""
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S",
                        help="wall-clock limit per file in seconds, 0 for none (default %(default)g)")
    parser.add_argument("--max-memory", type=int, default=DEFAULT_MAX_MEMORY, metavar="MB",
                        help="address-space limit of the process working on a file, 0 for none "
                             "(default %(default)s)")
    parser.add_argument("--max-file-size", type=int, default=DEFAULT_MAX_FILE_SIZE, metavar="MB",
                        help="a larger file is not read (an error for that file), 0 for no limit "
                             "(default %(default)s)")


def budget_problem(args: argparse.Namespace) -> str | None:
    """The usage error in the budget options, if any."""
    if args.timeout < 0 or args.max_memory < 0 or args.max_file_size < 0:
        return "--timeout, --max-memory and --max-file-size must be >= 0"
    return None


def max_size(args: argparse.Namespace) -> int:
    """``--max-file-size`` in bytes (0: no limit)."""
    return args.max_file_size * MB


def warm_up(job: Callable[[str], object]) -> None:
    """Run ``job`` once, here, on a tiny program (:func:`~absint.batch.executors.warm`): each
    file's forked process then inherits the imports and first-call set-up instead of paying
    for them again, and its collector does not copy the frozen objects' pages."""
    def on_warm_up_file() -> None:
        with tempfile.TemporaryDirectory(prefix="absint-") as d:
            path = os.path.join(d, "warm-up.smt2")
            with open(path, "wb") as f:
                f.write(WARM_UP)
            job(path)

    warm(on_warm_up_file)


def within_budget(job: Callable[[], T], name: str, timeout: float,
                  max_memory: int) -> tuple[T | None, str | None]:
    """``job()`` in a forked process under the budgets (``timeout`` seconds, 0: none;
    ``max_memory`` MB, 0: none): ``(value, None)``, or ``(None, message)`` with the message
    ``NAME: timeout after N s`` (``memory limit exceeded (N MB)``, ...).

    ``ABSINT_FAULT_INJECTION`` applies, by base name, as in ``analyze`` (tests only).
    """
    fault = parse_faults(os.environ.get(FAULT_ENV)).get(os.path.basename(name))
    out = run_forked(job, timeout, max_memory, fault)
    if out.kind == "ok":
        return out.value, None
    return None, f"{name}: {out.message(timeout)}"
