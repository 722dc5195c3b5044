"""The values a diagnosis passes around, plain and JSON-able (a child process streams them
to its parent, which may have to report a run that never finished). Torch-free."""

from __future__ import annotations

import attrs


@attrs.frozen(slots=True)
class Check:
    """A fact that decides a question, as a line to paste: ``statement`` (``torch._check(a
    <= c)``; None when it cannot be written in the frame's variables) before ``line`` of
    ``file`` at ``indent``; ``fact`` as shown; ``kind`` (:data:`absint.missing.KINDS`);
    ``pytorch``: PyTorch's own evaluation decides the question with it too."""

    key: str
    file: str | None
    line: int | None
    indent: int
    statement: str | None
    fact: str
    kind: str
    pytorch: bool

    @property
    def pasteable(self) -> bool:
        return self.statement is not None

    def to_json(self) -> dict:
        return attrs.asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> "Check":
        return cls(**d)


@attrs.frozen(slots=True)
class Question:
    """A question neither PyTorch nor absint decided, where the trace went the example's
    way: ``needed`` the fact that way (sympy), ``text`` the same in the user's variables
    (None when they do not name it), ``kind`` ``guard`` (a data-dependent error) or
    ``specialization`` (an unbacked value made a constant); the user's ``file:line`` and
    function; ``origins`` of its symbols; ``checks`` that decide it."""

    index: int
    kind: str
    needed: str
    text: str | None
    file: str | None
    line: int | None
    function: str | None
    origins: tuple[str, ...]
    checks: tuple[Check, ...]
    repeats: int = 1

    @property
    def place(self) -> tuple:
        return (self.file, self.line)

    def shown(self) -> str:
        return self.text if self.text is not None else self.needed

    def to_json(self) -> dict:
        d = attrs.asdict(self, recurse=False)
        d["origins"] = list(self.origins)
        d["checks"] = [c.to_json() for c in self.checks]
        return d

    @classmethod
    def from_json(cls, d: dict) -> "Question":
        return cls(**{**d, "origins": tuple(d["origins"]), "checks": tuple(Check.from_json(c) for c in d["checks"])})


@attrs.frozen(slots=True)
class Run:
    """One run of the script: with absint or not, with which checks pasted (their keys);
    ``status``: ``finished``, ``error`` (the script's own), ``stopped`` (a data-dependent
    error the trace could not go past), ``timeout``; ``message`` says what happened;
    ``traced``: ShapeEnvs made (0: nothing was exported or compiled)."""

    absint: bool
    pasted: tuple[str, ...]
    status: str
    message: str | None
    traced: int
    questions: tuple[Question, ...]
    errors: tuple[str, ...] = ()  # absint's own failures working out a question's checks
    culprit: str | None = None  # the key of the pasted check an error was raised at

    @property
    def clean(self) -> bool:
        return self.status == "finished" and not self.questions and self.traced > 0

    def to_json(self) -> dict:
        d = attrs.asdict(self, recurse=False)
        d["pasted"] = list(self.pasted)
        d["questions"] = [q.to_json() for q in self.questions]
        d["errors"] = list(self.errors)
        return d

    @classmethod
    def from_json(cls, d: dict) -> "Run":
        return cls(**{**d, "pasted": tuple(d["pasted"]), "errors": tuple(d.get("errors", ())),
                      "questions": tuple(Question.from_json(q) for q in d["questions"])})


@attrs.frozen(slots=True)
class Suggestion:
    """A chosen check and the questions it decides (their indices in the run they came
    from); ``without_absint``: needed only when exporting without absint."""

    check: Check
    covers: tuple[int, ...]
    run: int = 0  # the run whose questions ``covers`` numbers
    without_absint: bool = False

    def to_json(self) -> dict:
        return {"check": self.check.to_json(), "covers": list(self.covers), "run": self.run,
                "without_absint": self.without_absint}

    @classmethod
    def from_json(cls, d: dict) -> "Suggestion":
        return cls(Check.from_json(d["check"]), tuple(d["covers"]), d["run"], d["without_absint"])


@attrs.frozen(slots=True)
class Diagnosis:
    """The runs (the first with absint and nothing pasted; then each with the suggestions
    so far pasted), the suggestions, and whether the last run with absint (``verified``)
    and the last without it (``verified_without_absint``) had no question left; None
    where no such run was made."""

    script: str
    argv: tuple[str, ...]
    runs: tuple[Run, ...]
    suggestions: tuple[Suggestion, ...]
    verified: bool | None
    verified_without_absint: bool | None

    def to_json(self) -> dict:
        return {"script": self.script, "argv": list(self.argv), "runs": [r.to_json() for r in self.runs],
                "suggestions": [s.to_json() for s in self.suggestions], "verified": self.verified,
                "verified_without_absint": self.verified_without_absint}

    @classmethod
    def from_json(cls, d: dict) -> "Diagnosis":
        return cls(d["script"], tuple(d["argv"]), tuple(Run.from_json(r) for r in d["runs"]),
                   tuple(Suggestion.from_json(s) for s in d["suggestions"]), d["verified"],
                   d["verified_without_absint"])
