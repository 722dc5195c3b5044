"""One file's ``absint sample`` answer: shapes that satisfy an operator specification.

A spec is a shape program whose attributes and shapes are symbols and whose constraints
are asserts (``examples/specs/*.smt2``). Every assert is assumed; then N points are drawn
(:mod:`absint.search.sampling`), each checked by the evaluator against every assert, or
every solution is listed or counted. ``impossible`` is reported only when it is proved,
never as an empty list.
"""

from __future__ import annotations

import attrs

from absint.lang import terms as T
from absint.reasoning.reasoner import Reasoner
from absint.readers.smtlib import SmtLibError, read_file
from absint.search.sampling import DEFAULT_LIMIT, LARGEST, Samples, Unsampleable, sample, solutions


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
