"""The record of one file (``absint analyze --jsonl``): one type, built here and nowhere else.

The record is a contract that later tools and users read. Its keys, in this
order: ``file`` (the path as given), ``asserts``, ``verdicts`` (one letter per assert:
``T`` implied by the earlier asserts, ``F`` refuted by them, ``?`` not decided),
``seconds`` (CPU, parse included), ``error`` (null or the message); then,
only in a run with ``--preset``, ``presets`` (the names whose facts were
assumed ahead of the asserts); then ``sha256`` (absent when the file could not
be read); then ``preset_refused`` (true) only when a preset fact is false at the
example point (``error`` then names the fact and the file is not analysed); then, only when the
program was analysed, ``parse_seconds``, ``layers`` (verdicts per deciding
layer), ``contradiction`` (index of the assert after which the facts became
contradictory, or null) and ``example_violations`` (asserts whose verdict is
contradicted by the example point: must be empty), and ``warning`` where
there is one (``example point violates assert N: hints inconsistent``: the
file's hints break one of its own asserts, so its verdicts are checked only up
to that assert), and ``assert_errors`` where an internal error left asserts undecided
(``[{"index", "error"}]``: that assert is ``?``, the others keep their verdicts; an error
while assuming one leaves the asserts after it ``?``). Last, ``attempts`` (2) on the
record of a file whose process died again when ``--resume`` retried it.

Keeping the producers on one class is what keeps the JSON the same whichever
path (analysis, parse error, timeout, dead worker, Dask) made a record.
"""

from __future__ import annotations

from typing import Any, Mapping

import attrs

Json = dict[str, Any]


