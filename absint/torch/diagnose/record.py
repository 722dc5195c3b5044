"""Recording the questions of one trace, and going on the way the example input goes.

As PyTorch's ``draft_export`` does (``torch/export/_draft_export.py``, torch 2.13), the trace
runs with real-tensor propagation (``fake_tensor_propagate_real_tensors``): every unbacked
symbol gets the example's value, and where ``ShapeEnv._evaluate_expr`` would raise the
data-dependent error (or ``size_hint`` would make an unbacked value a constant) it instead
takes the example's answer and defers it to a runtime assert, calling
``guard_or_defer_runtime_assert(fact, "propagate_real_tensors: ...")``. That call is wrapped
here: before the fact is added, the question is recorded with the user's frame, and the
checks that would decide it are worked out against what the ShapeEnv knows at that moment
(:mod:`absint.missing` on a :class:`~absint.torch.bridge.ShapeEnvBridge` of its own).

Real-tensor propagation also compares each fake output's storage offset with the real one
(``_check_fake_real_tensors``), a comparison of an unbacked expression that itself asks
data-dependent questions (``Ne(u5, 0)``; it made the propagation specialize ``u0 == 3`` or
stop on the project's split programs): it is switched off while recording, as a check of
fake kernels the diagnosis does not need.
"""

from __future__ import annotations

import contextlib
import logging
import weakref
from typing import Callable, Iterator

import attrs
import sympy

from absint.readers.sympy_bridge import SympyToTerms
from absint.torch import reading
from absint.torch.bridge import ShapeEnvBridge
from absint.torch.diagnose import checks, frames, source
from absint.torch.diagnose.model import Question

PREFIX = "propagate_real_tensors"
#: CPU seconds of the search for one question's checks
SECONDS_PER_QUESTION = 2.0


class QuestionRecorder:
    """The questions of one run. ``line_maps``: per pasted file, the original line of each
    line (places are reported in the original's numbering); ``emit`` gets each question."""

    def __init__(self, files: frames.UserFiles, line_maps: dict | None = None,
                 emit: Callable[[Question], None] | None = None, seeds: list | None = None):
        self.files = files
        self.seeds = list(seeds or ())  # facts an earlier run found, tried at every question
        self.line_maps = line_maps or {}
        self.emit = emit
        self.questions: list[Question] = []
        self.traced = 0
        self.errors: list[str] = []
        self.violations: list[str] = []  # keys of pasted checks false at the example
        self._bridges: dict = {}
        self._places: dict = {}  # (needed, file, line) -> index
        self._busy = False
        self._plain = SympyToTerms()

    def on_assert(self, se, fact, msg: str) -> None:
        """``guard_or_defer_runtime_assert(fact, msg)`` was called: a question when ``msg``
        says real-tensor propagation answered it."""
        if self._busy or not isinstance(msg, str):
            return
        if not msg.startswith(PREFIX):
            if self.line_maps:
                self._check_pasted(se, fact)
            return
        self._busy = True
        try:
            self._record(se, fact, msg)
        except Exception as e:  # noqa: BLE001 - a failure here must not change the user's trace
            self.errors.append(f"{type(e).__name__}: {e}")
            self._bare(fact, msg)
        finally:
            self._busy = False

    def _check_pasted(self, se, fact) -> None:
        """A runtime assert made at a pasted line: false at the example, its check is a
        culprit (its own runtime assert fails only later, where the traceback no longer
        shows the line)."""
        try:
            frame = frames.user_frame(self.files)
            m = self.line_maps.get(source.real(frame.file)) if frame is not None else None
            tag = m[frame.line - 1][1] if m is not None and 0 < frame.line <= len(m) else None
            if tag is not None and tag not in self.violations:
                values = {s: v for s, v in list(reading.hints(se).items()) + list(reading.unbacked_values(se).items())}
                if fact.xreplace(values) == sympy.false:
                    self.violations.append(tag)
        except Exception as e:  # noqa: BLE001 - a failure here must not change the user's trace
            self.errors.append(f"{type(e).__name__}: {e}")

    def _bare(self, fact, msg: str) -> None:
        """The question without checks, when working them out failed: still reported."""
        try:
            frame = frames.user_frame(self.files)
            file, line = self._place(frame)
        except Exception:  # noqa: BLE001
            frame, file, line = None, None, None
        q = Question(len(self.questions), _kind(msg), str(fact), None, file, line,
                     frame.function if frame else None, (), ())
        self.questions.append(q)
        if self.emit is not None:
            self.emit(q)

    def _record(self, se, fact, msg: str) -> None:
        frame = frames.user_frame(self.files)
        file, line = self._place(frame)
        key = (str(fact), file, line)
        if key in self._places:
            i = self._places[key]
            self.questions[i] = attrs.evolve(self.questions[i], repeats=self.questions[i].repeats + 1)
            return
        kind = _kind(msg)
        bridge, pool = self._bridge(se)
        found = checks.for_question(bridge, pool, fact, frame, self._where(frame), self.read,
                                    SECONDS_PER_QUESTION)
        q = Question(len(self.questions), kind, str(fact), found.text, file, line,
                     frame.function if frame else None, tuple(frames.origins(se, fact.free_symbols, self.files)),
                     found.checks)
        self._places[key] = q.index
        self.questions.append(q)
        if self.emit is not None:
            self.emit(q)

    def read(self, expr):
        try:
            return self._plain(expr)
        except Exception:  # noqa: BLE001 - a class absint does not read: no name for it
            return None

    def _original_line(self, file: str, line: int) -> int:
        m = self.line_maps.get(source.real(file))
        return m[line - 1][0] if m is not None and 0 < line <= len(m) else line

    def _place(self, frame) -> tuple:
        if frame is None:
            return None, None
        return frame.file, self._original_line(frame.file, frame.line)

    def _where(self, frame) -> checks.Where | None:
        """Where a check is pasted: before the statement of the frame's line (for a
        comprehension, of the line running it), in the original's numbering."""
        if frame is None:
            return None
        host = frame.outer if frame.comprehension and frame.outer is not None else frame
        stmt = source.statement_at(host.file, self._original_line(host.file, host.line))
        if stmt is None:
            return None
        clause = None
        if frame.comprehension:
            first = self._original_line(frame.file, frame.first_line)
            clause = source.comprehension_clause(frame.file, first, set(frame.values))
        return checks.Where(host.file, stmt, clause)

    def _bridge(self, se) -> tuple[ShapeEnvBridge, dict]:
        found = self._bridges.get(id(se))
        if found is None or found[0]() is not se:
            found = (weakref.ref(se), ShapeEnvBridge(se), {"seeds": self.seeds})
            self._bridges[id(se)] = found
        return found[1], found[2]


    def facts(self) -> list:
        """The facts found for this run's questions (not the questions themselves), to seed another."""
        out = []
        for _, _, pool in self._bridges.values():
            out += [c for c, _ in pool.get("facts", {}).values() if c not in out]
        return out


