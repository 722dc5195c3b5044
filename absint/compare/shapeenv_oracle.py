"""PyTorch's ``ShapeEnv`` as an oracle of ``absint compare``, driven the way the compiler drives it.

Expressions come from :mod:`absint.compare.shapeenv_translate` (the file's own text,
rebuilt with the compiler's sympy functions). Then:

* every declared Int with an example value becomes a backed symbol,
  ``create_symbol(hint, source, dynamic_dim=DimDynamic.DYNAMIC, positive=None,
  do_not_specialize_zero_one=True)`` on a ``ShapeEnv(specialize_zero_one=False,
  duck_shape=False)``: no 0/1 specialisation, no duck sizing, and *no sign
  assumption* (``positive=None`` gives the range ``[-oo, oo]``), the same
  knowledge absint has; one without a value becomes an unbacked symbol,
  ``create_unbacked_symint()`` (also ``[-oo, oo]``);
* for each assert, in file order: ``_maybe_evaluate_static(expr)`` gives the
  verdict (``sympy.true`` -> ``T``, ``sympy.false`` -> ``F``, anything else ->
  ``?``), then the assert is recorded as the compiler records a ``torch._check``:
  ``evaluate_expr(expr)`` (a guard) when all its symbols are backed,
  ``guard_or_defer_runtime_assert(expr, msg)`` (a deferred runtime assert) when it
  mentions unbacked ones.

An assert that is not translated gets ``n``; one ShapeEnv raises on gets ``e``.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping

import attrs

from absint.compare.oracle import Answers, Case, MissingExtra, Oracle, OracleOutcome
from absint.compare.sampling import spread_sample
from absint.compare.shapeenv_translate import Translator, Untranslatable, example_hints, is_output, read_sexprs

INSTALL_HINT = "ShapeEnv comparison needs torch: pip install 'absint[shapeenv]' (torch==2.13.0)"


def require_torch() -> None:
    try:
        import torch  # noqa: F401
        from torch.fx.experimental import symbolic_shapes  # noqa: F401
    except ImportError:
        raise MissingExtra(INSTALL_HINT) from None


def torch_version() -> str:
    import torch

    return torch.__version__


@dataclass
class ShapeEnvFileResult:
    letters: str = ""
    seconds: list[float] = field(default_factory=list)  # per assert; translation spread evenly
    total_seconds: float = 0.0  # translation + queries + recording
    translate_seconds: float = 0.0
    positive_divisor_reading: int = 0
    reasons: dict[str, int] = field(default_factory=dict)  # why asserts were not translated / raised
    error: str | None = None
    source: str = "shapeenv"


def run_file(data: bytes, *, budget_s: float = 300.0) -> ShapeEnvFileResult:
    """Every assert of one file through a fresh ShapeEnv (see the module docstring)."""
    require_torch()
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    start = time.process_time()
    try:
        commands = read_sexprs(data.decode("utf-8", errors="replace"))
    except Untranslatable as e:
        return ShapeEnvFileResult(error=str(e))
    se = ShapeEnv(specialize_zero_one=False, duck_shape=False, assume_static_by_default=False)
    run = _FileRun(se, Translator(se, example_hints(commands)), start, budget_s)
    for c in commands:
        if isinstance(c, list) and c:
            run.command(c)
    return run.result()


class _FileRun:
    """One file's commands through one ShapeEnv, as they come: letters, CPU, reasons."""

    def __init__(self, se, translator: Translator, start: float, budget_s: float):
        import sympy

        self.sympy, self.se, self.t = sympy, se, translator
        self.start, self.budget_s = start, budget_s
        self.letters: list[str] = []
        self.seconds: list[float] = []
        self.reasons: Counter = Counter()  # why asserts were not translated / raised
        self.translate = 0.0
        self.positive_reading = 0

    def command(self, c: list) -> None:
        head, t = c[0], self.t
        if head == "declare-const" and len(c) == 3:
            t.declared[c[1]] = c[2]
        elif head == "declare-fun" and len(c) == 4 and c[2] == []:
            t.declared[c[1]] = c[3]
        elif head == "define-fun" and len(c) == 5:
            self.define(*c[1:])
        elif head == "assert" and len(c) == 2:
            self.check(c[1])

    def spent(self, now: float) -> bool:
        return now - self.start > self.budget_s

    def define(self, name: str, params: list, sort: str, body) -> None:
        if params:
            self.t.define_macro(name, params, sort, body)
            return
        t0 = time.process_time()
        if is_output(name) or self.spent(t0):
            return  # past the budget, the asserts left will be 'x' anyway
        self.t.define(name, body)
        self.translate += time.process_time() - t0

    def check(self, term) -> None:
        """Translate the assert, then decide and record it; its letter and CPU seconds."""
        t0 = time.process_time()
        if self.spent(t0):
            self.letters.append("x")
            self.seconds.append(0.0)
            return
        self.t.positive_reading = False
        try:
            expr, sort = self.t.expr(term)
            if sort != "Bool":
                raise Untranslatable("assert of a non-Bool")
        except Exception as e:
            self.reasons[str(e) if isinstance(e, Untranslatable) else type(e).__name__] += 1
            self.letters.append("n")
            self.translate += time.process_time() - t0
            self.seconds.append(time.process_time() - t0)
            return
        self.positive_reading += self.t.positive_reading
        t1 = time.process_time()
        self.translate += t1 - t0
        self.letters.append(self.decide_and_record(expr))
        self.seconds.append(time.process_time() - t1)

    def decide_and_record(self, expr) -> str:
        """The verdict, then the assert recorded as a guard or a deferred runtime assert."""
        sympy, se = self.sympy, self.se
        try:
            r = se._maybe_evaluate_static(expr)
            letter = "T" if r is sympy.true else "F" if r is sympy.false else "?"
            if expr is sympy.true or expr is sympy.false:
                return letter
            if expr.free_symbols & self.t.unbacked:
                se.guard_or_defer_runtime_assert(expr, f"assert {len(self.letters)}")
            else:
                se.evaluate_expr(expr)
            return letter
        except Exception as e:
            self.reasons[f"ShapeEnv raised {type(e).__name__}"] += 1
            return "e"

    def result(self) -> ShapeEnvFileResult:
        n = len(self.letters)
        seconds = [s + self.translate / n for s in self.seconds] if n else []
        return ShapeEnvFileResult("".join(self.letters), seconds, time.process_time() - self.start,
                                  self.translate, self.positive_reading, dict(self.reasons))


