"""One run of the user's script, in this process: with absint installed or not, with checks
pasted into its files, recording the questions (:mod:`.record`).

The script runs as ``__main__`` with its own ``sys.argv`` and its directory first on
``sys.path``, as ``python SCRIPT.py ARGS`` would run it. Pasted files are compiled from
their pasted text under their own file names (so a question is still placed in the user's
file; :mod:`.record` maps its line back to the original numbering), an imported one through
a finder ahead of the usual ones; the user's modules are imported afresh for each run. What
the script prints goes to stderr (stdout is the report's). Its own error, a data-dependent
error the trace could not go past and ``sys.exit`` are outcomes, not absint's tracebacks.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib.abc
import importlib.machinery
import os
import sys
import traceback
import types
from typing import Callable, Iterator

from absint.torch.diagnose import record, source
from absint.torch.diagnose.frames import UserFiles
from absint.torch.diagnose.model import Check, Question, Run


def pasted_sources(checks: list[Check]) -> dict[str, tuple[str, list[tuple[int, str | None]]]]:
    """Per file (real path): its text with the checks pasted, and for each line its original
    line and, for a pasted line, the key of its check."""
    inserts: dict[str, dict[int, list]] = {}
    for c in checks:
        if c.statement is None or c.file is None:
            continue
        at = inserts.setdefault(source.real(c.file), {}).setdefault(c.line, [])
        at.extend((c.indent, line, c.key) for line in c.statement.splitlines())
    out = {}
    for path, lines in inserts.items():
        with open(path, encoding="utf-8") as f:
            out[path] = source.insert_lines(f.read(), lines)
    return out


def run_once(script: str, argv: list[str], pasted: list[Check], absint: bool,
             emit: Callable[[Question], None] | None = None, seeds: list | None = None,
             found: list | None = None) -> Run:
    """Run ``script`` once (see the module docstring) and say what happened. ``seeds``:
    facts tried at every question; ``found`` gets the facts this run found."""
    files = UserFiles.of_script(script)
    sources = pasted_sources(pasted)
    rec = record.QuestionRecorder(files, {p: m for p, (_, m) in sources.items()}, emit, seeds)
    with _as_main(script, argv, files, sources), record.recording(rec), _absint(absint):
        status, message, culprit = _execute(script, sources, files)
    if found is not None:
        found.extend(rec.facts())
    if rec.violations:
        culprit = culprit or rec.violations[0]
        if status == "finished":  # not possible under real-tensor propagation, but never clean
            status, message = "error", f"a pasted check is false at the example: {culprit}"
    return Run(absint, tuple(c.key for c in pasted), status, message, rec.traced, tuple(rec.questions),
               tuple(rec.errors), culprit)


@contextlib.contextmanager
def _absint(on: bool) -> Iterator[None]:
    if not on:
        yield
        return
    from absint.torch import client

    with client.enabled("fallback"):
        yield


def _execute(script: str, sources: dict, files: UserFiles) -> tuple[str, str | None, str | None]:
    """``(status, message, culprit)``: the culprit is the key of a pasted check the error
    was raised at (a check the example violates fails its runtime assert at once under
    real-tensor propagation)."""
    path = source.real(script)
    try:
        if path in sources:
            text = sources[path][0]
        else:
            with open(script, encoding="utf-8") as f:
                text = f.read()
        code = compile(text, script, "exec")
    except (OSError, UnicodeDecodeError) as e:
        return "error", f"{script}: cannot be read: {e}", None
    except SyntaxError as e:
        return "error", f"{script}:{e.lineno}: invalid Python: {e.msg}", None
    module = types.ModuleType("__main__")
    module.__file__, module.__builtins__ = script, builtins
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = module
    try:
        exec(code, module.__dict__)
    except SystemExit as e:
        if e.code in (None, 0):
            return "finished", None, None
        return "error", f"the script exited with status {e.code}", None
    except Exception as e:  # noqa: BLE001 - the script's own error is an outcome
        kind = "stopped" if is_data_dependent(e) else "error"
        return kind, describe_error(e, files, sources), culprit_of(e, sources)
    finally:
        sys.modules["__main__"] = saved
    return "finished", None, None


def culprit_of(e: BaseException, sources: dict) -> str | None:
    """The key of the innermost pasted line in the error's traceback, if any."""
    found = None
    for fs in traceback.extract_tb(e.__traceback__):
        lines = sources.get(source.real(fs.filename))
        if lines is not None and fs.lineno and 0 < fs.lineno <= len(lines[1]) and lines[1][fs.lineno - 1][1]:
            found = lines[1][fs.lineno - 1][1]
    return found


def is_data_dependent(e: BaseException) -> bool:
    text = f"{type(e).__name__} {e}".lower()
    return "guardondatadependentsymnode" in text or "data-dependent" in text or "data dependent" in text


def describe_error(e: BaseException, files: UserFiles, sources: dict | None = None) -> str:
    """``Type: first line of the message (at FILE:LINE)``, the innermost user frame (its
    line in the original's numbering)."""
    first = next((line for line in str(e).splitlines() if line.strip()), "")
    if len(first) > 300:
        first = first[:297] + "..."
    where = None
    for fs in traceback.extract_tb(e.__traceback__):
        if fs.filename in files:
            lines = (sources or {}).get(source.real(fs.filename))
            line = lines[1][fs.lineno - 1][0] if lines and fs.lineno and fs.lineno <= len(lines[1]) else fs.lineno
            where = f"{fs.filename}:{line}"
    return f"{type(e).__name__}: {first}" + (f" (at {where})" if where else "")


@contextlib.contextmanager
def _as_main(script: str, argv: list[str], files: UserFiles, sources: dict) -> Iterator[None]:
    """``sys.argv``, ``sys.path``, fresh user modules, the pasted files' finder and stdout
    to stderr, for the block; all put back after (and Dynamo's caches cleared)."""
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [script, *argv]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    _forget_user_modules(files)
    finder = _PastedFinder({p: t for p, (t, _) in sources.items()})
    sys.meta_path.insert(0, finder)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.meta_path.remove(finder)
        sys.argv, sys.path[:] = saved_argv, saved_path
        _forget_user_modules(files)
        if "torch._dynamo" in sys.modules:
            sys.modules["torch._dynamo"].reset()


def _forget_user_modules(files: UserFiles) -> None:
    for name, module in list(sys.modules.items()):
        if getattr(module, "__file__", None) in files and name != "__main__":
            del sys.modules[name]


class _PastedFinder(importlib.abc.MetaPathFinder):
    """Imports a pasted user module from its pasted text."""

    def __init__(self, texts: dict[str, str]):
        self.texts = texts

    def find_spec(self, name, path, target=None):
        if not self.texts:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.origin is None or source.real(spec.origin) not in self.texts:
            return None
        spec.loader = _PastedLoader(name, spec.origin, self.texts[source.real(spec.origin)])
        return spec


class _PastedLoader(importlib.machinery.SourceFileLoader):
    def __init__(self, name: str, path: str, text: str):
        super().__init__(name, path)
        self.text = text

    def get_code(self, fullname):
        return compile(self.text, self.path, "exec")