def readable(text: str) -> str:
    """``text`` as valid Unicode: a file name's undecodable bytes (``os.fsdecode``'s surrogate
    escapes) become ``\\xff``, so the record can be written as UTF-8 and still names the file."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        try:
            raw = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # surrogates that no file name produced
            raw = text.encode("utf-8", "backslashreplace")
        return raw.decode("utf-8", "backslashreplace")


def _readable_or_none(text: str | None) -> str | None:
    return None if text is None else readable(str(text))


def _pairs(layers: Mapping[str, int] | tuple = ()) -> tuple[tuple[str, int], ...]:
    """Layers as ordered pairs: immutable, and the JSON keeps the order they were counted in."""
    return tuple(layers.items()) if isinstance(layers, Mapping) else tuple(tuple(p) for p in layers)


@attrs.frozen(slots=True)
class FileRecord:
    """One file's outcome; ``parse_seconds is None`` means the program was not analysed."""

    file: str = attrs.field(converter=readable)
    asserts: int = 0
    verdicts: str = ""
    seconds: float = 0.0
    error: str | None = attrs.field(default=None, converter=_readable_or_none)
    sha256: str | None = None
    parse_seconds: float | None = None
    layers: tuple[tuple[str, int], ...] = attrs.field(default=(), converter=_pairs)
    contradiction: int | None = None
    example_violations: tuple[int, ...] = attrs.field(default=(), converter=tuple)
    warning: str | None = None
    attempts: int = 1
    presets: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    preset_refused: bool = False
    assert_errors: tuple[tuple[int, str], ...] = attrs.field(default=(), converter=lambda v: tuple(map(tuple, v)))

    # ------------------------------------------------------------ constructors

    @classmethod
    def failed(cls, file: str, reason: str, seconds: float = 0.0, sha256: str | None = None) -> "FileRecord":
        """A file that produced no analysis (unreadable, unparsable, or its process failed)."""
        return cls(file, seconds=round(seconds, 6), error=reason, sha256=sha256)

    @classmethod
    def timed_out(cls, file: str, timeout: float, seconds: float = 0.0, unresponsive: bool = False) -> "FileRecord":
        return cls.failed(file, timeout_reason(timeout) + (" (worker unresponsive)" if unresponsive else ""),
                          seconds)

    @classmethod
    def out_of_memory(cls, file: str, max_memory: int, seconds: float = 0.0) -> "FileRecord":
        return cls.failed(file, memory_reason(max_memory), seconds)

    @classmethod
    def died(cls, file: str, reason: str, seconds: float = 0.0) -> "FileRecord":
        """A worker or analysis process that died; ``reason`` from :func:`death_reason`."""
        return cls.failed(file, reason, seconds)

    @classmethod
    def refused(cls, file: str, asserts: int, reason: str, presets: tuple[str, ...], seconds: float = 0.0,
                sha256: str | None = None) -> "FileRecord":
        """A file not analysed because a ``--preset`` fact is false at its example point."""
        return cls(file, asserts, seconds=round(seconds, 6), error=reason, sha256=sha256, presets=presets,
                   preset_refused=True)

    def as_given(self, file: str) -> "FileRecord":
        """The record under the name the user gave its file (``-`` for standard input)."""
        return self if file == self.file else attrs.evolve(self, file=file)

    def with_presets(self, presets: tuple[str, ...]) -> "FileRecord":
        """The record as made under ``presets`` (also a record the parent made: timeout, death)."""
        presets = tuple(presets)
        return self if presets == self.presets else attrs.evolve(self, presets=presets)

    def with_sha256(self, sha256: str | None) -> "FileRecord":
        """The parent knows the content hash even when the analysis could not report it."""
        if self.sha256 is not None or sha256 is None:
            return self
        return attrs.evolve(self, sha256=sha256)

    # ------------------------------------------------------------ reading

    @property
    def analysed(self) -> bool:
        return self.parse_seconds is not None

    @property
    def is_death(self) -> bool:
        """The process analysing the file died (a signal, an exit): maybe the machine, not the file."""
        return (self.error or "").startswith(DEATH)

    def after_attempts(self, attempts: int) -> "FileRecord":
        """This outcome of the ``attempts``-th try; only a death records how many tries it took."""
        return attrs.evolve(self, attempts=attempts) if self.is_death and attempts > 1 else self

    @property
    def is_timeout(self) -> bool:
        return (self.error or "").startswith("timeout:")

    @property
    def key(self) -> tuple[str, str]:
        """How the results file is ordered and resumed runs match records: name, then content hash."""
        return (self.file, self.sha256 or "")

    # ------------------------------------------------------------ JSON

    def to_json(self) -> Json:
        """The JSON object of the contract: keys in the documented order, optional ones absent."""
        out: Json = {"file": self.file, "asserts": self.asserts, "verdicts": self.verdicts,
                     "seconds": self.seconds, "error": self.error}
        if self.presets:
            out["presets"] = list(self.presets)
        if self.sha256 is not None:
            out["sha256"] = self.sha256
        if self.preset_refused:
            out["preset_refused"] = True
        if self.analysed:
            out.update(parse_seconds=self.parse_seconds, layers=dict(self.layers),
                       contradiction=self.contradiction, example_violations=list(self.example_violations))
        if self.warning is not None:
            out["warning"] = self.warning
        if self.assert_errors:
            out["assert_errors"] = [{"index": i, "error": e} for i, e in self.assert_errors]
        if self.attempts > 1:
            out["attempts"] = self.attempts
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "FileRecord":
        """A record read back from a results file; ``ValueError`` if it is not one."""
        try:
            return cls(
                str(obj["file"]), int(obj.get("asserts") or 0), str(obj.get("verdicts") or ""),
                obj.get("seconds", 0.0), obj.get("error"), obj.get("sha256"), obj.get("parse_seconds"),
                obj.get("layers") or (), obj.get("contradiction"), obj.get("example_violations") or (),
                obj.get("warning"), int(obj.get("attempts") or 1),
                tuple(str(p) for p in obj.get("presets") or ()), bool(obj.get("preset_refused")),
                tuple((int(e["index"]), str(e["error"])) for e in obj.get("assert_errors") or ()),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise ValueError(f"not a file record: {e}") from None


DEATH = "worker died"


def timeout_reason(timeout: float) -> str:
    return f"timeout: exceeded {timeout:g} s"


def memory_reason(max_memory: int) -> str:
    return f"memory limit exceeded ({max_memory} MB)"
