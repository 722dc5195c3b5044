"""One file's ``absint inputs`` report: which inputs pass every assert of a program, described.

The description (:mod:`absint.inputs.description`) is equivalent to the conjunction of
the asserts; ``within`` adds the asserts that can fail inside declared ranges, each with
a counterexample the evaluator checked (:mod:`absint.inputs.within`); ``export`` the
description as ``torch.export`` takes it (:mod:`absint.inputs.export`).
"""

from __future__ import annotations

import time

import attrs

from absint.inputs.description import ValidInputs, describe_program, readable_smtlib
from absint.inputs.export import export_text
from absint.inputs.within import BadDeclaration, Violation, violations
from absint.lang import terms as T
from absint.presets import facts as preset_facts
from absint.readers.files import load_program


@attrs.frozen(slots=True)
class FileInputs:
    """One file's report."""

    file: str
    description: ValidInputs | None = None
    found: tuple[Violation, ...] = ()
    undecided: tuple[Violation, ...] = ()
    export: str | None = None
    seconds: float = 0.0
    error: str | None = None
    usage_error: bool = False
    #: with --preset: the names and the facts assumed (SMT-LIB); None without --preset
    presets: tuple[tuple[str, ...], tuple[str, ...]] | None = None

    def to_json(self, within: bool) -> dict:
        d = {"file": self.file}
        if self.description is not None:
            d.update(self.description.to_json())
            d["size"] = self.description.size
        if self.presets is not None:
            d["presets"] = {"names": list(self.presets[0]), "facts": list(self.presets[1])}
        if within:
            d["violations"] = [v.to_json() for v in self.found]
            d["undecided"] = [v.to_json() for v in self.undecided]
        if self.export is not None:
            d["export"] = self.export
        d["seconds"] = round(self.seconds, 4)
        d["error"] = self.error
        return d


def inputs_of_file(path: str, within: dict | None = None, export: bool = False,
                   presets: tuple[str, ...] = ()) -> FileInputs:
    """One file's report; never raises for a bad file (the error is in the report).
    With ``presets``, their facts are assumed ahead of the asserts (checked at the
    example point first: a refused preset is the file's error, a usage error)."""
    start = time.process_time()
    with T.fresh_table():
        loaded = load_program(path, label=path)
        if not loaded.ok:
            return FileInputs(path, error=" ".join(loaded.error.split()))
        try:
            facts = preset_facts.checked_facts(loaded.program, presets)
            assumed = [f.term for f in facts]
            d = describe_program(loaded.program, assumed)
            follow = preset_facts.followers(loaded.program, presets, within or ())
            found, undecided = violations(loaded.program, within, assumed=assumed, followers=follow) \
                if within else ([], [])
            unbacked = frozenset(s.name for s in loaded.program.symbols if not s.backed)
            text = export_text(d, path, unbacked) if export else None
        except preset_facts.PresetRefused as e:
            return FileInputs(path, error=f"{path}: {e}", usage_error=True)
        except BadDeclaration as e:
            return FileInputs(path, error=f"{path}: --within: {e}", usage_error=True)
        except Exception as e:  # a bug of ours: the other files are still reported
            return FileInputs(path, error=" ".join(f"{path}: internal error: {type(e).__name__}: {e}".split()))
        shown = (tuple(presets), tuple(readable_smtlib(f.term) for f in facts)) if presets else None
        return FileInputs(path, d, tuple(found), tuple(undecided), text, time.process_time() - start,
                          presets=shown)
