"""absint inside PyTorch: ``ShapeEnv._maybe_evaluate_static`` wrapped, in-process.

That one method decides everything PyTorch decides without adding anything
(``statically_known_*``, ``_evaluate_expr`` just before it records a guard or raises the
data-dependent error, ``guard_or_defer_runtime_assert``). The wrapper always calls PyTorch
first; then, for a *plain* call only (:mod:`.policy`):

* ``mode="fallback"``: when PyTorch answers None, absint is asked (:mod:`.bridge`):
  TRUE -> ``sympy.true``, FALSE -> ``sympy.false``, UNKNOWN -> None;
* ``mode="shadow"``: absint is asked on every plain call, PyTorch's answer is returned
  unchanged, and opposite answers are recorded (:func:`disagreements`);
* ``mode="primary"``: absint is asked *first*, and its TRUE/FALSE is returned without
  calling PyTorch's evaluation (the sympy work a compile waits for). A question absint
  could not read completely (a class it does not know, an error, an integer-valued
  expression, contradictory facts) goes to PyTorch. An UNKNOWN on a question it read is
  final (``unknown="final"``: None, as PyTorch answers what it cannot decide) or goes to
  PyTorch (``unknown="ask_torch"``). A ``size_oblivious`` call left open by the facts is
  decided as PyTorch means it (each size-like symbol in ``[2, 2**48 - 1]`` within its
  range, :meth:`.ShapeEnvBridge.decide`); still open, it goes to PyTorch. An
  ``unbacked_only=True`` call whose result would keep an unbacked symbol is answered with
  the question itself (:meth:`.ShapeEnvBridge.keeps_unbacked`); any other goes to PyTorch.

``check=True`` evaluates every TRUE/FALSE of absint at the example point (backed hints, and
real unbacked values where PyTorch has them): a mismatch answers None and is recorded.
torch is imported when installing, never when this module is imported.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import weakref
from typing import Any, Callable, Iterator

import attrs
import sympy

from absint.reasoning.verdict import Truth
from absint.torch import inductor, policy, relations
from absint.torch.bridge import UNREAD_BY, Answer, ShapeEnvBridge
from absint.torch.counters import Disagreement, Stats, TorchOnly
from absint.torch.trace import Recorder

MODES = ("fallback", "shadow", "primary")
UNKNOWN_POLICIES = ("final", "ask_torch")
#: what ``_Installation.first`` returns when PyTorch must answer
ASK_TORCH = object()
#: answers that say absint did not read the question completely
_UNREAD = UNREAD_BY | {"check-failed"}
_TRUTH_WORD = {Truth.TRUE: "true", Truth.FALSE: "false", Truth.UNKNOWN: "unknown"}


@attrs.define(slots=True, eq=False)
class _Installation:
    """One install(): the mode, the wrapped original, the bridges by ShapeEnv, the counters."""

    mode: str
    check: bool
    original: Callable
    torch_version: str
    unknown: str = "final"
    stats: Stats = attrs.Factory(Stats)
    bridges: dict = attrs.Factory(dict)  # id(shape env) -> (weakref to it, its bridge)
    local: threading.local = attrs.Factory(threading.local)
    inductor_originals: dict | None = None  # Inductor's own methods, while wrapped (.inductor)
    relation_originals: dict | None = None  # SymNode's comparisons, while replaced (.relations)

    def bridge(self, se: Any) -> ShapeEnvBridge:
        found = self.bridges.get(id(se))
        if found is not None and found[0]() is se:
            return found[1]
        self.bridges = {k: v for k, v in self.bridges.items() if v[0]() is not None}
        emit = None
        if _recorder is not None:
            emit = _recorder.session({"torch": self.torch_version, "mode": self.mode,
                                      "deferred": bool(getattr(se, "prefer_deferred_runtime_asserts_over_guards",
                                                               False))})
        b = ShapeEnvBridge(se, emit=emit, stats=self.stats)
        self.bridges[id(se)] = (weakref.ref(se), b)
        return b

    def answer(self, se: Any, expr, result, size_oblivious: bool = False):
        """What the wrapper returns for a plain call PyTorch answered with ``result``."""
        torch_word = "true" if result is sympy.true else "false" if result is sympy.false else \
            "none" if result is None else "other"
        if result is not None:
            self.stats.torch_decided += 1
            if self.mode == "fallback":
                return result
        a = self._ask_once(se, expr, torch_word, size_oblivious)
        if a is None:
            return result
        if self.mode == "fallback" and result is None and a.truth is not Truth.UNKNOWN:
            self.stats.answered += 1
            return sympy.true if a.truth is Truth.TRUE else sympy.false
        return result

    def first(self, se: Any, expr, size_oblivious: bool):
        """Primary mode: absint's answer before PyTorch's, or :data:`ASK_TORCH`."""
        a = self._ask_once(se, expr, "not-asked", size_oblivious)
        if a is None:
            return ASK_TORCH
        s = self.stats
        if a.truth is not Truth.UNKNOWN:
            s.answered += 1
            return sympy.true if a.truth is Truth.TRUE else sympy.false
        if a.by in _UNREAD:
            s.unread += 1
            return ASK_TORCH
        if self.unknown == "final" and not size_oblivious:
            s.final_unknown += 1
            return None
        s.unknown_to_torch += 1
        return ASK_TORCH

    def keeps_unbacked(self, se: Any, expr) -> bool:
        """Primary mode, an ``unbacked_only`` call: whether ``expr`` itself is the answer
        (:meth:`.ShapeEnvBridge.keeps_unbacked`)."""
        with self._outermost() as outermost:
            if not outermost:
                return False
            try:
                b = self.bridge(se)
                b.sync()
                return b.keeps_unbacked(expr)
            except Exception as e:  # noqa: BLE001 - absint failing must not break the compiler
                self.stats.errors[f"unbacked_only: {type(e).__name__}"] += 1
                return False

    def _ask_once(self, se: Any, expr, torch_word: str, size_oblivious: bool = False) -> Answer | None:
        """absint's answer, or None when the call re-entered from inside absint (a question
        absint's own reading asks PyTorch is never answered twice)."""
        with self._outermost() as outermost:
            return self._ask(se, expr, torch_word, size_oblivious) if outermost else None

    @contextlib.contextmanager
    def _outermost(self) -> Iterator[bool]:
        """Whether this call is not one absint's own reading made of PyTorch (then absint
        must not answer it again); marks the thread busy for the block."""
        if getattr(self.local, "busy", False):
            yield False
            return
        self.local.busy = True
        try:
            yield True
        finally:
            self.local.busy = False

    def _ask(self, se: Any, expr, torch_word: str, size_oblivious: bool = False) -> Answer:
        b = self.bridge(se)
        b.sync()
        a = b.decide(expr, size_oblivious)
        s = self.stats
        s.asked += 1
        value = b.value_at_example(expr) if (self.check or b.emit is not None) and a.by != "not-boolean" else None
        if a.truth is not Truth.UNKNOWN:
            word = _TRUTH_WORD[a.truth]
            policy_answer = a.by == "size-oblivious"  # PyTorch's policy, not a truth at the example
            if self.check and value is not None and not policy_answer and value != (a.truth is Truth.TRUE):
                s.check_failures += 1
                s.disagreements.append(Disagreement("example", str(expr), torch_word, word, a.route, a.by))
                a = Answer(Truth.UNKNOWN, "check-failed", a.route)
            elif torch_word in ("true", "false") and torch_word != word:
                s.disagreements.append(Disagreement("torch", str(expr), torch_word, word, a.route, a.by))
        if a.truth is Truth.UNKNOWN:
            s.undecided += 1
            s.shown_open += a.shown_open
            if torch_word in ("true", "false") and a.by not in _UNREAD:
                s.torch_only.append(TorchOnly(str(expr), torch_word, a.route))
        else:
            s.decided[a.by] += 1
            s.routes[a.route] += 1
        if b.emit is not None and a.by != "not-boolean":
            smt = b.smt(expr)
            if smt is not None:
                b.emit({"t": "q", "smt": smt, "route": a.route, "torch": torch_word,
                        "absint": _TRUTH_WORD[a.truth], "by": a.by, "value": value})
        return a


