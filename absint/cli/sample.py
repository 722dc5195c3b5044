"""``absint sample``: shapes that satisfy operator specifications, as graph fuzzers ask of Z3.

A spec is a shape program whose attributes and shapes are symbols and whose constraints
are asserts (``examples/specs/*.smt2``). Every assert is assumed; then N points are drawn
(:mod:`absint.search.sampling`), each checked by the evaluator against every assert, or
with ``--exhaustive`` every solution is listed or counted. ``impossible`` is reported only
when it is proved, never as an empty list.
"""

from __future__ import annotations

import argparse

import attrs

from absint.cli.runner import JSON_HELP, Outcome, add_paths, each_file, reported
from absint.lang import terms as T
from absint.reasoning.reasoner import Reasoner
from absint.readers.smtlib import SmtLibError, read_file
from absint.search.sampling import DEFAULT_LIMIT, IMPOSSIBLE, LARGEST, SAT, Samples, Unsampleable, sample, solutions

EPILOG = """\
what is reported, per file:
  sat         the points listed satisfy every assert (each is checked by the evaluator)
  impossible  proved: the asserts are contradictory, or --exhaustive tried every point
  unknown     no point found, and none proved absent
With --exhaustive, every solution is listed (at most --limit of them) with their number;
--count-only gives the number alone. Samples are drawn within -65536..65536 where the asserts
allow it (--max changes the bound, --max none lifts it); symbols unbounded on a side are drawn
from a window of 256 values next to their bound (samples), or refused (--exhaustive). The
symbols whose values were chosen that way, not forced by the asserts, are listed as "free".
output:
  text on stdout, errors on stderr as 'FILE:LINE:COLUMN: message' (or 'FILE: message');
  with --json, one JSON object per line and file:
  {"file", "status": "sat" | "impossible" | "unknown", "samples": [{symbol: int}]}, plus
  "free" (symbols drawn within --max or a window) for samples, "count" and "complete" with
  --exhaustive, "reason" when there is one, "error" on an error.
exit status: 0 if every file was reported; 1 if a file could not be read, parsed or sampled
  (the other files are still reported); 2 on a usage error.
"""


@attrs.frozen(slots=True)
class FileSamples:
    """One file's answer (``result`` None when ``error`` says why there is none)."""

    file: str
    result: Samples | None = None
    error: str | None = None

    def to_json(self, exhaustive: bool) -> dict:
        if self.result is None:
            return {"file": self.file, "status": None, "samples": [], "error": self.error}
        r = self.result
        d: dict = {"file": self.file, "status": r.status, "samples": [dict(p) for p in r.points]}
        if exhaustive:
            d["count"], d["complete"] = r.count, r.complete
        else:
            d["free"] = list(r.free)
        if r.reason is not None:
            d["reason"] = r.reason
        return d


def sample_file(path: str, n: int, seed: int | None = None, exhaustive: bool = False,
                limit: int = DEFAULT_LIMIT, keep: bool = True, largest: int | None = LARGEST) -> FileSamples:
    """One file's samples; never raises for a bad file (the error is in the report). Read in a
    fresh term table, as ``absint analyze`` does, so the answer does not depend on earlier files."""
    try:
        with T.fresh_table():
            program = read_file(path)
            r = Reasoner()
            for fact in program.facts:
                r.assume(fact.term)
            symbols = [s.term for s in program.symbols]
            found = solutions(r, limit, keep, symbols) if exhaustive else sample(r, n, seed, symbols, largest, _example(program))
            order = [s.name for s in program.symbols]  # points as the spec declares its symbols
            points = tuple({k: p[k] for k in order if k in p} for p in found.points)
            return FileSamples(path, attrs.evolve(found, points=points))
    except SmtLibError as e:
        pos = e.position
        return FileSamples(path, error=_one_line(f"{path}:{pos.line}:{pos.column}: {e.message}"))
    except OSError as e:
        return FileSamples(path, error=_one_line(f"{path}: cannot read: {e.strerror or e}"))
    except Unsampleable as e:
        return FileSamples(path, error=_one_line(f"{path}: {e}"))
    except Exception as e:  # a bug of ours: the other files are still reported
        return FileSamples(path, error=_one_line(f"{path}: internal error: {type(e).__name__}: {e}"))


def _example(program) -> dict[str, int] | None:
    """The file's example point, when every symbol has an integer one (a solution to walk from)."""
    point = program.hints()
    complete = len(point) == len(program.symbols) and all(isinstance(v, int) for v in point.values())
    return point if complete else None


def _one_line(text: str) -> str:
    return " ".join(text.split())


def lines(report: FileSamples, exhaustive: bool) -> list[str]:
    """The readable answer of one file (without its error, which goes to stderr)."""
    r = report.result
    assert r is not None
    head = f"{report.file}: {r.status}"
    if exhaustive and r.count is not None and r.status != IMPOSSIBLE:
        head += f", {'' if r.complete else 'at least '}{r.count} solution(s)"
    elif r.status == SAT:
        head += f", {len(r.points)} sample(s)"
    if r.reason is not None:
        head += f" ({r.reason})"
    return [head] + ["  " + " ".join(f"{k}={v}" for k, v in p.items()) for p in r.points]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_paths(parser, EPILOG, "SPEC", json_help=JSON_HELP)
    parser.add_argument("-n", type=_natural, default=10, metavar="N", help="samples per spec (default 10)")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: a fresh one)")
    parser.add_argument("--exhaustive", action="store_true",
                        help="list every solution of a finite spec, and count them")
    parser.add_argument("--count-only", action="store_true", help="with --exhaustive: the number, not the list")
    parser.add_argument("--limit", type=_natural, default=DEFAULT_LIMIT, metavar="L",
                        help=f"with --exhaustive: stop after L solutions (default {DEFAULT_LIMIT})")
    parser.add_argument("--max", type=_largest, default=LARGEST, metavar="M", dest="largest",
                        help=f"samples: draw within -M..M where the asserts allow it (default {LARGEST}; "
                        "'none': anywhere they allow)")


def _largest(text: str) -> int | None:
    return None if text.strip().lower() == "none" else _natural(text)


def _natural(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {v}")
    return v


def run(args) -> int:
    def job(path: str, presets: tuple[str, ...]) -> Outcome:
        report = sample_file(path, args.n, args.seed, args.exhaustive, args.limit, not args.count_only, args.largest)
        return reported(report.to_json(args.exhaustive), lambda: lines(report, args.exhaustive), report.error)

    return each_file(args, "sample", job, budgeted=False)
