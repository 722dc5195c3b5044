"""Time per sample of ``absint sample`` against Z3 on operator specs (``examples/specs``).

absint: the spec read and assumed once, then N draws from :func:`absint.search.sampling.draws`,
each timed (each point is checked by the evaluator inside the draw). Z3, as graph fuzzers
use it: the spec parsed once into a solver with a random seed and random phase selection,
then N times ``check()``, the model read, and a clause blocking that model added (so Z3's
samples are distinct; absint's are independent draws, repeats allowed); each check has a
timeout (``--z3-timeout-ms``), and Z3 runs each spec in a fresh interpreter. Reported per spec:
the median time per sample of each, and their ratio; the setup (read, assume / parse) is
reported apart, as it is paid once per spec. Times are CPU times of this process
(``time.process_time``), so that a loaded machine slows neither side's figures.

    python -m benchmarks.sample_specs [SPEC...] [--n 200] [--seed 0]
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import time

from absint.lang import terms as T
from absint.readers.smtlib import read_file
from absint.reasoning.reasoner import Reasoner
from absint.search.sampling import draws, holds

SPECS = os.path.join(os.path.dirname(__file__), "..", "examples", "specs")


def absint_times(path: str, n: int, seed: int) -> tuple[float, list[float], int]:
    """Setup seconds, seconds per sample, and distinct samples."""
    with T.fresh_table():
        t0 = time.process_time()
        program = read_file(path)
        r = Reasoner()
        for fact in program.facts:
            r.assume(fact.term)
        setup = time.process_time() - t0
        if r.contradiction:
            return setup, [], 0
        facts = [f.term for f in program.facts]
        source = draws(r, seed, [s.term for s in program.symbols])
        times, seen = [], set()
        for _ in range(n):
            t = time.process_time()
            p = next(source)
            times.append(time.process_time() - t)
            assert p is not None and holds(facts, p), (path, p)
            seen.add(tuple(sorted(p.items())))
        source.close()
        return setup, times, len(seen)


def z3_times(path: str, n: int, seed: int, timeout_ms: int = 10_000) -> tuple[float, list[float], int, str]:
    """Setup seconds, seconds per sample (check, model, blocking clause), samples found, and
    how the enumeration ended (``done``, ``unsat`` or ``unknown``: a check that timed out)."""
    import z3

    t0 = time.process_time()
    z3.set_param("smt.random_seed", seed)
    z3.set_param("sat.random_seed", seed)
    z3.set_param("smt.phase_selection", 5)
    s = z3.Solver()
    s.set("random_seed", seed)
    s.set("timeout", timeout_ms)
    s.add(z3.parse_smt2_string(open(path).read()))
    names = [d for d in (read_file(path).symbols)]
    variables = [z3.Int(sym.name) for sym in names]
    setup = time.process_time() - t0
    times, found, end = [], 0, "done"
    for _ in range(n):
        t = time.process_time()
        r = s.check()
        if r != z3.sat:
            times.append(time.process_time() - t)
            end = str(r)
            break
        m = s.model()
        s.add(z3.Or([v != m.eval(v, model_completion=True) for v in variables]))
        times.append(time.process_time() - t)
        found += 1
    return setup, times, found, end


def z3_times_fresh(path: str, n: int, seed: int, timeout_ms: int) -> tuple[float, list[float], int, str]:
    """:func:`z3_times` in a fresh interpreter: Z3's global state (seeds, parameters, what an
    earlier spec left) changes how long its nonlinear searches take, so each spec starts anew."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(z3_times, path, n, seed, timeout_ms).result()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("specs", nargs="*", help="spec files (default: examples/specs/*.smt2)")
    parser.add_argument("--n", type=int, default=200, help="samples per spec (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--z3-timeout-ms", type=int, default=10_000, help="per check (default 10000)")
    args = parser.parse_args()
    files = args.specs or sorted(glob.glob(os.path.join(SPECS, "*.smt2")))
    print(f"{'spec':<20} {'absint ms':>10} {'z3 ms':>8} {'ratio':>6} {'setup a/z ms':>14} {'distinct a/z':>13}")
    ratios = []
    for path in files:
        a_setup, a, a_distinct = absint_times(path, args.n, args.seed)
        z_setup, z, z_found, z_end = z3_times_fresh(path, args.n, args.seed, args.z3_timeout_ms)
        name = os.path.basename(path)
        if not a:
            print(f"{name:<20} {'impossible':>10} (Z3: {z_end}) "
                  f"setup {a_setup * 1e3:.1f} / {z_setup * 1e3:.1f} ms")
            continue
        am, zm = statistics.median(a), statistics.median(z)
        ratios.append(am / zm)
        note = {"done": "", "unsat": f"  Z3: no other solution after {z_found}"}.get(
            z_end, f"  Z3 stopped: {z_end} (timeout) after {z_found} samples")
        print(f"{name:<20} {am * 1e3:>10.2f} {zm * 1e3:>8.2f} {am / zm:>6.2f} "
              f"{a_setup * 1e3:>6.1f} / {z_setup * 1e3:<6.1f} {a_distinct:>6} / {z_found:<6}{note}")
    if ratios:
        print(f"ratio absint / Z3 of median time per sample: max {max(ratios):.2f}, "
              f"median {statistics.median(ratios):.2f} ({args.n} samples per spec)")


if __name__ == "__main__":
    main()
