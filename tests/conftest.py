"""What the test folders share.

The folders mirror the packages (``tests/lang/`` tests ``absint/lang/``, ...) and hold no
``__init__.py``: pytest imports each test module by its file name, so file names are unique
across folders. The helpers in ``tests/support/`` (``programs.py``, ``term_strategies.py``,
``z3_check.py``, ``verdict_checks.py``, ``domain_laws.py``, ``torch_programs.py``,
``repo_paths.py``) are imported by
name from any folder: ``tests/support`` is on the import path (``pythonpath`` in
pyproject.toml); ``tests/`` itself is not, so no test folder (``tests/torch/``) can stand in
for a package of its name.

The fixtures below are the helpers several test modules used to define for themselves: a
program file written to the test's temporary directory, a command run in process with its
output, a reasoner told some facts, and the shared corpus (skipped, with the reason, when
``../shared`` is absent).
"""

from __future__ import annotations


import pytest
from repo_paths import CORPUS, REFERENCE



@pytest.fixture
def write_program(tmp_path):
    """``write_program(name, text) -> str``: ``text`` written to ``tmp_path / name``, whose path
    is returned as a string (what the commands take)."""
    def write(name: str, text: str) -> str:
        path = tmp_path / name
        path.write_text(text)
        return str(path)

    return write


@pytest.fixture
def run_cli(capsys):
    """``run_cli(command, *argv) -> (exit status, stdout, stderr)``: ``absint COMMAND ARGV...`` run
    in this process; the output is what the command printed since the last read of ``capsys``."""
    from absint.cli import main

    def run(command: str, *argv: str) -> tuple[int, str, str]:
        code = main([command, *argv])
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture(scope="session")
def reasoner_with():
    """``reasoner_with(*facts, **options) -> Reasoner``: a fresh ``Reasoner(**options)`` that has
    assumed ``facts`` in order. Session-scoped, so hypothesis tests may take it too (the
    reasoners it makes are each test's own)."""
    from absint.reasoning.reasoner import Reasoner

    def make(*facts, **options) -> Reasoner:
        r = Reasoner(**options)
        for f in facts:
            r.assume(f)
        return r

    return make


@pytest.fixture(scope="session")
def corpus() -> Path:
    """``../shared/corpus``, the development corpus (``*.smt2``); a test that takes it is skipped,
    with the path looked at, when it is absent."""
    if not CORPUS.is_dir():
        pytest.skip(f"../shared/corpus is absent ({CORPUS} is not a directory): the corpus tests need the shared data")
    return CORPUS


@pytest.fixture(scope="session")
def z3_reference(corpus) -> Path:
    """``../shared/reference/z3_dev.txt``, Z3's verdicts on every corpus file; skipped when absent."""
    if not REFERENCE.is_file():
        pytest.skip(f"../shared/reference is absent ({REFERENCE} is not a file): the corpus tests need the shared data")
    return REFERENCE
