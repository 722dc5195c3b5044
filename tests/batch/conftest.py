"""Fixtures of the batch tests (``absint analyze`` and its JSONL file)."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def analyze():
    """``analyze(*argv) -> int``: ``absint analyze ARGV...`` run in this process (paths and numbers
    as they are: each argument is passed as its ``str``); what it prints is left to ``capsys``."""
    from absint import cli

    def run(*argv) -> int:
        return cli.main(["analyze", *map(str, argv)])

    return run


@pytest.fixture(scope="session")
def by_file():
    """``by_file(jsonl) -> {file name: record}``: the records of a ``--jsonl`` file by base name."""
    from absint.batch import jsonl

    def read(path) -> dict[str, dict]:
        return {os.path.basename(r["file"]): r for r in jsonl.read_records(str(path))}

    return read