_current: _Installation | None = None
_last_stats: Stats | None = None
_recorder: Recorder | None = None
_lock = threading.Lock()


def _wrapper(inst: _Installation) -> Callable:
    original = inst.original

    @functools.wraps(original)  # keeps cache_clear/cache_info of PyTorch's _lru_cache
    def _maybe_evaluate_static(self, expr, *args, **kwargs):
        if inst.inductor_originals is None and inst is _current:  # Inductor loaded since install()
            inst.inductor_originals = inductor.wrap_if_loaded(inst)
        plain = policy.plain_call(args, kwargs)
        if plain and inst.mode == "primary":
            first = inst.first(self, expr, bool(kwargs.get("size_oblivious", False)))
            if first is not ASK_TORCH:
                return first
        elif inst.mode == "primary" and policy.unbacked_only_call(args, kwargs) and inst.keeps_unbacked(self, expr):
            inst.stats.unbacked_kept += 1
            return expr
        result = original(self, expr, *args, **kwargs)
        if not plain:
            inst.stats.passed_through += 1
            return result
        if inst.mode == "primary":  # PyTorch answers what absint could not read (or left open)
            if result is not None:
                inst.stats.torch_decided += 1
            return result
        return inst.answer(self, expr, result, bool(kwargs.get("size_oblivious", False)))

    _maybe_evaluate_static.__absint_installation__ = inst
    return _maybe_evaluate_static


