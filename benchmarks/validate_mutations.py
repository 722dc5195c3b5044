"""Bisection on mutated programs: ``absint validate --against`` against Z3.

Each chosen file gets one guard that ``absint analyze`` does not find implied by the ones
before it (a real guard) "simplified" wrongly (a bound moved by one, a conjunct lost,
or the guard replaced by true; see :func:`mutate`); the target program is the source with that
one assert replaced. Every other target equals its source, so only the mutated step ``i`` can
fail: Z3 decides it (``targets[:i+1]`` and ``not source[i]`` satisfiable?), and decides what
PyTorch's Z3 bisection checks, the end state (all targets and ``not source[i]``). absint must
report step ``i`` whenever Z3 finds it failing, with a point the evaluator confirmed, and
never a step Z3 proves passing.

    python -m benchmarks.validate_mutations CORPUS_DIR [--files 30] [--seed 0] [--timeout-ms 10000]

Nothing is written: the corpus stays where it is.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

import attrs

from absint.analysis import analyze_program
from absint.lang import terms as T
from absint.lang.printer import to_smtlib
from absint.lang.program import Fact, Program
from absint.lang.terms import Term, fresh_table
from absint.readers.smtlib import SmtLibError, read_file
from absint.search import engine
from absint.validation.check import bisect

PRELUDE = ("(define-fun ceil ((x Real)) Int (ite (= (to_int x) x) (to_int x) (+ (to_int x) 1)))\n"
           "(define-fun min2 ((x Int) (y Int)) Int (ite (< x y) x y))\n"
           "(define-fun max2 ((x Int) (y Int)) Int (ite (> x y) x y))\n")


def mutate(g: Term, rng: random.Random) -> Term:
    """A wrong "simplification": a comparison's bound moved by one, a conjunct lost, or True."""
    if g.kind in ("le", "lt", "eq", "ne") and rng.random() < 0.7:
        return T.rebuild(g, (T.sub(g.args[0], T.ONE if rng.random() < 0.5 else T.const(-1)),))
    if g.kind == "and" and len(g.args) > 1:
        return T.and_(*g.args[1:])
    return T.TRUE


def z3_sat(program: Program, facts: list[Term], goal: Term, timeout_ms: int) -> bool | None:
    """Whether ``facts`` and ``goal`` have a model (None: Z3 gave no answer)."""
    import z3

    decls = "".join(f"(declare-const {_quote(s.name)} {s.sort.value})\n" for s in program.symbols)
    text = PRELUDE + decls + "".join(f"(assert {to_smtlib(f)})\n" for f in [*facts, goal])
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    try:
        solver.add(z3.parse_smt2_string(text))
    except z3.Z3Exception:
        return None
    r = solver.check()
    return True if r == z3.sat else False if r == z3.unsat else None


def _quote(name: str) -> str:
    return name if name.replace("_", "a").isalnum() else f"|{name}|"


def one_file(path: str, rng: random.Random, timeout_ms: int) -> dict | None:
    """The mutated step, Z3's answers (step, end state) and absint's report on one file."""
    try:
        program = read_file(path)
    except SmtLibError:
        return None
    if not program.facts or any(t.kind == "fn" for f in program.facts for t in _kinds(f.term)):
        return None
    real = [k for k, letter in enumerate(analyze_program(program, check_example=False).letters) if letter != "T"]
    if not real:
        return None
    i = rng.choice(real)  # a guard the earlier ones do not imply: a wrong form of it can matter
    mutated = mutate(program.facts[i].term, rng)
    if mutated is program.facts[i].term:
        return None
    target = attrs.evolve(program, facts=tuple(Fact(mutated if f.index == i else f.term, f.index)
                                                 for f in program.facts))
    sources, targets = [f.term for f in program.facts], [f.term for f in target.facts]
    start = time.process_time()
    result = bisect(program, target)
    seconds = time.process_time() - start
    confirmed = result.first_failing is None or engine.holds(
        targets[:result.first_failing + 1], T.not_(sources[result.first_failing]), result.counterexample)
    return {"file": os.path.basename(path), "step": i, "absint": result.first_failing, "final": result.final,
            "confirmed": confirmed, "seconds": seconds,
            "z3_step": z3_sat(program, targets[:i + 1], T.not_(sources[i]), timeout_ms),
            "z3_end": z3_sat(program, targets, T.not_(sources[i]), timeout_ms)}


def _kinds(t: Term):
    from absint.lang.dag import subterms
    return subterms(t)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("corpus")
    p.add_argument("--files", type=int, default=30)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout-ms", type=int, default=10000)
    args = p.parse_args(argv)
    rng = random.Random(args.seed)
    names = sorted(n for n in os.listdir(args.corpus) if n.endswith(".smt2"))
    rows = []
    for name in rng.sample(names, min(len(names), 3 * args.files)):
        if len(rows) == args.files:
            break
        with fresh_table():
            row = one_file(os.path.join(args.corpus, name), rng, args.timeout_ms)
        if row is not None:
            rows.append(row)
            print(row, flush=True)
    _summary(rows)
    return 0


def _summary(rows: list[dict]) -> None:
    failing = [r for r in rows if r["z3_step"] is True]
    found = sum(r["absint"] == r["step"] for r in failing)
    wrong = sum(r["absint"] is not None and (r["z3_step"] is False or not r["confirmed"]) for r in rows)
    end = sum(r["z3_end"] is True for r in failing)
    print(f"{len(rows)} mutated files; the mutated step fails (Z3) in {len(failing)}: "
          f"absint finds it in {found}, Z3 on the end state (PyTorch's check) in {end}; "
          f"wrong reports {wrong}; Z3 no answer on {sum(r['z3_step'] is None for r in rows)} steps; "
          f"absint CPU {sum(r['seconds'] for r in rows):.1f} s")


if __name__ == "__main__":
    sys.exit(main())
