"""``python -m absint.torch diagnose SCRIPT.py [ARGS...] [--json] [--timeout S]``.

The diagnosis (:mod:`.pipeline`) runs in a child process, which streams what it finds to a
file: the script may never finish, call ``os._exit``, or hang in C, and the time limit
then stops the child and the report says what was found so far. The options may stand
anywhere before a ``--``; everything after it (and every other word after the script) is
the script's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

from absint.torch.diagnose import cover, report
from absint.torch.diagnose.model import Diagnosis, Question, Run

USAGE = "usage: python -m absint.torch diagnose SCRIPT.py [ARGS...] [--json] [--timeout S] [-- SCRIPT ARGS...]"
HELP = USAGE + """

Runs SCRIPT.py (a script that calls torch.export.export or torch.compile) with absint
answering the shape questions PyTorch leaves open, and real-tensor propagation carrying
the trace on the way the example input goes (as torch.export.draft_export does), so
every data-dependent question is seen, not only the first. For each question neither
PyTorch nor absint decides, it reports:

  where     the user's FILE:LINE (the innermost frame in the script's directory) and the
            question in the frame's own variables (a SymInt local by its name, a tensor's
            size as t.size(0), a list's element as ls[i]), else in PyTorch's symbols with
            each symbol's origin (u3: ls = lengths.tolist() at model.py:12);
  missing   the fewest, weakest facts that decide the questions the example's way, as
            torch._check(...) lines to paste before the given line (one line in a loop
            decides every pass; a fact deciding many questions is preferred); never a fact
            the example input violates;
  verified  the script re-run with the lines pasted, with absint and without it (extra
            lines an export without absint needs are listed apart): whether every
            data-dependent question is then gone.

options:
  --json        one JSON object: per question file, line, question, suggestion, verified;
                the suggestions (file, line to paste before, statement); the runs
  --timeout S   stop after S seconds of wall time (default 600; 0: none) and report what
                was found so far
  -h, --help    this text

exit status: 0 when the diagnosis ran to its end; 1 when the script failed with its own
error, traced nothing, stopped at an error the trace could not go past, or ran out of
time (what was found is still reported); 2 on a usage error.
See docs/torch.md ("Which torch._check is missing").
"""

DEFAULT_TIMEOUT = 600.0


def parse(argv: list[str]) -> tuple[dict, list[str]] | str:
    """Options and ``[script, *args]``, or an error message."""
    before, after = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    opts = {"json": False, "timeout": DEFAULT_TIMEOUT, "help": False}
    rest, i = [], 0
    while i < len(before):
        a = before[i]
        if a in ("-h", "--help") and not rest:
            opts["help"] = True
        elif a == "--json":
            opts["json"] = True
        elif a == "--timeout" or a.startswith("--timeout="):
            value = a.split("=", 1)[1] if "=" in a else (before[i + 1] if i + 1 < len(before) else "")
            i += 0 if "=" in a else 1
            try:
                opts["timeout"] = float(value)
            except ValueError:
                return f"--timeout takes a number of seconds, not {value!r}"
            if opts["timeout"] < 0:
                return "--timeout takes a number of seconds >= 0"
        else:
            rest.append(a)
        i += 1
    return opts, rest + after


def main(argv: list[str]) -> int:
    parsed = parse(argv)
    if isinstance(parsed, str):
        print(f"{parsed}\n{USAGE}", file=sys.stderr)
        return 2
    opts, words = parsed
    if opts["help"]:
        print(HELP)
        return 0
    if not words:
        print(USAGE, file=sys.stderr)
        return 2
    script = words[0]
    if not os.path.isfile(script):
        print(f"{script}: no such file", file=sys.stderr)
        return 2
    d, note = run_child(script, words[1:], opts["timeout"] or None)
    print(json.dumps({**report.to_json(d), "note": note}) if opts["json"] else report.text(d, note), end="" if not opts["json"] else "\n")
    finished = d.runs and d.runs[0].status == "finished" and d.runs[0].traced > 0 and note is None
    return 0 if finished else 1


def run_child(script: str, args: list[str], timeout: float | None) -> tuple[Diagnosis, str | None]:
    """The diagnosis from a child process; what it streamed when it had to be stopped."""
    fd, events = tempfile.mkstemp(prefix="absint-diagnose-", suffix=".jsonl")
    os.close(fd)
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__import__("absint").__file__)))
    env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in [env.get("PYTHONPATH")] if p])
    proc = subprocess.Popen([sys.executable, "-m", "absint.torch.diagnose.child", events, script, *args],
                            stdout=sys.stderr, env=env)
    note = None
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        note = f"the diagnosis did not finish within {timeout:g} s: stopped; what was found so far"
    try:
        return _read(events, script, args, note, proc.returncode)
    finally:
        os.unlink(events)


def _read(events: str, script: str, args: list[str], note: str | None, code: int) -> tuple[Diagnosis, str | None]:
    runs, pending, done, failed = [], [], None, None
    with open(events, encoding="utf-8") as f:
        for line in f:
            try:
                e = json.loads(line)
            except ValueError:
                continue  # a line cut short when the child was stopped
            if e["event"] == "question":
                pending.append((e["absint"], Question.from_json(e["question"])))
            elif e["event"] == "run":
                runs.append(Run.from_json(e["result"]))
                pending = []
            elif e["event"] == "done":
                done = Diagnosis.from_json(e["diagnosis"])
            elif e["event"] == "failed":
                failed = e["error"]
    if done is not None:
        return done, note
    if note is None:
        note = f"absint failed: {failed}" if failed else f"the diagnosis stopped (exit status {code}); what was found so far"
    if pending or not runs:
        absint = pending[0][0] if pending else True
        runs.append(Run(absint, (), "timeout", note, 1, tuple(q for _, q in pending)))
    return Diagnosis(script, tuple(args), tuple(runs), tuple(cover.choose(runs[0].questions)), None, None), note
