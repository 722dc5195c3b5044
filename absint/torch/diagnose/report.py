"""A diagnosis as the user reads it (text) or a program does (``--json``). Torch-free.

Questions are listed where they arose (the user's ``file:line``), in the user's variables
when the frame names them, else in PyTorch's symbols with each symbol's origin; then the
lines to paste, each before the line it must precede, with the questions it decides; then
what the runs with those lines pasted showed.
"""

from __future__ import annotations

import os

from absint.torch.diagnose.model import Diagnosis, Question, Run, Suggestion

_KIND = {"guard": "data-dependent guard", "specialization": "unbacked value made a constant"}


def _short(path: str | None, base: str) -> str:
    if path is None:
        return "?"
    rel = os.path.relpath(path, base)
    return path if rel.startswith("..") else rel


def _place(q: Question, base: str) -> str:
    return f"{_short(q.file, base)}:{q.line if q.line is not None else '?'}"


def _verified_at(d: Diagnosis, run: int, q: Question) -> bool | None:
    """Whether the last run in ``run``'s mode (with absint or without) finished with no
    question left at ``q``'s place; None when that mode was not verified."""
    mode = d.runs[run].absint
    if (d.verified if mode else d.verified_without_absint) is None:
        return None
    last = [r for r in d.runs if r.absint == mode][-1]
    return last.status == "finished" and all(p.place != q.place for p in last.questions)


def questions_of(d: Diagnosis) -> list[tuple[int, Question]]:
    """The questions the suggestions answer: the first run's, and those of runs that got
    suggestions of their own."""
    runs = {0} | {s.run for s in d.suggestions}
    return [(i, q) for i in sorted(runs) if i < len(d.runs) for q in d.runs[i].questions]


def to_json(d: Diagnosis) -> dict:
    base = os.path.dirname(os.path.abspath(d.script))
    first = d.runs[0] if d.runs else None
    by_question: dict = {}
    for s in d.suggestions:
        for i in s.covers:
            by_question.setdefault((s.run, i), []).append(s.check.statement or s.check.fact)
    questions = [{"file": q.file, "line": q.line, "function": q.function, "question": q.shown(),
                  "needed": q.needed, "kind": q.kind, "origins": list(q.origins), "repeats": q.repeats,
                  "run": run, "absint": d.runs[run].absint, "suggestion": by_question.get((run, q.index), []),
                  "verified": _verified_at(d, run, q)} for run, q in questions_of(d)]
    suggestions = [{"file": s.check.file, "line": s.check.line, "statement": s.check.statement,
                    "fact": s.check.fact, "kind": s.check.kind, "pytorch": s.check.pytorch,
                    "without_absint": s.without_absint, "covers": [{"run": s.run, "question": i} for i in s.covers]}
                   for s in d.suggestions]
    return {"script": _short(d.script, base), "argv": list(d.argv), "status": first.status if first else "timeout",
            "message": first.message if first else None, "verified": d.verified,
            "verified_without_absint": d.verified_without_absint, "questions": questions,
            "suggestions": suggestions, "runs": [_run_json(r) for r in d.runs]}


def _run_json(r: Run) -> dict:
    return {"absint": r.absint, "pasted": len(r.pasted), "status": r.status, "message": r.message,
            "traced": r.traced, "questions": len(r.questions)}


def text(d: Diagnosis, note: str | None = None) -> str:
    base = os.path.dirname(os.path.abspath(d.script))
    out = [f"absint.torch diagnose {_short(d.script, base)}"]
    if note:
        out.append(note)
    first = d.runs[0] if d.runs else None
    out += _outcome(first, d)
    groups: dict = {}
    for run, q in questions_of(d):  # a loop's passes at one line, read alike: one entry
        groups.setdefault((run, q.file, q.line, q.text if q.text is not None else q.needed), []).append(q)
    for (run, *_), qs in groups.items():
        out += _question_lines(qs, base, run, d)
    for s in d.suggestions:
        out += _suggestion_lines(s, d, base)
    out += _verdict_lines(d)
    return "\n".join(out) + "\n"


def _outcome(first: Run | None, d: Diagnosis) -> list[str]:
    if first is None:
        return ["  no run finished: nothing was found"]
    lines = []
    if first.status == "error":
        lines.append(f"  the script failed: {first.message}")
    elif first.status == "stopped":
        lines.append(f"  the trace stopped at a data-dependent error it could not go past: {first.message}")
    elif first.status == "timeout":
        lines.append("  the first run did not finish: what it found so far")
    if first.traced == 0 and first.status != "timeout":
        lines.append("  the script exported or compiled nothing (no ShapeEnv was made): nothing to diagnose")
    elif not first.questions:
        lines.append("  with absint, no question was left undecided")
    else:
        n = len(first.questions)
        lines.append(f"  {n} question{'s' if n > 1 else ''} neither PyTorch nor absint decides, "
                     "each taken the way the example input goes:")
    return lines


def _question_lines(qs: list[Question], base: str, run: int, d: Diagnosis) -> list[str]:
    q = qs[0]
    where = "" if d.runs[run].absint else " (without absint)"
    times = sum(x.repeats for x in qs)
    passes = f", {times} times" if times > 1 else ""
    lines = [f"  {_place(q, base)}{' in ' + q.function if q.function else ''}: {q.shown()}"
             f"    [{_KIND.get(q.kind, q.kind)}{passes}{where}]"]
    if q.text is None:
        lines += [f"      {o}" for o in q.origins]
    else:
        shown = ", ".join(x.needed for x in qs[:3]) + (", ..." if len(qs) > 3 else "")
        lines.append(f"      ({shown} in PyTorch's symbols)")
    return lines


def _suggestion_lines(s: Suggestion, d: Diagnosis, base: str) -> list[str]:
    c = s.check
    lead = "for an export without absint, also paste" if s.without_absint else "paste"
    covered = [d.runs[s.run].questions[i] for i in s.covers if i < len(d.runs[s.run].questions)]
    places = sorted({_place(q, base) for q in covered})
    n = len(covered)
    if c.statement is None:
        return [f"  missing (not in the frame's variables): {c.fact}",
                f"      decides {n} question{'s' if n > 1 else ''} at {', '.join(places)}"]
    lines = [f"  {lead} before {_short(c.file, base)}:{c.line}:"]
    lines += [f"      {line}" for line in c.statement.splitlines()]
    lines.append(f"      decides {n} question{'s' if n > 1 else ''} at {', '.join(places)}"
                 + ("" if c.pytorch else " (absint's reasoning; PyTorch alone may not)"))
    return lines


def _verdict_lines(d: Diagnosis) -> list[str]:
    out = []
    for label, v in (("with absint", d.verified), ("without absint", d.verified_without_absint)):
        if v is None:
            continue
        out.append(f"  verified {label}: " + ("yes, re-run with the lines pasted: no data-dependent question is left"
                                              if v else "no, re-run with the lines pasted: questions are left"))
    return out
