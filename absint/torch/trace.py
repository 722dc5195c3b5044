"""Traces of the client's sessions as JSONL, and their replay without torch.

One line per event, each with ``s``, the session (one ShapeEnv) it belongs to:

* ``{"t": "session", "s": 0, "torch": "2.13.0+cpu", "deferred": false, "label": ...}``
* ``{"t": "symbol", "name": "s0", "sort": "Int", "hint": 8, "backed": true}`` (``hint`` null: unbacked)
* ``{"t": "fact", "tier": "entry"|"full", "smt": "(<= s0 s1)"}``: an entry fact goes to both
  reasoners, a full one to the full reasoner only (see :mod:`.bridge`)
* ``{"t": "q", "smt": ..., "route": "entry"|"full", "torch": "true"|"false"|"none",
  "absint": "true"|"false"|"unknown", "by": layer, "value": true|false|null}``: a question,
  PyTorch's answer, absint's, and its value at the example point where every symbol has one
* ``{"t": "rebuild"}``: the ShapeEnv went back; facts start again from nothing

Expressions are SMT-LIB text (absint's own reading of PyTorch's sympy, without facts), so a
replay needs neither torch nor sympy: :func:`replay` rebuilds both reasoners from the facts
and decides every question again, and reports every contradiction between absint's
answers (recorded and replayed), PyTorch's and the values.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from typing import IO, Callable, Iterable

import attrs

from absint.lang import terms as T
from absint.lang.printer import symbol as smt_symbol
from absint.lang.sorts import INT, REAL
from absint.readers.smtlib import SmtLibError, parse
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Truth

_WORD = {Truth.TRUE: "true", Truth.FALSE: "false", Truth.UNKNOWN: "unknown"}

#: what absint's printer writes but its reader has no operator for (the corpus defines them per file)
PRELUDE = ("(define-fun min2 ((x Int) (y Int)) Int (ite (< x y) x y))"
           "(define-fun max2 ((x Int) (y Int)) Int (ite (< x y) y x))"
           "(define-fun ceil ((x Real)) Int (- (to_int (- x))))")


class Recorder:
    """Writes events to a JSONL file, one session per ShapeEnv (thread-safe, line-buffered)."""

    def __init__(self, path: str):
        self.path = path
        self._file: IO[str] = open(path, "w", buffering=1, encoding="utf-8")
        self._lock = threading.Lock()
        self._sessions = 0
        self.label: str | None = None  # written into each new session (e.g. the program's name)

    def session(self, meta: dict) -> Callable[[dict], None]:
        """A new session; returns the function its events go through."""
        with self._lock:
            sid = self._sessions
            self._sessions += 1
        self._write({"t": "session", "s": sid, "label": self.label, **meta})
        return lambda event: self._write({"s": sid, **event})

    def _write(self, event: dict) -> None:
        line = json.dumps(event, separators=(",", ":"), default=str)
        with self._lock:
            if not self._file.closed:
                self._file.write(line + "\n")

    def close(self) -> None:
        with self._lock:
            self._file.close()


@attrs.frozen(slots=True)
class Finding:
    """A contradiction found by a replay: which session and question, and what disagreed."""

    session: int
    label: str | None
    smt: str
    what: str


@attrs.frozen(slots=True)
class ReplayReport:
    sessions: int
    questions: int
    recorded_decided: int  # questions absint answered TRUE/FALSE when recorded
    replayed_decided: int  # and when replayed
    with_values: int  # questions with a value at the example point
    torch_decided: int  # questions PyTorch answered itself
    unread: int  # facts and questions the replay could not read back (left out)
    findings: tuple[Finding, ...]


def read_events(lines: Iterable[str]) -> dict[int, list[dict]]:
    """Events by session, in order."""
    out: dict[int, list[dict]] = defaultdict(list)
    for line in lines:
        line = line.strip()
        if line:
            e = json.loads(line)
            out[e["s"]].append(e)
    return dict(out)


class _Replay:
    """One session replayed: declarations, two reasoners, questions decided again."""

    def __init__(self, sid: int, label: str | None):
        self.sid, self.label = sid, label
        self.decls: list[str] = [PRELUDE]
        self.backed: list = []
        self.hints: dict[str, object] = {}  # backed symbols' example values, by name
        self.findings: list[Finding] = []
        self.counts = defaultdict(int)
        self._reset()

    def _reset(self) -> None:
        self.entry = Reasoner(backed=self.backed, early_look="always")  # as the bridge's ShapeReasoner
        self.full = Reasoner(backed=self.backed, early_look="always")
        for r in (self.entry, self.full):
            r.example(self.hints)  # where the witness points start, as the ShapeReasoner's

    def term(self, smt: str):
        program = parse("".join(self.decls) + f"(assert {smt})", f"trace session {self.sid}")
        return program.facts[-1].term

    def event(self, e: dict) -> None:
        kind = e["t"]
        if kind == "symbol":
            sort = INT if e["sort"] == "Int" else REAL
            self.decls.append(f"(declare-const {smt_symbol(e['name'])} {e['sort']})")
            if e["backed"]:
                v = T.var(e["name"], sort)
                self.backed.append(v)
                for r in (self.entry, self.full):
                    r.prefer_to_eliminate([v])
                if e.get("hint") is not None:
                    self.hints[e["name"]] = e["hint"]
                    for r in (self.entry, self.full):
                        r.example({e["name"]: e["hint"]})
        elif kind == "fact" and e.get("smt"):
            try:
                t = self.term(e["smt"])
            except SmtLibError:  # a fact left out: fewer facts, answers still sound
                self.counts["unread_facts"] += 1
                return
            self.full.assume(t)
            if e["tier"] == "entry":
                self.entry.assume(t)
        elif kind == "rebuild":
            self._reset()
        elif kind == "q":
            self.question(e)

    def question(self, e: dict) -> None:
        c = self.counts
        c["questions"] += 1
        c["recorded_decided"] += e["absint"] in ("true", "false")
        c["torch_decided"] += e["torch"] in ("true", "false")
        c["with_values"] += e.get("value") is not None
        r = self.entry if e["route"] == "entry" else self.full
        try:
            again = _WORD[r.decide(self.term(e["smt"])).truth]
        except SmtLibError:
            c["unread_questions"] += 1
            again = "unknown"
        c["replayed_decided"] += again in ("true", "false")
        value = {True: "true", False: "false"}.get(e.get("value"))
        for who, answer in (("recorded", e["absint"]), ("replayed", again)):
            for other, said in (("PyTorch", e["torch"]), ("the example value", value), ("recorded", e["absint"])):
                if _opposite(answer, said):
                    self.findings.append(Finding(self.sid, self.label, e["smt"],
                                                 f"{who} absint says {answer}, {other} says {said}"))


def _opposite(a: str | None, b: str | None) -> bool:
    return {a, b} == {"true", "false"}


def replay(lines: Iterable[str]) -> ReplayReport:
    """Replay a trace (lines of JSONL); see the module docstring."""
    sessions = read_events(lines)
    findings: list[Finding] = []
    totals: dict = defaultdict(int)
    for sid, events in sorted(sessions.items()):
        label = next((e.get("label") for e in events if e["t"] == "session"), None)
        run = _Replay(sid, label)
        for e in events:
            run.event(e)
        findings.extend(run.findings)
        for k, v in run.counts.items():
            totals[k] += v
    return ReplayReport(len(sessions), totals["questions"], totals["recorded_decided"], totals["replayed_decided"],
                        totals["with_values"], totals["torch_decided"],
                        totals["unread_facts"] + totals["unread_questions"], tuple(findings))
