"""One file's ``absint solve`` answer: which inputs give a wanted output, or a proof that none do.

Each want (infix ``output0_size0 == 8`` or SMT-LIB ``(= output0_size0 8)``) is read in the
file's scope (its symbols and ``define-fun`` names); then :func:`absint.search.solve.solve`
answers ``found`` (a point: every declared symbol, checked by the evaluator against every
assert and want; the outputs evaluated there), ``impossible`` (the asserts that contradict
the wants) or ``unknown`` (the budget spent).
"""

from __future__ import annotations

import attrs

from absint.lang import terms as T
from absint.lang.evaluator import NotEvaluable, evaluate
from absint.lang.numerals import brief
from absint.presets import facts as preset_facts
from absint.readers.smtlib import SmtLibError
from absint.search.labelling import Budget, Variable
from absint.search.solve import FOUND, IMPOSSIBLE, solve
from absint.search.wants import ProgramWithWants, WantNotRead, read_with_wants


@attrs.frozen(slots=True)
class SolveReport:
    """One file's answer, rendered values only."""

    file: str
    status: str
    point: dict | None = None
    outputs: dict | None = None
    reason: str = ""
    asserts: tuple[tuple[int, str | None], ...] | None = None
    nodes: int = 0
    seconds: float = 0.0
    usage_error: bool = False
    #: with --preset: the preset facts in the contradicting core ('preset NAME: FACT'); None without
    presets: tuple[str, ...] | None = None

    def to_json(self) -> dict:
        d = {"file": self.file, "status": self.status, "point": self.point, "outputs": self.outputs,
             "reason": self.reason,
             "asserts": None if self.asserts is None else [{"index": i, "at": at} for i, at in self.asserts],
             "nodes": self.nodes, "seconds": round(self.seconds, 6)}
        if self.presets is not None:
            d["presets"] = list(self.presets)
        return d

    def spent(self) -> str:
        """``--verbose``'s line: how the search decided, and what it spent."""
        how = self.reason if self.status == FOUND else self.reason.split(";")[0]
        return f"  search: {how}; {self.nodes} node(s), {self.seconds:.2f} s"

    def line(self) -> str:
        head = f"{self.file}: {self.status}"
        if self.status == FOUND:
            shown = " ".join(f"{k}={v}" for k, v in self.point.items())
            outs = " ".join(f"{k}={v}" for k, v in (self.outputs or {}).items())
            return f"{head}: {shown}" + (f"; outputs: {outs}" if outs else "")
        return f"{head}: {self.reason}"


def json_value(v) -> object:
    """A value as JSON: ints and bools as they are, other numbers as text (``p/q``)."""
    return v if isinstance(v, (int, bool)) else str(v)


def solve_loaded(read: ProgramWithWants, file: str, budget: Budget, seed: int,
                 presets: tuple[str, ...] = ()) -> SolveReport:
    """Solve one program with its wants and render the answer. With ``presets``, their
    facts (checked at the example point: a refused preset is the file's error, a usage
    error) come ahead of the asserts; a found point satisfies them too."""
    program = read.program
    try:
        assumed = preset_facts.checked_facts(program, presets)
    except preset_facts.PresetRefused as e:
        return SolveReport(file, "error", reason=_one_line(f"{file}: {e}"), usage_error=True)
    k = len(assumed)
    symbols = [Variable(s.name, s.term, s.hint) for s in program.symbols]
    facts = [f.term for f in assumed] + [f.term for f in program.facts]
    sol = solve(symbols, facts, [w.term for w in read.wants], budget, seed)
    spent = dict(nodes=sol.nodes, seconds=sol.seconds)
    if sol.status == FOUND:
        point = {k: json_value(v) for k, v in sol.point.items()}
        return SolveReport(file, FOUND, point, outputs_at(program.outputs, sol.point), sol.how, **spent)
    if sol.status == IMPOSSIBLE:
        # the core indexes [preset facts..., asserts...]: the asserts keep the program's indices
        named = tuple(f"preset {assumed[i].preset}: {assumed[i].text}" for i in sol.core if i < k)
        at = tuple((i - k, _position(program.facts[i - k])) for i in sol.core if i >= k)
        where = ", ".join(f"{i} ({p})" if p else str(i) for i, p in at[:8]) + (" ..." if len(at) > 8 else "")
        parts = ([f"asserts {where}"] if at else []) + list(named)
        reason = f"{sol.how}; " + (f"the wants contradict {', '.join(parts)}" if parts else "no assert needed")
        return SolveReport(file, IMPOSSIBLE, reason=reason, asserts=at, presets=named if presets else None, **spent)
    return SolveReport(file, sol.status, reason=sol.how, **spent)


def outputs_at(outputs, point) -> dict:
    """Each output's value at the point (text when it has none: ``x div 0``)."""
    memo: dict = {}
    out = {}
    for name, t in outputs:
        try:
            out[name] = json_value(evaluate(t, point, memo))
        except NotEvaluable as e:
            out[name] = f"undefined: {e}"
    return out


def _position(fact) -> str | None:
    p = fact.position
    return None if p is None else str(p)


def solve_file(path: str, wants: list[str], budget: Budget, seed: int,
               presets: tuple[str, ...] = ()) -> SolveReport:
    """One file's report; never raises for a bad file."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        with T.fresh_table():
            return solve_loaded(read_with_wants(data, wants, path), path, budget, seed, presets)
    except SmtLibError as e:
        where = f"{path}:{e.position.line}:{e.position.column}"
        return SolveReport(path, "error", reason=_one_line(f"{where}: {e.message}"))
    except WantNotRead as e:
        return SolveReport(path, "error", reason=_one_line(str(e)), usage_error=True)
    except OSError as e:
        return SolveReport(path, "error", reason=f"{path}: cannot read: {e.strerror or e}")
    except Exception as e:  # a bug of ours: the other files are still answered
        return SolveReport(path, "error",
                           reason=_one_line(f"{path}: internal error: {type(e).__name__}: {brief(str(e))}"))


def _one_line(text: str) -> str:
    return " ".join(text.split())
