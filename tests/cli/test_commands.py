"""The command line is a thin layer: each ``absint/cli/`` module parses its options, calls the
library (``absint/batch/run.py``, ``absint/reports/``, ``absint/explain.py``, ...) and prints.

Batch logic (planning, resume, executors, the results file, processes and signals) and the
values a command reports live below it; these tests fail when a command module grows them
again, and each check is shown to catch a planted module.
"""

from __future__ import annotations

import ast

import pytest
from repo_paths import ROOT

CLI = ROOT / "absint" / "cli"
#: what a command may use of the batch package: the run itself, the shared budget options
#: (and within_budget, which the per-file runner calls) and the records it prints
BATCH_ALLOWED = {"absint.batch.run", "absint.batch.budgets", "absint.batch.record"}
#: starting, stopping, signalling or waiting for processes and threads is the batch run's job
PROCESS_MODULES = {"signal", "threading", "multiprocessing", "subprocess", "resource", "select", "socket",
                   "concurrent.futures"}
#: lines of functions and classes in one command module, ``add_arguments`` (option declarations)
#: aside: the largest, analyze (progress bar, summary table, --asserts), has about 150; with the
#: batch run it held before, over 400
MAX_CODE_LINES = 160


def _imported(tree: ast.AST) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def _is_report(node: ast.ClassDef) -> bool:
    """An attrs or dataclass value with ``to_json``: a report or record, which the library
    makes (the runner's own value, what to print for a file, has no JSON of its own)."""
    value = any(ast.unparse(d).startswith(("attrs.", "attr.", "dataclass", "dataclasses."))
                for d in node.decorator_list)
    return value and any(isinstance(f, ast.FunctionDef) and f.name == "to_json" for f in node.body)


def batch_logic(source: str) -> list[str]:
    """What in a command module's ``source`` is batch logic or library values (empty: none)."""
    tree = ast.parse(source)
    out = []
    for name in sorted(_imported(tree)):
        if name.startswith("absint.batch.") and name.count(".") == 2 and name not in BATCH_ALLOWED:
            out.append(f"imports {name}")
        if name in PROCESS_MODULES:
            out.append(f"imports {name}")
    out += [f"defines the report {n.name}" for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and _is_report(n)]
    lines = sum(n.end_lineno - n.lineno + 1 for n in tree.body
                if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name != "add_arguments")
    if lines > MAX_CODE_LINES:
        out.append(f"{lines} lines of code (at most {MAX_CODE_LINES})")
    return out


@pytest.mark.parametrize("path", sorted(CLI.glob("*.py")), ids=lambda p: p.name)
def test_a_command_module_holds_no_batch_logic(path):
    assert batch_logic(path.read_text()) == []


PLANTED = '''
import signal
import attrs
from absint.batch.plan import plan
from absint.batch.jsonl import JsonlSink
from absint.batch.run import run_batch

@attrs.frozen
class Report:
    file: str

    def to_json(self):
        return {"file": self.file}


@attrs.frozen
class Shown:
    lines: tuple
'''


def test_the_check_finds_planted_batch_logic():
    assert batch_logic(PLANTED) == ["imports absint.batch.jsonl", "imports absint.batch.plan", "imports signal",
                                    "defines the report Report"]
    long = "def run(args):\n" + "    x = 1\n" * MAX_CODE_LINES
    assert batch_logic(long) == [f"{MAX_CODE_LINES + 1} lines of code (at most {MAX_CODE_LINES})"]
    assert batch_logic("def add_arguments(parser):\n" + "    x = 1\n" * MAX_CODE_LINES) == []
