"""Where the repository's files are, for a test module at any depth of ``tests/``.

Test modules sit in folders that mirror the packages (``tests/lang/``, ``tests/batch/``, ...),
so a path computed from a module's own ``__file__`` changes meaning when the module moves;
every such path is computed here, from this file's place, once.
"""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent  # the repository: absint/, domains/, benchmarks/, docs/, examples/
DATA = TESTS / "data"
DOCS = ROOT / "docs"
EXAMPLES = ROOT / "examples"
#: ``../shared`` beside the repository (read-only, optional): the development corpus and Z3's answers on it
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"
REFERENCE = SHARED / "reference" / "z3_dev.txt"
