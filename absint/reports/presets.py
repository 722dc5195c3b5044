"""One file's ``absint presets`` report: per preset, the guards left open and the inputs excluded.

See :mod:`absint.presets.explore` for what is computed and :mod:`absint.presets.facts` for
the presets themselves; this is one file of it, read in a fresh term table, with its
asserts' positions for the table.
"""

from __future__ import annotations

import attrs

from absint.lang import terms as T
from absint.lang.program import Program
from absint.presets.explore import PresetRow, explore
from absint.readers.files import load_program
from absint.reports.bounds import one_line


@attrs.frozen(slots=True)
class PresetsReport:
    file: str
    asserts: int = 0
    rows: tuple[PresetRow, ...] = ()
    positions: tuple[str, ...] = ()  # of the asserts, for the table
    error: str | None = None

    def to_json(self) -> dict:
        return {"file": self.file, "asserts": self.asserts, "rows": [r.to_json() for r in self.rows],
                "error": self.error}


def report_program(program: Program, combinations, search: bool = True, file: str | None = None) -> PresetsReport:
    positions = tuple(str(f.position or f.index + 1) for f in program.facts)
    rows = explore(program, combinations, search)
    return PresetsReport(program.name if file is None else file, len(program.facts), tuple(rows), positions)


def report_file(path: str, combinations, search: bool = True) -> PresetsReport:
    """One file's report, read in a fresh term table; never raises for a bad file. Only a
    regular file is read (``readers.files.load_program``)."""
    try:
        with T.fresh_table():
            loaded = load_program(path, label=path)
            if loaded.program is None:
                return PresetsReport(path, error=one_line(str(loaded.error)))
            return report_program(loaded.program, combinations, search, file=path)
    except Exception as e:  # a bug of ours: the other files are still reported
        return PresetsReport(path, error=one_line(f"{path}: internal error: {type(e).__name__}: {e}"))
