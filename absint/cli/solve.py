"""``absint solve``: which inputs give a wanted output size, or a proof that none do.

Each ``--want`` (infix ``output0_size0 == 8`` or SMT-LIB ``(= output0_size0 8)``) is
read in the file's scope (its symbols and ``define-fun`` names); then
:func:`absint.search.solve.solve` answers ``found`` (a point: every declared symbol,
checked by the evaluator against every assert and want; the outputs evaluated there),
``impossible`` (the asserts that contradict the wants) or ``unknown`` (the budget spent).
"""

from __future__ import annotations

import argparse
import sys

import attrs

from absint.cli.runner import JSON_HELP, PROBLEM, USAGE, Outcome, add_paths, each_file
from absint.lang import terms as T
from absint.lang.evaluator import NotEvaluable, evaluate
from absint.lang.numerals import brief
from absint.presets import facts as preset_facts
from absint.presets import option as preset_option
from absint.readers.smtlib import SmtLibError
from absint.search.labelling import DEFAULT_NODES, DEFAULT_SECONDS, Budget, Variable
from absint.search.solve import FOUND, IMPOSSIBLE, solve
from absint.search.wants import ProgramWithWants, WantError, WantNotRead, read_with_wants, to_smtlib_text

EPILOG = """\
answers:
  found       a point: a value for every declared symbol at which every assert and
              every want holds (checked by the evaluator before it is printed), and
              the outputs (output<k>_size<d>, ...) evaluated there
  impossible  no point exists: the asserts named (with the wants) contradict each
              other; a proof by propagation, or by an exhaustive labelling of finite
              domains (its asserts are then shrunk, each smaller set proved again)
  unknown     neither within the budget (--budget nodes, --time-limit seconds)
wants: infix as absint prints it (== != < <= > >= and or not + - * // % /, min, max,
  div, mod; // and % are SMT-LIB's Euclidean div and mod) or SMT-LIB; several --want
  options must all hold.
output: one line per file (FILE: status: ...); errors on stderr as
  FILE:LINE:COLUMN: message. With --json, one object per file and line:
  {"file", "status", "point", "outputs", "reason", "asserts", "nodes", "seconds"},
  status found / impossible / unknown / error; "asserts" lists the contradicting
  asserts as {"index" (from 0), "at" (FILE:LINE:COLUMN)}; with --preset also
  "presets": the preset facts in the contradiction, 'preset NAME: FACT'.
--preset NAME: the preset's facts are assumed ahead of the asserts: a found point
  satisfies them too (checked by the evaluator); assert indices still count the
  program's asserts only, and a preset fact in a contradiction is named
  'preset NAME: FACT'.
exit status: 0 when every file was answered (whatever the answer); 1 when a file
  could not be read or parsed; 2 on a usage error (a want that does not parse, or
  names what a file does not define; an unknown --preset), or when a --preset fact
  is false at a file's example point (the preset is refused; the error names it).
"""


@attrs.frozen(slots=True)
class Report:
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
                 presets: tuple[str, ...] = ()) -> Report:
    """Solve one program with its wants and render the answer. With ``presets``, their
    facts (checked at the example point: a refused preset is the file's error, a usage
    error) come ahead of the asserts; a found point satisfies them too."""
    program = read.program
    try:
        assumed = preset_facts.checked_facts(program, presets)
    except preset_facts.PresetRefused as e:
        return Report(file, "error", reason=_one_line(f"{file}: {e}"), usage_error=True)
    k = len(assumed)
    symbols = [Variable(s.name, s.term, s.hint) for s in program.symbols]
    facts = [f.term for f in assumed] + [f.term for f in program.facts]
    sol = solve(symbols, facts, [w.term for w in read.wants], budget, seed)
    spent = dict(nodes=sol.nodes, seconds=sol.seconds)
    if sol.status == FOUND:
        point = {k: json_value(v) for k, v in sol.point.items()}
        return Report(file, FOUND, point, outputs_at(program.outputs, sol.point), sol.how, **spent)
    if sol.status == IMPOSSIBLE:
        # the core indexes [preset facts..., asserts...]: the asserts keep the program's indices
        named = tuple(f"preset {assumed[i].preset}: {assumed[i].text}" for i in sol.core if i < k)
        at = tuple((i - k, _position(program.facts[i - k])) for i in sol.core if i >= k)
        where = ", ".join(f"{i} ({p})" if p else str(i) for i, p in at[:8]) + (" ..." if len(at) > 8 else "")
        parts = ([f"asserts {where}"] if at else []) + list(named)
        reason = f"{sol.how}; " + (f"the wants contradict {', '.join(parts)}" if parts else "no assert needed")
        return Report(file, IMPOSSIBLE, reason=reason, asserts=at, presets=named if presets else None, **spent)
    return Report(file, sol.status, reason=sol.how, **spent)


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


def solve_file(path: str, wants: list[str], budget: Budget, seed: int, presets: tuple[str, ...] = ()) -> Report:
    """One file's report; never raises for a bad file."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        with T.fresh_table():
            return solve_loaded(read_with_wants(data, wants, path), path, budget, seed, presets)
    except SmtLibError as e:
        return Report(path, "error", reason=_one_line(f"{path}:{e.position.line}:{e.position.column}: {e.message}"))
    except WantNotRead as e:
        return Report(path, "error", reason=_one_line(str(e)), usage_error=True)
    except OSError as e:
        return Report(path, "error", reason=f"{path}: cannot read: {e.strerror or e}")
    except Exception as e:  # a bug of ours: the other files are still answered
        return Report(path, "error", reason=_one_line(f"{path}: internal error: {type(e).__name__}: {brief(str(e))}"))


def _one_line(text: str) -> str:
    return " ".join(text.split())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_paths(parser, EPILOG, json_help=JSON_HELP)
    parser.add_argument("--want", "-w", action="append", required=True, metavar="WANT", dest="wants",
                        help="a condition the point must satisfy, infix or SMT-LIB (repeatable)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random values tried (default 0)")
    parser.add_argument("--budget", type=int, default=DEFAULT_NODES, metavar="NODES",
                        help=f"values tried at most (default {DEFAULT_NODES})")
    parser.add_argument("--time-limit", type=float, default=DEFAULT_SECONDS, metavar="SECONDS",
                        help=f"wall-clock seconds of search per file (default {DEFAULT_SECONDS:g}; shrinking "
                             "the asserts of an exhaustive proof may take half as long again)")
    preset_option.add_argument(parser, "; a found point satisfies them too, and a preset fact in a "
                                       "contradiction is named 'preset NAME: FACT'")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="under each file's line, how the search decided (the strategy that found the "
                             "point, or the proof) and the nodes and seconds it spent")


def run(args) -> int:
    try:
        for w in args.wants:
            to_smtlib_text(w)
    except WantError as e:
        print(f"absint solve: {e}", file=sys.stderr)
        return 2
    if args.budget < 1 or not args.time_limit > 0:
        print("absint solve: --budget and --time-limit must be positive", file=sys.stderr)
        return 2
    budget = Budget(args.budget, args.time_limit)

    def job(path: str, presets: tuple[str, ...]) -> Outcome:
        report = solve_file(path, args.wants, budget, args.seed, presets)
        if report.status != "error":
            return Outcome(report.to_json(), (report.line(),) + ((report.spent(),) if args.verbose else ()))
        return Outcome(report.to_json(), (), (report.reason,), USAGE if report.usage_error else PROBLEM)

    return each_file(args, "solve", job, budgeted=False)
