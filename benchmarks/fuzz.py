"""Fuzzing the reader and the analysis: mutated shape programs, every verdict checked against Z3.

Programs are generated here (benchmarks.generators' corpus-like programs, and small random
ones with divisors that can be zero), then mutated: huge numerals, zero divisors, deep
``define-fun`` chains, nested macros, long ``distinct``, redefined operators, stray
quotes, deleted or inserted tokens, bytes that are not UTF-8. For each input:

* reading may fail only with the documented error (:class:`SmtLibError`, positioned);
* the analysis never raises and finishes within ``--budget`` seconds;
* every TRUE/FALSE verdict is checked by Z3 on the original text (assert ``i`` against
  asserts ``0..i-1``): a TRUE with a counterexample or a FALSE with a model is WRONG.

Each worker runs under ``--max-memory`` (address space; an input past it is a crash with
its seed, or a Z3 error when Z3 is the one that ran out) and is replaced every ~2,000
inputs. A worker that dies anyway (the OOM killer) does not stop the run: its inputs are run
again one by one, each in a worker of its own, and the one that kills it is a crash.

    python -m benchmarks.fuzz --count 100000 --jobs 2 --seed 1

prints a summary (inputs, read errors, analysed, verdicts checked, wrong, crashes,
timeouts) and the first few offending inputs, written to ``--out`` for replay.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import sys
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Iterator

from absint.lang.numerals import int_text
from benchmarks import generators as G

_INT = re.compile(r"(?<![\w.])\d+(?![\w.])")
_DIV = re.compile(r"\((div|mod) ")
VOCABULARY = ["(", ")", "|", '"', "div", "mod", "+", "-", "*", "/", "^", "ite", "and", "or", "not", "=",
              "<=", "distinct", "let", "to_int", "to_real", "0", "-1", "1.5", "true", "x", "s0", "u0", ";"]


# ---------------------------------------------------------------- programs


def _small(rng: random.Random) -> str:
    """A random program over s0, s1 (backed) and u0 (unbacked), divisors that can be zero."""
    hint = {"s0": rng.randint(-2, 6), "s1": rng.randint(0, 4)}
    lines = [G.PRELUDE_TEXT] + [f"(declare-const {n} Int)\n(set-info :example-{n} {v})" for n, v in hint.items()]
    lines.append("(declare-const u0 Int)")
    names = ["s0", "s1", "u0", "(- s0 s1)", "(* s0 s1)", "(mod u0 s0)"]

    def term(depth: int) -> str:
        if depth == 0 or rng.random() < 0.3:
            return rng.choice(names + [str(rng.randint(-3, 8))])
        op = rng.choice(["+", "-", "*", "div", "mod", "div", "mod", "min2", "max2"])
        return f"({op} {term(depth - 1)} {term(depth - 1)})"

    for _ in range(rng.randint(2, 8)):
        lines.append(f"(assert ({rng.choice(['<=', '<', '=', '>=', '>'])} {term(3)} {term(2)}))")
    return "\n".join(lines) + "\n"


def base_program(rng: random.Random) -> str:
    kind = rng.choice(["small", "small", "small", "conv", "reshape", "attention", "jagged", "chain"])
    if kind == "small":
        return _small(rng)
    n = {"conv": rng.randint(1, 4), "reshape": rng.randint(1, 4), "jagged": rng.randint(2, 8),
         "chain": rng.randint(2, 10), "attention": None}[kind]
    return G.build(kind, n, seed=rng.randint(0, 10**6)).text


def _huge_numeral(text: str, rng: random.Random) -> str:
    found = list(_INT.finditer(text))
    if not found:
        return text
    m = rng.choice(found)
    big = int_text(10 ** rng.choice([20, 400, 5000]) + rng.randint(-2, 2))
    return text[:m.start()] + big + text[m.end():]


def _zero_divisor(text: str, rng: random.Random) -> str:
    return text + rng.choice(["(assert (>= (div s0 (- s0 s0)) 0))\n", "(assert (= (mod (* s0 8) (* s0 u0)) 0))\n",
                              "(assert (<= (div (* u0 s0) (* u0 (mod s0 u0))) s0))\n"]) \
        if "(declare-const s0 Int)" in text and "(declare-const u0 Int)" in text else \
        _DIV.sub(lambda m: f"({m.group(1)} ", text).replace("(div ", "(div (- 1 1) ", 1)


def _deep_chain(text: str, rng: random.Random) -> str:
    n = rng.choice([50, 500, 3000])
    sym = "s0" if "(declare-const s0 Int)" in text else "fz_x"
    head = "" if sym == "s0" else "(declare-const fz_x Int)\n"
    body = "".join(f"(define-fun fz_d{i} () Int (+ (div fz_d{i - 1} 2) {sym}))\n" for i in range(1, n))
    return text + head + f"(define-fun fz_d0 () Int {sym})\n" + body + f"(assert (>= fz_d{n - 1} (- 1)))\n"


def _macros(text: str, rng: random.Random) -> str:
    n = rng.randint(5, 40)
    defs = "(define-fun fz_m0 ((a Int)) Int (+ a 1))\n" + "".join(
        f"(define-fun fz_m{i} ((a Int)) Int (+ (fz_m{i - 1} a) (fz_m{i - 1} a)))\n" for i in range(1, n))
    return text + "(declare-const fz_y Int)\n" + defs + f"(assert (> (fz_m{n - 1} fz_y) 0))\n"


def _distinct(text: str, rng: random.Random) -> str:
    n = rng.choice([3, 20, 2000])
    decl = "".join(f"(declare-const fz_v{i} Int)\n" for i in range(n))
    return text + decl + "(assert (distinct " + " ".join(f"fz_v{i}" for i in range(n)) + "))\n"


def _tokens(text: str, rng: random.Random) -> str:
    toks = re.findall(r"\s+|[()]|[^\s()]+", text)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(toks))
        action = rng.random()
        if action < 0.4:
            del toks[i]
        elif action < 0.8:
            toks.insert(i, rng.choice(VOCABULARY))
        else:
            toks.insert(i, toks[i])
    return "".join(toks)


MUTATIONS = {
    "huge numeral": _huge_numeral,
    "zero divisor": _zero_divisor,
    "deep chain": _deep_chain,
    "nested macros": _macros,
    "distinct": _distinct,
    "redefinition": lambda t, rng: rng.choice(["(define-fun + ((a Int) (b Int)) Int a)\n",
                                               "(define-fun true () Bool false)\n"]) + t,
    "stray quote": lambda t, rng: (lambda i: t[:i] + rng.choice(["|", '"']) + t[i:])(rng.randrange(len(t))),
    "tokens": _tokens,
    "none": lambda t, rng: t,
}


def program(seed: int) -> tuple[str, bytes]:
    """The ``seed``-th fuzz input: (the mutations applied, the bytes)."""
    rng = random.Random(seed)
    text = base_program(rng)
    applied = rng.sample(list(MUTATIONS), rng.choice([1, 1, 2]))
    for name in applied:
        text = MUTATIONS[name](text, rng)
    data = text.encode()
    if rng.random() < 0.02:
        i = rng.randrange(len(data))
        data = data[:i] + bytes([rng.choice([0xff, 0xc3, 0x80])]) + data[i:]
    return "+".join(applied), data


# ---------------------------------------------------------------- one input


class _Budget(Exception):
    pass


def _alarm(signum, frame):
    raise _Budget


def run_one(seed: int, budget: float = 20.0, z3_timeout_ms: int = 2000) -> dict:
    """The outcome of one input (see the module docstring); never raises."""
    from absint.analysis import analyze_program
    from absint.lang.terms import fresh_table
    from absint.readers.smtlib import SmtLibError, parse_bytes

    from absint.batch.executors import FAULT_ENV, parse_faults

    if parse_faults(os.environ.get(FAULT_ENV)).get(f"fuzz{seed}.smt2") == "kill-worker":  # tests only
        os._exit(71)
    mutation, data = program(seed)
    out = {"seed": seed, "mutation": mutation, "outcome": "analysed", "checked": 0, "wrong": [], "z3": "ok"}
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, budget)
    try:
        with fresh_table():
            try:
                prog = parse_bytes(data, f"fuzz{seed}.smt2")
            except SmtLibError as e:
                out.update(outcome="read error", error=e.message[:80])
                return out
            letters = analyze_program(prog, check_example=False).letters
    except _Budget:
        out["outcome"] = "timeout"
        return out
    except Exception as e:  # noqa: BLE001 - what the fuzzer is looking for
        out.update(outcome="crash", error=f"{type(e).__name__}: {str(e)[:200]}")
        return out
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    out["verdicts"] = letters
    try:
        _check_with_z3(data, letters, out, z3_timeout_ms)
    except Exception as e:  # noqa: BLE001 - Z3's own limits (its Python API prints numbers as str)
        out["z3"] = f"error: {type(e).__name__}"
    return out


#: inputs with more symbols are not given to Z3 (a 2,000-argument ``distinct`` costs it seconds
#: per query); their analysis is still run and must not crash or time out
MAX_Z3_SYMBOLS = 500


def _check_with_z3(data: bytes, letters: str, out: dict, timeout_ms: int) -> None:
    if not any(v in "TF" for v in letters):
        return
    if data.count(b"(declare-const ") > MAX_Z3_SYMBOLS:
        out["z3"] = f"skipped: over {MAX_Z3_SYMBOLS} symbols"
        out["unconfirmed"] = sum(v in "TF" for v in letters)
        return
    import z3

    ctx = z3.Context()  # one per input: Z3's main context would keep every input's terms
    try:
        asserts = list(z3.parse_smt2_string(data.decode(), ctx=ctx))
    except Exception:  # noqa: BLE001 - Z3 may refuse what absint reads (then nothing is checked)
        out["z3"] = "cannot parse"
        return
    if len(asserts) != len(letters):
        out["z3"] = "assert count differs"
        return
    solver = z3.Solver(ctx=ctx)
    solver.set("timeout", timeout_ms)
    for i, (a, v) in enumerate(zip(asserts, letters)):
        if v in "TF":
            solver.push()
            solver.add(z3.Not(a) if v == "T" else a)
            r = solver.check()
            solver.pop()
            if r == z3.sat:
                out["wrong"].append(i)
            out["checked"] += r == z3.unsat
            out["unconfirmed"] = out.get("unconfirmed", 0) + (r == z3.unknown)
        solver.add(a)


# ---------------------------------------------------------------- many inputs


#: seeds per task sent to a worker
CHUNK = 32


def _limit_memory(max_memory_mb: int) -> None:
    """Worker initializer: an input that would take more than ``max_memory_mb`` gets a
    MemoryError (a crash, with its seed) instead of taking the machine."""
    if max_memory_mb > 0:
        import resource

        limit = max_memory_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))


def run_chunk(seeds: list[int], budget: float, z3_timeout_ms: int) -> list[dict]:
    return [run_one(s, budget, z3_timeout_ms) for s in seeds]


def _pool(jobs: int, max_memory_mb: int) -> ProcessPoolExecutor:
    # workers are replaced now and then, so that nothing one input leaves behind adds up
    return ProcessPoolExecutor(jobs, max_tasks_per_child=2000 // CHUNK, initializer=_limit_memory,
                               initargs=(max_memory_mb,))


def _alone(seed: int, budget: float, z3_timeout_ms: int, max_memory_mb: int) -> dict:
    """One input in a worker of its own: a worker that dies on it names the input."""
    with _pool(1, max_memory_mb) as pool:
        try:
            return pool.submit(run_one, seed, budget, z3_timeout_ms).result()
        except BrokenProcessPool:
            return {"seed": seed, "mutation": program(seed)[0], "outcome": "crash", "checked": 0, "wrong": [],
                    "z3": "ok", "error": "the worker process died (killed, or out of memory below the limit)"}


def outcomes(count: int, seed: int, jobs: int, budget: float, z3_timeout_ms: int,
             max_memory_mb: int) -> Iterator[dict]:
    """Every input's outcome (in no particular order). When a worker dies, the inputs it
    held are run again one by one, each in a worker of its own, and the one that kills its
    worker is reported as a crash: a dead worker never stops the run."""
    chunks = [list(range(a, min(a + CHUNK, seed + count))) for a in range(seed, seed + count, CHUNK)]
    todo = list(reversed(chunks))
    while todo:
        lost: list[int] = []
        with _pool(jobs, max_memory_mb) as pool:
            running = {}
            while todo or running:
                while todo and len(running) < 4 * jobs:
                    c = todo.pop()
                    running[pool.submit(run_chunk, c, budget, z3_timeout_ms)] = c
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for f in done:
                    c = running.pop(f)
                    try:
                        yield from f.result()
                    except BrokenProcessPool:
                        lost += c
                if lost:
                    lost += [s for c in running.values() for s in c]
                    break
        for s in lost:
            yield _alone(s, budget, z3_timeout_ms, max_memory_mb)


def run(count: int, seed: int, jobs: int, budget: float, z3_timeout_ms: int = 2000,
        max_memory_mb: int = 4096) -> tuple[Counter, list[dict]]:
    totals: Counter = Counter()
    bad: list[dict] = []
    for n, r in enumerate(outcomes(count, seed, jobs, budget, z3_timeout_ms, max_memory_mb), 1):
        totals[r["outcome"]] += 1
        totals["verdicts checked"] += r["checked"]
        totals["verdicts Z3 could not confirm (timeout, skipped)"] += r.get("unconfirmed", 0)
        totals["wrong"] += len(r["wrong"])
        if r["z3"] != "ok":
            totals[f"z3 {r['z3']}"] += 1
        if r["outcome"] in ("crash", "timeout") or r["wrong"]:
            bad.append(r)
        if n % 1000 == 0:
            print(f"{n}/{count} inputs, {totals['wrong']} wrong, {totals['crash']} crashes, "
                  f"{totals['timeout']} timeouts", file=sys.stderr, flush=True)
    return totals, bad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.fuzz", description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=1000, help="inputs (default %(default)s)")
    ap.add_argument("--seed", type=int, default=0, help="first seed; input k is program(seed + k)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--budget", type=float, default=20.0, help="seconds per input (default %(default)g)")
    ap.add_argument("--z3-timeout-ms", type=int, default=2000,
                    help="Z3's limit per verdict check; a check it cannot finish counts as unconfirmed "
                         "(default %(default)s)")
    ap.add_argument("--max-memory", type=int, default=4096, metavar="MB",
                    help="address space per worker; an input past it is a crash (default %(default)s)")
    ap.add_argument("--out", default="fuzz-out.json", help="where the offending inputs' seeds go")
    args = ap.parse_args(argv)
    start = time.time()
    totals, bad = run(args.count, args.seed, args.jobs, args.budget, args.z3_timeout_ms, args.max_memory)
    print(json.dumps({"inputs": args.count, **totals, "wall_seconds": round(time.time() - start, 1)}, indent=1))
    for r in bad[:10]:
        print(f"seed {r['seed']} ({r['mutation']}): {r['outcome']} {r.get('error', '')} wrong at {r['wrong']}")
    with open(args.out, "w") as f:
        json.dump(bad, f, indent=1)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
