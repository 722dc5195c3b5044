"""The loop every per-file command shares: files, budgets, output, errors and exit code.

A command gives :func:`each_file` a job, ``(path, presets) -> FileOutcome``: what it made of one
file (its JSON record, its text, its messages, how it ended). The runner plans the files
(directories searched for ``*.smt2``, ``-`` for stdin, the presets), runs each job under
the per-file budgets when the command has them (a forked process per file, so one file
over a limit is that file's error line and the command goes on), prints the record
(``--json``) or the text, sends messages to stderr, adds the command's summary line, and
returns the exit code: 0, 1 when a file had a problem, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from typing import Callable, Mapping, Sequence

import attrs

from absint.batch.budgets import budget_problem, warm_up, within_budget
from absint.readers.files import shown

OK, PROBLEM, USAGE = 0, 1, 2


@attrs.frozen(slots=True)
class FileOutcome:
    """One file's result: ``record`` (a JSON object, or a sequence of them: one line each)
    printed under ``--json``, ``lines`` otherwise;
    ``messages`` always go to stderr; ``status`` OK, PROBLEM or USAGE; ``tally``: counts
    the command's summary line adds up over the files."""

    record: Mapping | Sequence[Mapping] | None
    lines: tuple[str, ...] = ()
    messages: tuple[str, ...] = ()
    status: int = OK
    tally: Mapping[str, int] = attrs.field(factory=dict)


Job = Callable[[str, tuple[str, ...]], FileOutcome]
Summary = Callable[[int, Counter], "str | None"]


def each_file(args: argparse.Namespace, command: str, job: Job, *, budgeted: bool = True,
              summary: Summary | None = None) -> int:
    """Run ``job`` on every file ``args.paths`` names; see the module docstring."""
    planned = planned_files(args, command, budgeted)
    if planned is None:
        return USAGE
    files, presets = planned
    if budgeted:  # the presets' facts are built in each file's forked job, from the program it loads
        warm_up(lambda path: job(path, presets))
    status, tally = OK, Counter()
    for path in files:
        outcome = _run(job, path, presets, args) if budgeted else job(path, presets)
        _show(outcome, args)
        status = max(status, outcome.status)
        tally.update(outcome.tally)
        tally["files"] += 1
        tally["problems"] += outcome.status != OK
    line = summary(len(files), tally) if summary is not None and not args.json else None
    if line:
        print(line, flush=True)
    return status


def planned_files(args: argparse.Namespace, command: str,
                  budgeted: bool = True) -> tuple[list[str], tuple[str, ...]] | None:
    """The files a per-file command works on and the presets chosen; None after a usage
    error (bad budget, unknown preset, no file), printed as ``absint COMMAND: ...``: the
    command then exits 2. ``budgeted=False``: a command without the budget options."""
    from absint.presets import option as preset_option
    from absint.readers.files import smt2_files

    problem = budget_problem(args) if budgeted else None
    presets: tuple[str, ...] = ()
    try:
        presets = preset_option.names(args)
    except preset_option.PresetError as e:
        problem = problem or str(e)
    files = smt2_files(args.paths) if problem is None else []
    if problem is None and not files:
        problem = "no .smt2 files found"
    if problem is not None:
        print(f"absint {command}: {problem}", file=sys.stderr)
        return None
    return files, presets


def _run(job: Job, path: str, presets: tuple[str, ...], args: argparse.Namespace) -> FileOutcome:
    outcome, over = within_budget(lambda: job(path, presets), path, args.timeout, args.max_memory)
    if over is not None:
        return FileOutcome({"file": path, "error": over}, messages=(over,), status=PROBLEM)
    return outcome


def _show(outcome: FileOutcome, args: argparse.Namespace) -> None:
    for message in outcome.messages:
        print(shown(message), file=sys.stderr, flush=True)
    if args.json:
        records = [outcome.record] if isinstance(outcome.record, Mapping) else outcome.record or ()
        for record in records:
            print(shown(json.dumps(record)), flush=True)
    elif outcome.lines:
        print(shown("\n".join(outcome.lines)), flush=True)


JSON_HELP = "one JSON object per file and line instead of the text"


def add_paths(parser: argparse.ArgumentParser, epilog: str, metavar: str = "PATH",
              json_help: str | None = None) -> None:
    """The positional files every per-file command takes, its help's worked example, and
    ``--json`` when ``json_help`` is given."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = epilog
    parser.add_argument("paths", nargs="+", metavar=metavar,
                        help=".smt2 files or directories (searched for *.smt2); - reads one program from stdin")
    if json_help is not None:
        parser.add_argument("--json", action="store_true", help=json_help)


def reported(record: Mapping, text: Callable[[], Sequence[str]], error: str | None, usage_error: bool = False,
             tally: Mapping[str, int] | None = None) -> FileOutcome:
    """The usual outcome of a file's report: its text when it has no error; else the error on
    stderr, a USAGE status when the error is the user's (a --symbol the file lacks, ...)."""
    tally = dict(tally or {})
    if error is None:
        return FileOutcome(record, tuple(text()), (), OK, tally)
    return FileOutcome(record, (), (error,), USAGE if usage_error else PROBLEM, tally)


def files_with_errors(n: int, tally: Counter) -> str | None:
    """The usual summary line: ``N file(s), K with an error``, for more than one file."""
    return f"{n} file(s), {tally['problems']} with an error" if n > 1 else None