@attrs.frozen(slots=True)
class ShapeEnvOracle(Oracle):
    name = "shapeenv"
    title = "ShapeEnv"
    full_title = "PyTorch's ShapeEnv"
    line_style = ("tab:green", "-.")
    version_label = "torch"

    budget_s: float = 300.0
    sample: int | None = None  # --shapeenv-sample: it is slow on the largest files

    def require(self) -> None:
        require_torch()

    def version(self) -> str:
        return torch_version()

    def select(self, files: list[str]) -> list[str]:
        return spread_sample(files, self.sample)

    def run(self, case: Case) -> OracleOutcome:
        r = run_file(case.loaded.data, budget_s=self.budget_s)
        if r.error:
            return OracleOutcome(None, (f"shapeenv: {r.error}",))
        details = {"translate_seconds": r.translate_seconds, "positive_divisor_reading": r.positive_divisor_reading,
                   "reasons": r.reasons}
        return OracleOutcome(Answers(r.letters, tuple(r.seconds), r.total_seconds, details))

    def totals(self, answers: list[Answers]) -> dict[str, Any]:
        reasons: Counter = Counter()
        for a in answers:
            reasons.update(a.details["reasons"])
        return {"translate_seconds": round(sum(a.details["translate_seconds"] for a in answers), 6),
                "positive_divisor_reading": sum(a.details["positive_divisor_reading"] for a in answers),
                "not_translated_reasons": dict(reasons.most_common())}

    def notes(self, totals: Mapping[str, Any]) -> list[str]:
        reasons = totals.get("not_translated_reasons") or {}
        return ["ShapeEnv could not take: " + _listed(reasons)] if reasons else []

    def markdown_note(self, summary: Mapping[str, Any], files: int) -> str:
        totals, sampled = summary["totals"][self.name], summary["settings"]["shapeenv_files"]
        reasons = totals.get("not_translated_reasons") or {}
        return (
            "ShapeEnv (`torch.fx.experimental.symbolic_shapes`) is driven as the compiler drives it, with "
            "the knowledge absint has: DYNAMIC symbols, no 0/1 specialisation, no sign assumption; each "
            "assert is asked with `_maybe_evaluate_static`, then recorded (`evaluate_expr`, or a deferred "
            "runtime assert when it mentions unbacked symbols). *n/a*: asserts it could not take (not "
            "translated, see `absint/shapeenv_oracle.py`, or it raised)"
            + (": " + _listed(reasons) if reasons else "")
            + ". The files are spread evenly over the size ranking of the files above"
            + (f" (`--shapeenv-sample {sampled}`)" if sampled != files else "")
            + "; every column below is on the same files. ShapeEnv's CPU includes rebuilding the "
            f"expressions in sympy ({totals['translate_seconds']:.2f} s of {totals['seconds']:.2f} s). "
            f"{totals['positive_divisor_reading']} asserts use `div`/`mod` by a symbol, read as "
            "`FloorDiv`/`PythonMod` (equal to SMT-LIB's Euclidean ones when the divisor is positive, "
            "as it is at the example point)."
        )


def _listed(reasons: Mapping[str, int]) -> str:
    return ", ".join(f"{k} ({n})" for k, n in reasons.items())


def from_args(args) -> ShapeEnvOracle:
    return ShapeEnvOracle(args.budget, args.shapeenv_sample)
