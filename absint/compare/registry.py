"""The one table of the oracles ``absint compare`` knows: a new oracle is a module with
``from_args(args) -> Oracle`` and one row here.

Modules are imported only when their oracle is chosen, so a missing optional extra (z3,
torch) only matters to the comparison that needs it.
"""

from __future__ import annotations

import importlib
from typing import Iterable

from absint.compare.oracle import Oracle

ORACLES: dict[str, str] = {
    "absint": "absint.compare.absint_oracle",
    "z3": "absint.compare.z3_oracle",
    "shapeenv": "absint.compare.shapeenv_oracle",
}
#: the reasoner under test: always runs, first; the others are compared with it
SUBJECT = "absint"


def against_choices() -> tuple[str, ...]:
    """What ``--against`` accepts: every oracle but the subject, in table order."""
    return tuple(name for name in ORACLES if name != SUBJECT)


def load(name: str, args) -> Oracle:
    """The oracle ``name`` configured from the command line's ``args``."""
    return importlib.import_module(ORACLES[name]).from_args(args)


def build(against: Iterable[str], args) -> tuple[Oracle, ...]:
    """The subject and the chosen oracles, in table order, each checked to be installed
    (:class:`~absint.compare.oracle.MissingExtra` names the first that is not)."""
    chosen = {SUBJECT, *against}
    oracles = tuple(load(name, args) for name in ORACLES if name in chosen)
    for oracle in oracles:
        oracle.require()
    return oracles
