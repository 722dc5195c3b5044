"""What a batch run works on: one task per distinct file, largest first, and what ``--resume`` keeps.

The parent plans from ``stat`` alone: it never holds a file's content (the workers read
it), and hashes a file only where the content decides something (``--resume``, or two
files of one name). A record of an earlier run is kept when its file and SHA-256 are in
this run, except a file whose process died once, which is run again.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from collections import Counter
from typing import Iterable

from absint.batch.executors import Task
from absint.batch.jsonl import read_records
from absint.batch.record import FileRecord, readable
from absint.readers.files import file_sha256


def task_of(path: str, presets: tuple[str, ...] = ()) -> Task:
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
    tasks = [task_of(path, presets) for path in files]
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
