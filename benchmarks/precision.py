"""Precision and CPU of absint against the Z3 reference verdicts, per model family.

    python -m benchmarks.precision [CORPUS_DIR] [--reference FILE] [--jsonl RESULTS] [--jobs N]

Without ``--jsonl`` it analyses every file (in a process pool) itself; with it,
it reads the records an earlier ``absint analyze --jsonl`` run wrote. Per family
(the file name before ``___``) and in total it prints: asserts, Z3's ``T``,
how many of those absint also proves (the recall the issues measure), absint's
``T`` where Z3 gave up (``u``/``x``), and the soundness counters that must stay
zero: absint ``F`` anywhere (every corpus assert holds at its example point) and
absint ``T`` where Z3 found the assert not implied (``?``). CPU time is compared
with the reference's per-file Z3 seconds.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus"
DEFAULT_REFERENCE = ROOT.parent / "shared" / "reference" / "z3_dev.txt"


def read_reference(path: Path) -> dict[str, tuple[str, float]]:
    out = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3:
                name, letters, seconds = parts
                out[name] = ("" if letters == "-" else letters, float(seconds))
    return out


def family(name: str) -> str:
    return os.path.basename(name).split("___")[0]


def _analyze(path: str) -> dict:
    from absint.batch.analyze import analyze_file

    return analyze_file(path).to_json()


def run_analysis(corpus: Path, jobs: int) -> list[dict]:
    files = sorted(str(p) for p in corpus.glob("*.smt2"))
    files.sort(key=lambda f: -os.path.getsize(f))  # big first: balances the pool
    with multiprocessing.get_context("fork").Pool(jobs, maxtasksperchild=64) as pool:
        return list(pool.imap_unordered(_analyze, files, chunksize=1))


def tabulate(records: list[dict], reference: dict[str, tuple[str, float]]) -> tuple[list[tuple], dict]:
    fam: dict[str, dict] = defaultdict(lambda: defaultdict(float))
    problems: list[str] = []
    for rec in records:
        name = os.path.basename(rec["file"])  # records keep the path as given; the reference names files
        if name not in reference:
            continue
        ref, z3_seconds = reference[name]
        row = fam[family(name)]
        row["files"] += 1
        row["z3_cpu"] += z3_seconds
        row["absint_cpu"] += rec.get("seconds") or 0.0
        if rec.get("error"):
            row["errors"] += 1
            problems.append(f"{name}: error {rec['error']}")
            continue
        ours = rec["verdicts"]
        if len(ours) != len(ref):
            problems.append(f"{name}: {len(ours)} verdicts but the reference has {len(ref)}")
            continue
        for i, (a, z) in enumerate(zip(ours, ref)):
            row["asserts"] += 1
            row["z3_T"] += z == "T"
            row["both_T"] += a == "T" and z == "T"
            row["absint_T"] += a == "T"
            row["T_where_z3_gave_up"] += a == "T" and z in "ux"
            if a == "F":
                row["absint_F"] += 1
                problems.append(f"{name}: assert {i} refuted (F), but it holds at the example point")
            if a == "T" and z == "?":
                row["T_where_z3_open"] += 1
                problems.append(f"{name}: assert {i} is T here but not implied for Z3")
        for i in rec.get("example_violations") or []:
            problems.append(f"{name}: assert {i}: verdict contradicted by the example point")
    total: dict = defaultdict(float)
    for row in fam.values():
        for k, v in row.items():
            total[k] += v
    rows = [(name, fam[name]) for name in sorted(fam)]
    return rows + [("TOTAL", total)], {"problems": problems}


def time_limits(records: list[dict]) -> tuple[list[tuple[str, float, float]], tuple[str, float, float] | None]:
    """Files over the per-file limit of 3 x parse time + 1 s (CPU, parsing included), and
    the file closest to its limit, as (name, seconds, limit)."""
    over, closest = [], None
    for rec in records:
        if rec.get("error") or rec.get("parse_seconds") is None:
            continue
        limit = 3 * rec["parse_seconds"] + 1
        row = (rec["file"], rec["seconds"], limit)
        if rec["seconds"] > limit:
            over.append(row)
        if closest is None or rec["seconds"] / limit > closest[1] / closest[2]:
            closest = row
    return over, closest


def render(rows: list[tuple]) -> str:
    head = (f"{'family':36} {'files':>5} {'asserts':>8} {'z3 T':>8} {'absint T':>8} {'recall':>8} "
            f"{'T/z3-u,x':>8} {'F':>3} {'T/z3-?':>6} {'absint s':>9} {'z3 s':>9} {'z3/absint':>9}")
    lines = [head, "-" * len(head)]
    for name, r in rows:
        recall = r["both_T"] / r["z3_T"] if r["z3_T"] else 1.0
        ratio = r["z3_cpu"] / r["absint_cpu"] if r["absint_cpu"] else float("inf")
        lines.append(
            f"{name[:36]:36} {int(r['files']):5} {int(r['asserts']):8} {int(r['z3_T']):8} {int(r['both_T']):8} "
            f"{recall:8.2%} {int(r['T_where_z3_gave_up']):8} {int(r['absint_F']):3} {int(r['T_where_z3_open']):6} "
            f"{r['absint_cpu']:9.2f} {r['z3_cpu']:9.2f} {ratio:8.1f}x")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.precision", description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS, help="directory of .smt2 files")
    ap.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE, help="Z3 reference verdicts")
    ap.add_argument("--jsonl", type=Path, help="read records from an 'absint analyze --jsonl' run instead")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: all cores)")
    ap.add_argument("--families", action="store_true", help="print every family, not just the total")
    args = ap.parse_args(argv)
    if not args.reference.exists():
        print(f"reference verdicts not found: {args.reference}", file=sys.stderr)
        return 2
    reference = read_reference(args.reference)
    start = time.perf_counter()
    if args.jsonl:
        with open(args.jsonl) as f:
            records = [json.loads(line) for line in f if line.strip()]
    else:
        if not args.corpus.is_dir():
            print(f"corpus directory not found: {args.corpus}", file=sys.stderr)
            return 2
        records = run_analysis(args.corpus, args.jobs)
    rows, info = tabulate(records, reference)
    shown = rows if args.families else rows[-1:]
    print(render(shown))
    print(f"wall {time.perf_counter() - start:.1f} s; recall = absint T among Z3's T; "
          "F and T/z3-? are soundness counters and must be 0")
    over, closest = time_limits(records)
    if closest is not None:
        name, seconds, limit = closest
        print(f"per-file limit 3 x parse + 1 s: {len(over)} file(s) over; closest {name} "
              f"at {seconds:.2f} s of {limit:.2f} s")
    for name, seconds, limit in over[:20]:
        print(f"OVER LIMIT: {name}: {seconds:.2f} s > {limit:.2f} s")
    for p in info["problems"][:50]:
        print("PROBLEM:", p)
    return 1 if info["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
