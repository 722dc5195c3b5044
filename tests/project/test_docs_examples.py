"""The worked examples of the docs pages are the commands' real output: each ``$ absint ...``
line of a page below is run from the repository root and must print exactly the lines
that follow it in the page (the first lines only where the page ends them with ``...``, the
last lines only where it starts them with ``...``;
a command whose line ends ``# timings vary`` or ``# abbreviated`` is not run, nor one that
writes a file or reads one the page has the reader write)."""

from __future__ import annotations

import os
import shlex

import pytest

from absint.cli import main
from repo_paths import ROOT

NOT_RUN = ("# timings vary", "# abbreviated", "# not run")
PAGES = [f"docs/{c}.md" for c in ("explain", "check", "bounds", "analyze", "compare", "outputs", "presets", "sample",
                                   "solve", "inputs", "validate")]


def examples(page: str) -> list[tuple[str, list[str]]]:
    """(command, expected lines) of each ``$ absint`` line in the page's code blocks; its
    expected lines are the rest of its block, up to the next ``$`` line."""
    out: list[tuple[str, list[str]]] = []
    inside, current = False, None
    for line in open(os.path.join(ROOT, page)).read().splitlines():
        if line.startswith("```"):
            inside, current = not inside, None
        elif not inside:
            continue
        elif line.startswith("$ absint ") and not line.endswith(NOT_RUN):
            current = (line[2:], [])
            out.append(current)
        elif line.startswith("$ "):
            current = None  # not ours, or its output has timings: not checked
        elif current is not None:
            current[1].append(line)
    return out


CASES = [(page, cmd, expected) for page in PAGES for cmd, expected in examples(page)]


@pytest.mark.parametrize("page,command,expected", CASES, ids=[c for _, c, _ in CASES])
def test_the_page_shows_the_command_s_real_output(page, command, expected, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    main(shlex.split(command)[1:])
    shown = capsys.readouterr().out.splitlines()
    if expected and expected[-1] == "...":
        expected, shown = expected[:-1], shown[:len(expected) - 1]
    elif expected and expected[0] == "...":
        expected, shown = expected[1:], shown[len(shown) - len(expected) + 1:]
    assert shown == expected, page


#: pages whose every example shows CPU times (compare's tables): their output is checked by
#: tests/compare/ instead
TIMED = {"docs/compare.md"}


def test_the_pages_have_examples():
    assert all(examples(page) for page in PAGES if page not in TIMED)
    assert set(PAGES) >= TIMED
