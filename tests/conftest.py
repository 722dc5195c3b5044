"""What the test folders share.

The folders mirror the packages (``tests/lang/`` tests ``absint/lang/``, ...) and hold no
``__init__.py``: pytest imports each test module by its file name, so file names are unique
across folders. The helpers beside this file (``programs.py``, ``term_strategies.py``,
``z3_check.py``, ``domain_laws.py``, ``torch_programs.py``, ``repo_paths.py``) are imported by
name from any folder: ``tests/`` is on the import path (``pythonpath`` in pyproject.toml).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _hide_test_folders_from_imports() -> None:
    """With ``tests/`` on the import path, a folder of it is a namespace package of its name,
    found when nothing installed has that name: without torch, ``import torch`` would find
    ``tests/torch/`` and ``pytest.importorskip("torch")`` would not skip. A name that only a
    test folder provides is made unimportable; an installed package (torch, domains) still
    wins over the folder, as regular packages always do."""
    for folder in TESTS.iterdir():
        if not folder.is_dir() or folder.name.startswith((".", "_")) or folder.name in sys.modules:
            continue
        spec = importlib.util.find_spec(folder.name)
        if spec is not None and spec.origin is None and all(
                Path(p).resolve().parent == TESTS for p in spec.submodule_search_locations or ()):
            sys.modules[folder.name] = None  # import raises ModuleNotFoundError, as without the folder


_hide_test_folders_from_imports()