def install(mode: str = "fallback", *, check: bool = False, unknown: str = "final") -> None:
    """Wrap ``ShapeEnv._maybe_evaluate_static`` (see the module docstring); ``unknown``: what
    primary mode does with an UNKNOWN (``final`` or ``ask_torch``). Installing again
    replaces the previous installation. Raises :class:`~absint.torch.policy.UnsupportedTorch`
    when the installed torch's method has another signature than the one absint knows."""
    global _current, _last_stats
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    if unknown not in UNKNOWN_POLICIES:
        raise ValueError(f"unknown must be one of {', '.join(UNKNOWN_POLICIES)}, not {unknown!r}")
    import torch
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    with _lock:
        if _current is not None:
            _uninstall_locked()
        original = ShapeEnv.__dict__["_maybe_evaluate_static"]
        policy.check_signature(original, torch.__version__)
        inst = _Installation(mode, bool(check), original, torch.__version__, unknown)
        ShapeEnv._maybe_evaluate_static = _wrapper(inst)
        inst.inductor_originals = inductor.wrap_if_loaded(inst)
        if mode == "primary":
            inst.relation_originals = relations.install()
        _current, _last_stats = inst, inst.stats


def uninstall() -> None:
    """Put PyTorch's own method back (nothing happens when absint is not installed)."""
    with _lock:
        _uninstall_locked()


def _uninstall_locked() -> None:
    global _current
    if _current is None:
        return
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    ShapeEnv._maybe_evaluate_static = _current.original
    inductor.unwrap(_current.inductor_originals)
    relations.uninstall(_current.relation_originals)
    _current = None


def installed() -> str | None:
    """The current mode, or None."""
    return None if _current is None else _current.mode


@contextlib.contextmanager
def enabled(mode: str = "fallback", *, check: bool = False, unknown: str = "final") -> Iterator[None]:
    """``with enabled("shadow"): ...``: installed inside the block; the previous state after it."""
    before = None if _current is None else (_current.mode, _current.check, _current.unknown)
    install(mode, check=check, unknown=unknown)
    try:
        yield
    finally:
        uninstall()
        if before is not None:
            install(before[0], check=before[1], unknown=before[2])


def stats() -> dict:
    """Counters of the current installation (or the last one): see :class:`~absint.torch.counters.Stats`."""
    s = _latest_stats()
    return Stats().snapshot() if s is None else s.snapshot()


def _latest_stats() -> Stats | None:
    return _current.stats if _current is not None else _last_stats


def disagreements() -> list[Disagreement]:
    """Opposite answers of absint and PyTorch (shadow) and failed checks at the example point."""
    s = _latest_stats()
    return [] if s is None else list(s.disagreements)


def torch_only() -> list[TorchOnly]:
    """Shadow mode: the questions PyTorch decided and absint, having read them, left UNKNOWN
    (each a class of question primary mode would answer None where PyTorch answers)."""
    s = _latest_stats()
    return [] if s is None else list(s.torch_only)


def record(path: str | None, label: str | None = None) -> None:
    """Write every session from now on to ``path`` as JSONL (:mod:`.trace`); ``record(None)``
    stops and closes the file. ``label`` is written into the sessions (e.g. a program's name)."""
    global _recorder
    with _lock:
        if _recorder is not None and (path is None or path != _recorder.path):
            _recorder.close()
            _recorder = None
        if path is not None:
            if _recorder is None:
                _recorder = Recorder(path)
            _recorder.label = label
