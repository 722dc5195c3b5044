"""The worked examples of the docs pages are the commands' real output: each ``$ absint ...``
line of a page below is run from the repository root and must print exactly the lines
that follow it in the page (the first lines only where the page ends them with ``...``, the
last lines only where it starts them with ``...``;
a command whose line ends ``# timings vary`` or ``# abbreviated`` is not run, nor one that
writes a file or reads one the page has the reader write).

The pages are the command registry's: every command of ``absint/cli/__init__.py: COMMANDS``
has its page ``docs/NAME.md``, with worked examples, named in the README's table of
commands, so a new command cannot ship without one."""

from __future__ import annotations

import os
import shlex

import pytest

from absint.cli import COMMANDS, main
from repo_paths import ROOT

NOT_RUN = ("# timings vary", "# abbreviated", "# not run")


def page_of(command: str) -> str:
    return f"docs/{command}.md"


PAGES = [page_of(c) for c in COMMANDS]


def examples(page: str) -> list[tuple[str, list[str]]]:
    """(command, expected lines) of each ``$ absint`` line in the page's code blocks; its
    expected lines are the rest of its block, up to the next ``$`` line."""
    out: list[tuple[str, list[str]]] = []
    inside, current = False, None
    path = os.path.join(ROOT, page)
    text = open(path).read() if os.path.isfile(path) else ""  # a missing page fails its own test below
    for line in text.splitlines():
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


def commands_without_a_page(commands, root=ROOT) -> dict[str, str]:
    """Each command whose page is missing, or not named in the README, with what is wrong."""
    readme = open(os.path.join(root, "README.md")).read()
    out = {}
    for command in commands:
        page = page_of(command)
        if not os.path.isfile(os.path.join(root, page)):
            out[command] = f"no {page}"
        elif page not in readme:
            out[command] = f"the README does not name {page}"
    return out


def test_every_command_has_a_page_the_readme_names():
    assert commands_without_a_page(COMMANDS) == {}


def test_a_planted_command_without_a_page_is_caught(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "check.md").write_text("# absint check\n")
    (tmp_path / "docs" / "unlisted.md").write_text("# absint unlisted\n")
    (tmp_path / "README.md").write_text("`absint check` (`docs/check.md`)\n")
    planted = {**COMMANDS, "planted": ("absint.cli.planted", "a command shipped without its page")}
    assert commands_without_a_page(planted, tmp_path)["planted"] == "no docs/planted.md"
    assert commands_without_a_page(["check", "unlisted"], tmp_path) == {
        "unlisted": "the README does not name docs/unlisted.md"}
