"""What an oracle of ``absint compare`` is: a reasoner that says, for each assert of a file,
whether the asserts before it imply it (``T``), refute it (``F``), or neither.

absint itself, Z3 and PyTorch's ShapeEnv are oracles (:mod:`absint.compare.registry` is
the one table of them). Every oracle receives a file as a :class:`Case`, read and parsed
once, and gives an :class:`OracleOutcome`. The summary and the renderers ask the oracle only for
what is its own (a title, a line style, extra totals, notes); the rest is generic, so a new
oracle is one module and one row of the registry.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Protocol

import attrs

from absint.readers.files import LoadedFile


class MissingExtra(RuntimeError):
    """An optional dependency is not installed; ``str(err)`` says how to install it."""


@attrs.frozen(slots=True)
class Answers:
    """One oracle's letters on one file (one per assert) and its CPU seconds, per assert and
    in total; ``details`` holds the oracle's own figures, read only by its own methods."""

    letters: str
    per_assert: tuple[float, ...]
    seconds: float
    details: Mapping[str, Any] = attrs.field(factory=dict)


@attrs.frozen(slots=True)
class Case:
    """One file as every oracle receives it. ``absint`` is absint's answers (None while absint
    itself runs): what a referee checks and what tells Z3 which models to keep."""

    loaded: LoadedFile
    absint: Answers | None = None


@attrs.frozen(slots=True)
class OracleOutcome:
    """One oracle on one file: its answers (None when it could not read the file), the
    problems it saw, and, from a referee, the absint verdicts it contradicts (``unsound``)
    or could not check (``gave_up``)."""

    answers: Answers | None
    problems: tuple[str, ...] = ()
    unsound: tuple[dict[str, Any], ...] = ()
    gave_up: tuple[dict[str, Any], ...] = ()


class Oracle(Protocol):
    """A reasoner that ``absint compare`` runs on every file; subclass it to inherit the
    defaults. The class attributes are what the tables and the plot call it."""

    name: ClassVar[str]  # the --against value; the key in rows, summary.json, asserts.csv
    title: ClassVar[str]  # in tables
    full_title: ClassVar[str]  # in the Markdown heading ("PyTorch's ShapeEnv"); default: title
    line_style: ClassVar[tuple[str, str]]  # colour and dash in the cactus plot
    version_label: ClassVar[str]  # how the versions line names its software ("torch"); default: title
    confusion_columns: ClassVar[str] = "TF?"  # columns a confusion matrix against it always has
    referee: ClassVar[bool] = False  # does it check absint's verdicts (unsound, gave up)?

    def __init_subclass__(cls, **kwargs) -> None:
        """An oracle that names itself one way everywhere states only its ``title``."""
        super().__init_subclass__(**kwargs)
        for attribute in ("full_title", "version_label"):
            if "title" in vars(cls) and attribute not in vars(cls):
                setattr(cls, attribute, cls.title)

    def require(self) -> None:
        """Raise :class:`MissingExtra`, naming the pip command, when it cannot run here."""

    def version(self) -> str:
        """Its software's version; an exception leaves it out of the summary."""
        raise NotImplementedError

    def select(self, files: list[str]) -> list[str]:
        """The files it runs on (all unless the command line asks for a sample)."""
        return files

    def warm_up(self, case: Case) -> None:
        """Run once on a tiny file so that lazy imports are not charged to the first file."""
        self.run(case)

    def run(self, case: Case) -> OracleOutcome:
        """Its letters and CPU seconds on one file."""
        raise NotImplementedError

    def totals(self, answers: list[Answers]) -> dict[str, Any]:
        """Its own fields in summary.json's totals, over the files it answered."""
        return {}

    def file_fields(self, answers: Answers) -> dict[str, Any]:
        """Its own fields in summary.json's entry of one file."""
        return {}

    def notes(self, totals: Mapping[str, Any]) -> list[str]:
        """Lines printed under the terminal's tables."""
        return []

    def markdown_note(self, summary: Mapping[str, Any], files: int) -> str:
        """The paragraph that opens its section of the Markdown (``files``: all files compared)."""
        return ""
