"""``absint analyze``'s workers run the package the command was started with.

A worker is a new interpreter; started with ``python -c``, it puts the working directory
first on ``sys.path``, so a folder holding another ``absint/`` (an older checkout, say)
would have the workers import that one (issue 37). The test plants an ``absint/`` whose
import raises in the folder the command runs from.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig

from benchmarks import generators as G

PLANTED = 'raise RuntimeError("the planted absint package was imported")\n'


def absint_command() -> list[str]:
    """The installed ``absint`` script (its folder, not the working directory, is first on its
    path); ``python -P -m absint`` where no script is installed (``-P``: no working directory)."""
    script = os.path.join(sysconfig.get_path("scripts"), "absint")
    return [script] if os.access(script, os.X_OK) else [sys.executable, "-P", "-m", "absint"]


def test_analyze_from_a_folder_holding_another_absint_package_uses_the_installed_one(tmp_path):
    (tmp_path / "absint").mkdir()
    (tmp_path / "absint" / "__init__.py").write_text(PLANTED)
    program = G.build("jagged", 6, 1)
    (tmp_path / "prog.smt2").write_text(program.text)
    done = subprocess.run([*absint_command(), "analyze", "prog.smt2", "--jobs", "1", "--json", "--quiet"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert "planted absint package" not in done.stderr
    assert done.returncode == 0, done.stderr
    [record] = json.loads(done.stdout)["files"]
    assert record["error"] is None
    assert len(record["verdicts"]) == record["asserts"] > 0
    assert "T" in record["verdicts"]
