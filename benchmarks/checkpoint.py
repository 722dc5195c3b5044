"""Micro-benchmark: a tentative fact through checkpoint/rollback against a fresh reasoner.

What finding inputs for a desired output, sampling shapes and translation validation do
over and over: given a program's facts, try one more fact (an input size fixed to a
value, or bounded), decide a guard, take the fact back. Two ways:

* ``rollback``: one reasoner told every fact once; per trial ``with r.tentatively():
  r.assume(tentative); r.decide(guard)``;
* ``fresh``: per trial a new :class:`~absint.reasoning.reasoner.Reasoner` told every
  fact, then the tentative fact, then asked the guard (what callers had to do before).

Programs come from :mod:`benchmarks.generators` (corpus-like); the trials pair every
backed symbol, fixed to its hint (``s = hint``) and bounded by it (``s <= hint``), with
the program's last asserts as guards. Both ways must give the same verdicts (counted:
the rolled-back reasoner is in the state a fresh one is); medians and their ratio are
printed. No timing is asserted anywhere.

Command line::

    python -m benchmarks.checkpoint [--kinds jagged,conv,...] [--n N] [--guards G] [--repeat R]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from absint.lang import terms as T
from absint.lang.program import Program
from absint.readers.smtlib import parse_bytes
from absint.reasoning.reasoner import Reasoner
from benchmarks.generators import BUILDERS, build


def program_of(kind: str, n: int | None) -> Program:
    return parse_bytes(build(kind, n).text.encode(), f"{kind}.smt2")


#: the tentative bound of an unbacked symbol
UNBACKED_BOUND = 1000
#: trials per program at most (symbols are taken in order)
MAX_TRIALS = 48


def trials(program: Program, guards: int) -> list[tuple]:
    """(tentative fact, guard) pairs: each backed symbol fixed to its hint and bounded by
    it (an unbacked one bounded by :data:`UNBACKED_BOUND`), against each of the last
    ``guards`` asserts."""
    asked = [f.term for f in program.facts[-guards:]]
    out = []
    for s in program.symbols:
        if s.sort is not T.INT:
            continue
        if s.hint is None:
            facts = (T.le(s.term, T.const(UNBACKED_BOUND)),)
        else:
            facts = (T.eq(s.term, T.const(s.hint)), T.le(s.term, T.const(s.hint)))
        out.extend((fact, g) for fact in facts for g in asked)
    return out[:MAX_TRIALS]


def told(program: Program) -> Reasoner:
    r = Reasoner(backed=[s.term for s in program.symbols if s.backed])
    for f in program.facts:
        r.assume(f.term)
    return r


def time_rollback(program: Program, pairs: list[tuple]) -> tuple[list[float], list]:
    r = told(program)
    times, verdicts = [], []
    for fact, guard in pairs:
        t0 = time.perf_counter()
        with r.tentatively():
            r.assume(fact)
            v = r.decide(guard)
        times.append(time.perf_counter() - t0)
        verdicts.append(v.truth)
    return times, verdicts


def time_fresh(program: Program, pairs: list[tuple]) -> tuple[list[float], list]:
    times, verdicts = [], []
    for fact, guard in pairs:
        t0 = time.perf_counter()
        r = told(program)
        r.assume(fact)
        v = r.decide(guard)
        times.append(time.perf_counter() - t0)
        verdicts.append(v.truth)
    return times, verdicts


def measure(kind: str, n: int | None, guards: int, repeat: int) -> tuple[float, float, int, int]:
    """Median seconds per trial (rollback, fresh), the number of trials, and how many
    verdicts differ between the two ways (0 expected)."""
    program = program_of(kind, n)
    pairs = trials(program, guards)
    rb, fr = [], []
    differ = 0
    for _ in range(repeat):
        t, v_rb = time_rollback(program, pairs)
        rb += t
        t, v_fr = time_fresh(program, pairs)
        fr += t
        differ = sum(a is not b for a, b in zip(v_rb, v_fr))
    return statistics.median(rb), statistics.median(fr), len(pairs), differ


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kinds", default=",".join(BUILDERS), help="generator kinds, comma-separated")
    ap.add_argument("--n", type=int, default=None, help="generator size (default: each kind's own)")
    ap.add_argument("--guards", type=int, default=4, help="last asserts asked as guards")
    ap.add_argument("--repeat", type=int, default=3, help="rounds over the trials")
    args = ap.parse_args(argv)
    print(f"{'program':<12} {'trials':>6} {'rollback ms':>12} {'fresh ms':>10} {'ratio':>7} {'verdicts differ':>16}")
    all_rb, all_fr = [], []
    for kind in args.kinds.split(","):
        rb, fr, n, differ = measure(kind, args.n, args.guards, args.repeat)
        all_rb.append(rb)
        all_fr.append(fr)
        print(f"{kind:<12} {n:>6} {rb * 1e3:>12.3f} {fr * 1e3:>10.3f} {fr / rb:>6.1f}x {differ:>16}")
    print(f"median of medians: rollback {statistics.median(all_rb) * 1e3:.3f} ms, "
          f"fresh {statistics.median(all_fr) * 1e3:.3f} ms, "
          f"ratio {statistics.median(all_fr) / statistics.median(all_rb):.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
