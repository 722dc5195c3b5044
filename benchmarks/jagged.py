"""The jagged split with N unbacked lengths: absint against Z3 on the same files.

    python -m benchmarks.jagged [--sizes 10,50,100,200,500] [--no-z3] [--timeout-ms 1000]

For each N it generates ``benchmarks.generators.jagged_split(N)`` (written to a
temporary file so both reasoners read the same text), then prints, for absint
and for Z3 (asked, assert by assert, whether each is implied by the ones before
it): the split guards proved, the asserts left open, and the CPU seconds
(parsing included), with the ratio.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.generators import build_jagged_split


def absint_run(text: str) -> tuple[str, float]:
    from absint.analysis import analyze_program
    from absint.readers.smtlib import parse
    from absint.lang.terms import fresh_table

    start = time.process_time()
    with fresh_table():
        letters = analyze_program(parse(text, "jagged.smt2")).letters
    return letters, time.process_time() - start


def z3_run(data: bytes, timeout_ms: int) -> tuple[str, float] | None:
    try:
        from absint.compare.z3_oracle import run_file
    except ImportError:
        return None
    result = run_file(data, timeout_ms=timeout_ms, budget_s=600.0)
    if result.error:
        raise RuntimeError(result.error)
    return result.letters, result.total_seconds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.jagged", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10,50,100,200,500", help="comma-separated N (default: %(default)s)")
    ap.add_argument("--no-z3", action="store_true", help="time absint only")
    ap.add_argument("--timeout-ms", type=int, default=1000, help="Z3 time limit per query (default 1000)")
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",") if x]
    use_z3 = not args.no_z3
    if use_z3:
        try:
            import z3  # noqa: F401
        except ImportError:
            print("z3 is not installed (pip install 'absint[z3]'); timing absint only", file=sys.stderr)
            use_z3 = False
    print(f"{'N':>5} {'guards':>7} {'absint T':>9} {'absint s':>9} {'z3 T':>7} {'z3 s':>9} {'z3/absint':>10}")
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            gen = build_jagged_split(n)
            path = Path(tmp) / f"jagged_{n}.smt2"
            path.write_text(gen.text)
            guards = [i for i, c in enumerate(gen.claims) if c == "T"]
            letters, seconds = absint_run(gen.text)
            ours = sum(letters[i] == "T" for i in guards)
            failed |= ours != len(guards)
            line = f"{n:5} {len(guards):7} {ours:9} {seconds:9.3f}"
            if use_z3:
                z = z3_run(path.read_bytes(), args.timeout_ms)
                zl, zs = z
                theirs = sum(zl[i] == "T" for i in guards)
                line += f" {theirs:7} {zs:9.3f} {zs / seconds:9.1f}x"
            print(line, flush=True)
    if failed:
        print("not every split guard was proved", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