def _kind(msg: str) -> str:
    """``guard`` (a Boolean question answered), else ``specialization`` (a value made a constant)."""
    return "guard" if msg.rstrip().endswith(("== True", "== False")) else "specialization"


@contextlib.contextmanager
def recording(rec: QuestionRecorder) -> Iterator[None]:
    """Real-tensor propagation on, the recorder on PyTorch's deferral, ShapeEnvs counted,
    the storage-offset comparison of real and fake outputs off, PyTorch's propagation
    warnings quiet; all put back after."""
    import torch._functorch.config as functorch_config
    import torch._subclasses.fake_utils as fake_utils
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    original_assert = ShapeEnv.__dict__["guard_or_defer_runtime_assert"]
    original_init = ShapeEnv.__dict__["__init__"]
    original_check = fake_utils._check_fake_real_tensors

    def guard_or_defer_runtime_assert(self, orig_expr, msg, fx_node=None):
        rec.on_assert(self, orig_expr, msg)
        return original_assert(self, orig_expr, msg, fx_node)

    def __init__(self, *args, **kwargs):
        rec.traced += 1
        original_init(self, *args, **kwargs)

    logger = logging.getLogger("torch.fx.experimental.symbolic_shapes")
    level = logger.level
    ShapeEnv.guard_or_defer_runtime_assert = guard_or_defer_runtime_assert
    ShapeEnv.__init__ = __init__
    fake_utils._check_fake_real_tensors = lambda *args, **kwargs: None
    logger.setLevel(logging.ERROR)
    try:
        with functorch_config.patch(fake_tensor_propagate_real_tensors=True):
            yield
    finally:
        ShapeEnv.guard_or_defer_runtime_assert = original_assert
        ShapeEnv.__init__ = original_init
        fake_utils._check_fake_real_tensors = original_check
        logger.setLevel(level)


def example_point(se) -> dict:
    """The example: backed hints and the real values of unbacked symbols, by name."""
    point = {}
    for s, v in list(reading.hints(se).items()) + list(reading.unbacked_values(se).items()):
        iv = reading.integer_value(v)
        if iv is not None:
            point[str(s)] = iv
    return point
