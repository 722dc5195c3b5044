"""``absint solve`` against Z3 on corpus queries: decided counts and median CPU times.

    python -m benchmarks.solve_corpus [CORPUS_DIR] [--files 25] [--seed 0] [--per-file 12]
                                      [--jsonl OUT] [--z3-timeout-ms 10000]

A deterministic sample of corpus files (``random.Random(seed).sample`` of the sorted
names); for each, queries of three kinds on its outputs, in order, at most
``--per-file`` (duplicates dropped):

- ``double``: ``outputK_sizeD == 2*current`` (current: its value at the hints);
- ``plus1``:  ``outputK_sizeD == current + 1``;
- ``prime``:  ``outputK_size0 * ... * outputK_sizeN == p``, ``p`` the least prime above
  the output's current numel.

absint: the file read with the want (:func:`absint.search.wants.read_with_wants`) and
solved; Z3: the file's text and ``(assert WANT)`` through ``z3.parse_smt2_string``,
then ``check()``. Both are timed in CPU seconds of this process, parsing included.
A query is *decided* when the answer is found/impossible (sat/unsat for Z3). Every
absint ``found`` point is checked again by the evaluator here, and an answer that
contradicts Z3's (found vs unsat, impossible vs sat) is counted as WRONG (must be 0).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus"
_SIZE = re.compile(r"output(\d+)_size(\d+)$")
_COMMANDS = re.compile(r"^\((check-sat|get-value|get-model|exit)\b.*$", re.M)
KINDS = ("double", "plus1", "prime")


def sample_files(corpus: Path, n: int, seed: int) -> list[Path]:
    names = sorted(p.name for p in corpus.glob("*.smt2"))
    return [corpus / name for name in random.Random(seed).sample(names, min(n, len(names)))]


def queries(program, per_file: int) -> list[tuple[str, str]]:
    """(kind, want) for a program, from its outputs' values at the hints."""
    import sympy

    from absint.lang.evaluator import NotEvaluable, evaluate

    hints = program.hints()
    sizes: dict[int, list[tuple[str, int]]] = {}
    for name, t in program.outputs:
        m = _SIZE.match(name)
        if m:
            try:
                sizes.setdefault(int(m.group(1)), []).append((name, evaluate(t, hints)))
            except NotEvaluable:
                continue
    out: list[tuple[str, str]] = []
    for k in sorted(sizes):
        for name, v in sizes[k]:
            out += [("double", f"{name} == {2 * v}"), ("plus1", f"{name} == {v + 1}")]
        numel = 1
        for _, v in sizes[k]:
            numel *= v
        out.append(("prime", f"{' * '.join(n for n, _ in sizes[k])} == {sympy.nextprime(max(numel, 1))}"))
    seen, unique = set(), []
    for kind, want in out:
        if want not in seen:
            seen.add(want)
            unique.append((kind, want))
    return unique[:per_file]


def run_absint(data: bytes, want: str, name: str) -> tuple[str, float, bool]:
    """(status, CPU seconds, whether a found point holds by the evaluator)."""
    from absint.lang import terms as T
    from absint.lang.evaluator import truth_at
    from absint.search.labelling import Variable
    from absint.search.solve import FOUND, solve
    from absint.search.wants import read_with_wants

    start = time.process_time()
    with T.fresh_table():
        read = read_with_wants(data, [want], name)
        symbols = [Variable(s.name, s.term, s.hint) for s in read.program.symbols]
        facts = [f.term for f in read.program.facts]
        sol = solve(symbols, facts, [w.term for w in read.wants])
        spent = time.process_time() - start
        ok = sol.status != FOUND or all(truth_at(t, sol.point) for t in [*facts, read.wants[0].term])
    return sol.status, spent, ok


def run_z3(text: str, want: str, timeout_ms: int) -> tuple[str, float]:
    import z3

    from absint.search.wants import to_smtlib_text

    body = _COMMANDS.sub("", text) + f"\n(assert {to_smtlib_text(want)})\n"
    start = time.process_time()
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.add(z3.parse_smt2_string(body))
    r = solver.check()
    return str(r), time.process_time() - start


def bench(files: list[Path], per_file: int, timeout_ms: int, jsonl) -> list[dict]:
    from absint.lang import terms as T
    from absint.readers.smtlib import parse_bytes

    rows = []
    for path in files:
        data = path.read_bytes()
        with T.fresh_table():
            program = parse_bytes(data, path.name)
            asked = queries(program, per_file)
        text = data.decode("utf-8")
        for kind, want in asked:
            status, a_cpu, ok = run_absint(data, want, path.name)
            z3_answer, z_cpu = run_z3(text, want, timeout_ms)
            wrong = (status == "found" and z3_answer == "unsat") or (status == "impossible" and z3_answer == "sat")
            row = dict(file=path.name, kind=kind, want=want, absint=status, absint_cpu=a_cpu, z3=z3_answer,
                       z3_cpu=z_cpu, wrong=wrong or not ok)
            rows.append(row)
            if jsonl is not None:
                jsonl.write(json.dumps(row) + "\n")
                jsonl.flush()
    return rows


def summary(rows: list[dict]) -> list[str]:
    lines = [f"{'kind':<8} {'queries':>7} {'found':>6} {'imposs':>6} {'unknown':>7} {'decided':>8} "
             f"{'z3 sat':>6} {'unsat':>6} {'z3 ?':>5} {'WRONG':>5} {'absint ms':>9} {'z3 ms':>7} {'ratio':>6}"]
    for kind in (*KINDS, "all"):
        rs = [r for r in rows if kind == "all" or r["kind"] == kind]
        if not rs:
            continue
        a, z = Counter(r["absint"] for r in rs), Counter(r["z3"] for r in rs)
        decided = a["found"] + a["impossible"]
        am = statistics.median(r["absint_cpu"] for r in rs) * 1e3
        zm = statistics.median(r["z3_cpu"] for r in rs) * 1e3
        lines.append(f"{kind:<8} {len(rs):>7} {a['found']:>6} {a['impossible']:>6} {a['unknown']:>7} "
                     f"{100 * decided / len(rs):>7.1f}% {z['sat']:>6} {z['unsat']:>6} {z['unknown']:>5} "
                     f"{sum(r['wrong'] for r in rs):>5} {am:>9.1f} {zm:>7.1f} {am / zm:>6.2f}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", default=str(DEFAULT_CORPUS))
    parser.add_argument("--files", type=int, default=25, help="files sampled (default 25)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    parser.add_argument("--per-file", type=int, default=12, help="queries per file at most (default 12)")
    parser.add_argument("--z3-timeout-ms", type=int, default=10000)
    parser.add_argument("--jsonl", help="write one record per query here")
    args = parser.parse_args(argv)
    corpus = Path(args.corpus)
    if not corpus.is_dir():
        print(f"no corpus at {corpus}", file=sys.stderr)
        return 2
    files = sample_files(corpus, args.files, args.seed)
    with open(args.jsonl, "w") if args.jsonl else open(os.devnull, "w") as out:
        rows = bench(files, args.per_file, args.z3_timeout_ms, out)
    print(f"{len(rows)} queries on {len(files)} files (sample seed {args.seed}); CPU medians, parsing included")
    print("\n".join(summary(rows)))
    return 1 if any(r["wrong"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
