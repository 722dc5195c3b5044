"""The worked examples of the docs pages are the commands' real output: each ``$ absint ...``
line of a page below is run from the repository root and must print exactly the lines
that follow it in the page (the first lines only where the page ends them with ``...``;
a command whose line ends ``# timings vary`` is not run)."""

from __future__ import annotations

import os
import shlex

import pytest

from absint.cli import main
from repo_paths import ROOT

PAGES = ["docs/explain.md", "docs/check.md", "docs/bounds.md", "docs/analyze.md"]


def examples(page: str) -> list[tuple[str, list[str]]]:
    """(command, expected lines) of each ``$ absint`` line in the page's code blocks."""
    out: list[tuple[str, list[str]]] = []
    inside = False
    for line in open(os.path.join(ROOT, page)).read().splitlines():
        if line.startswith("```"):
            inside = not inside
            continue
        if inside and line.startswith("$ absint ") and not line.endswith("# timings vary"):
            out.append((line[2:], []))
        elif inside and line.startswith("$ "):
            out.append(("", []))  # not ours, or its output has timings: not checked
        elif inside and line == "..." and out:
            out[-1][1].append(line)  # the page shows the first lines only
        elif inside and out:
            out[-1][1].append(line)
    return [e for e in out if e[0]]


CASES = [(page, cmd, expected) for page in PAGES for cmd, expected in examples(page)]


@pytest.mark.parametrize("page,command,expected", CASES, ids=[c for _, c, _ in CASES])
def test_the_page_shows_the_command_s_real_output(page, command, expected, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    main(shlex.split(command)[1:])
    shown = capsys.readouterr().out.splitlines()
    if expected and expected[-1] == "...":
        expected, shown = expected[:-1], shown[:len(expected) - 1]
    assert shown == expected, page


def test_the_pages_have_examples():
    assert all(examples(page) for page in PAGES)
