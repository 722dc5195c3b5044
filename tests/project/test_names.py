"""One name per thing: no two classes of ``absint`` share a name.

Four classes named ``Outcome`` (a forked job's, a command's file, an oracle's, a search's)
made a reader open each import to learn which one a signature meant; a class name is
read without its module far more often than with it.
"""

from __future__ import annotations

import ast
from collections import defaultdict

from repo_paths import ROOT


def classes_named_twice(sources: dict[str, str]) -> dict[str, list[str]]:
    """Class names defined at the top level of more than one module, each with its modules."""
    where: dict[str, list[str]] = defaultdict(list)
    for module, text in sources.items():
        for node in ast.parse(text).body:
            if isinstance(node, ast.ClassDef):
                where[node.name].append(module)
    return {name: modules for name, modules in where.items() if len(modules) > 1}


def _absint_sources() -> dict[str, str]:
    return {str(p.relative_to(ROOT)): p.read_text() for p in sorted((ROOT / "absint").rglob("*.py"))}


def test_no_two_classes_share_a_name():
    assert classes_named_twice(_absint_sources()) == {}


def test_the_name_check_finds_a_planted_second_class():
    sources = _absint_sources()
    sources["absint/planted.py"] = "import attrs\n\n\n@attrs.frozen\nclass FileOutcome:\n    ok: bool\n"
    assert classes_named_twice(sources) == {"FileOutcome": ["absint/cli/runner.py", "absint/planted.py"]}


def test_a_class_inside_a_function_is_not_counted():
    assert classes_named_twice({"a": "class A:\n    pass\n", "b": "def f():\n    class A:\n        pass\n"}) == {}
