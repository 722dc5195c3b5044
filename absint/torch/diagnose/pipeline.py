"""A whole diagnosis, in this process: find the questions, choose the checks, verify them by
running the script again with them pasted.

1. The script runs with absint installed (fallback) and nothing pasted: the questions
   neither PyTorch nor absint decides (:mod:`.record`), and the fewest checks that decide
   them (:mod:`.cover`).
2. It runs again with those checks pasted, absint installed: ``verified`` when no question
   is left. A question left (a check absint judged enough did not settle what PyTorch
   then asked, or a new one further on) gets its own checks and another run, up to
   :data:`ROUNDS` times.
3. The same without absint, as an export with the pasted lines will run for a user who
   does not install it: questions absint decided but PyTorch does not get checks too
   (``without_absint``), until no question is left (``verified_without_absint``).

``emit`` receives progress as JSON-able events (``question``, ``run``), so a parent that
has to stop the child still knows what was found.
"""

from __future__ import annotations

from typing import Callable

from absint.torch.diagnose import cover, runner
from absint.torch.diagnose.model import Diagnosis, Run, Suggestion

#: runs after the first, in each mode, to settle questions that are left
ROUNDS = 3

Emit = Callable[[dict], None]


def diagnose(script: str, argv: list[str] | tuple = (), emit: Emit | None = None, rounds: int = ROUNDS) -> Diagnosis:
    """Diagnose ``script`` run with ``argv`` (see the module docstring)."""
    argv = list(argv)
    runs: list[Run] = []
    facts: list = []
    first = _run(script, argv, [], True, emit, runs, found=facts)
    chosen = cover.choose(first.questions, 0)
    if len(chosen) >= 2 and facts and first.status in ("finished", "stopped"):
        first, chosen = _probe(script, argv, first, chosen, facts, emit, runs)
    if first.status not in ("finished", "stopped") or first.traced == 0:
        return Diagnosis(script, tuple(argv), tuple(runs), tuple(chosen), None, None)
    chosen, last = _settle(script, argv, chosen, True, None if chosen else first, emit, runs, rounds)
    verified = last.clean
    more, plain = _settle(script, argv, chosen, False, None, emit, runs, rounds)
    return Diagnosis(script, tuple(argv), tuple(runs), tuple(more), verified, plain.clean)


def _settle(script, argv, chosen: list[Suggestion], absint: bool, last: Run | None, emit, runs: list[Run],
            rounds: int) -> tuple[list[Suggestion], Run]:
    """Run with ``chosen`` pasted; while questions are left, add checks for them, and when a
    pasted check made the run fail (one the example violates at a pass it was not found
    at: its runtime assert fails at once), drop it for others; run again each time.
    ``last``: a run with exactly ``chosen`` pasted already made (then not repeated)."""
    banned: set[str] = set()
    if last is None:
        last = _run(script, argv, chosen, absint, emit, runs)
    for _ in range(rounds):
        if last.clean:
            break
        if last.status == "error" and last.culprit is not None:
            banned.add(last.culprit)
            chosen = _replaced(chosen, last.culprit, runs, banned)
        elif last.status in ("finished", "stopped"):
            taken = frozenset(s.check.key for s in chosen) | banned
            more = cover.choose(last.questions, len(runs) - 1, taken)
            if not more:
                break
            chosen = chosen + [Suggestion(s.check, s.covers, s.run, not absint) for s in more]
        else:
            break
        last = _run(script, argv, chosen, absint, emit, runs)
    return chosen, last


def _replaced(chosen: list[Suggestion], culprit: str, runs: list[Run], banned: set[str]) -> list[Suggestion]:
    """``chosen`` without the check ``culprit``, its questions covered by other checks."""
    kept = [s for s in chosen if s.check.key != culprit]
    taken = frozenset(s.check.key for s in kept) | banned
    for s in chosen:
        if s.check.key == culprit:
            questions = [q for q in runs[s.run].questions if q.index in s.covers]
            kept += [Suggestion(n.check, n.covers, n.run, s.without_absint)
                     for n in cover.choose(questions, s.run, taken)]
    return kept


def _probe(script, argv, first: Run, chosen: list[Suggestion], facts: list, emit, runs: list[Run]):
    """The first run again with the facts it found tried at every question from the start (a
    fact found late may decide questions asked before it, pasted before them): kept, in the
    first run's place, when its cover needs fewer lines."""
    probe = _run(script, argv, [], True, emit, runs, seeds=facts)
    again = cover.choose(probe.questions, 0)
    runs.pop()
    if probe.status == first.status and cover.lines([s.check for s in again]) < cover.lines([s.check for s in chosen]):
        runs[0] = probe
        return probe, again
    return first, chosen


def _run(script, argv, chosen: list[Suggestion], absint: bool, emit: Emit | None, runs: list[Run],
         seeds: list | None = None, found: list | None = None) -> Run:
    index = len(runs)

    def question(q) -> None:
        if emit is not None:
            emit({"event": "question", "run": index, "absint": absint, "question": q.to_json()})

    r = runner.run_once(script, argv, [s.check for s in chosen], absint, question, seeds, found)
    runs.append(r)
    if emit is not None:
        emit({"event": "run", "run": index, "result": r.to_json()})
    return r
