"""Metamorphic checks on files: every rewrite of :mod:`absint.metamorphic.rewrites` (the same
program, written another way) must get the verdict letters of the original.

    python -m benchmarks.metamorphic [PATH...] [--rewrites NAME,...] [--jobs N] [--json]
                                     [--timeout S] [--max-memory MB] [--max-tokens N]

PATHs are files or folders of ``*.smt2`` (default ``../shared/corpus``). Each file's original
and each rewrite are analysed in a forked process under the time and memory limits
(``absint.batch.executors.run_forked``, as ``absint analyze`` does). Per rewrite it reports the
files checked, how many gave identical letters, and each difference (file, assert index,
letter before and after); files skipped (a rewrite over its size limit, or an original absint
does not analyse), rewrites that failed and timeouts are listed too. Exit status 1 when a
rewrite changed a letter or failed, else 0.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from pathlib import Path

import attrs

from absint.batch.executors import run_forked
from absint.metamorphic.check import DIFFERENT, ERROR, IDENTICAL, SKIPPED, RewriteOutcome, check, letters_of
from absint.metamorphic.rewrites import MAX_TOKENS, REWRITES
from absint.readers.files import smt2_files

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus"
TIMEOUT = "timeout"


@attrs.frozen(slots=True)
class Job:
    path: str
    rewrites: tuple[str, ...]
    timeout: float
    max_memory: int
    max_tokens: int


def check_file(job: Job) -> list[tuple[RewriteOutcome, float]]:
    """Every rewrite of one file, each with the CPU seconds it took (the analysis of the
    original is timed apart, under the name ``original``)."""
    name = os.path.basename(job.path)
    with open(job.path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    base = run_forked(lambda: letters_of(name, text), job.timeout, job.max_memory)
    if base.kind != "ok":
        reason = base.message(job.timeout)
        return [(RewriteOutcome(name, r, SKIPPED, message=f"the program itself is not analysed: {reason}"), 0.0)
                for r in job.rewrites]
    out = []
    for r in job.rewrites:
        # a forked process's CPU clock starts at zero: its reading at the end is the job's CPU
        done = run_forked(lambda: (check(name, text, r, base.value, job.max_tokens), time.process_time()),
                          job.timeout, job.max_memory)
        if done.kind == "ok":
            out.append(done.value)
        elif done.kind == "timeout":
            out.append((RewriteOutcome(name, r, TIMEOUT, message=done.message(job.timeout)), job.timeout))
        else:
            out.append((RewriteOutcome(name, r, ERROR, message=done.reason), done.cpu))
    return out


def run(paths: list[str], rewrites: tuple[str, ...], jobs: int, timeout: float, max_memory: int,
        max_tokens: int) -> list[tuple[RewriteOutcome, float]]:
    files = sorted(smt2_files(paths), key=lambda p: -os.path.getsize(p))  # big first: balances the pool
    work = [Job(p, rewrites, timeout, max_memory, max_tokens) for p in files]
    if jobs <= 1:
        return [o for j in work for o in check_file(j)]
    with multiprocessing.get_context("fork").Pool(jobs, maxtasksperchild=32) as pool:
        return [o for part in pool.imap_unordered(check_file, work, chunksize=1) for o in part]


def summary(results: list[tuple[RewriteOutcome, float]], rewrites: tuple[str, ...]) -> dict:
    """Per rewrite: files checked, identical, different, the differences, the files skipped,
    failed and timed out, and the CPU seconds of the rewrites."""
    table = {r: {"checked": 0, IDENTICAL: 0, DIFFERENT: 0, "differences": [], SKIPPED: [], ERROR: [],
                 TIMEOUT: [], "cpu_seconds": 0.0} for r in rewrites}
    for outcome, cpu in sorted(results, key=lambda p: (p[0].rewrite, p[0].file)):
        row = table[outcome.rewrite]
        row["cpu_seconds"] += cpu or 0.0
        if outcome.status in (IDENTICAL, DIFFERENT):
            row["checked"] += 1
            row[outcome.status] += 1
            row["differences"] += [attrs.asdict(d) for d in outcome.differences]
        else:
            row[outcome.status].append({"file": outcome.file, "why": outcome.message})
    for row in table.values():
        row["cpu_seconds"] = round(row["cpu_seconds"], 1)
    return table


def render(table: dict, limit: int = 200) -> str:
    lines = [f"{'rewrite':12} {'checked':>8} {'identical':>9} {'different':>9} {'asserts':>8} "
             f"{'skipped':>8} {'errors':>6} {'timeouts':>8} {'cpu s':>8}"]
    for name, row in table.items():
        lines.append(f"{name:12} {row['checked']:8} {row[IDENTICAL]:9} {row[DIFFERENT]:9} "
                     f"{len(row['differences']):8} {len(row[SKIPPED]):8} {len(row[ERROR]):6} "
                     f"{len(row[TIMEOUT]):8} {row['cpu_seconds']:8.1f}")
    for name, row in table.items():
        for d in row["differences"][:limit]:
            lines.append(f"DIFFERENT {name}: {d['file']} assert {d['index']}: {d['before']} -> {d['after']}")
        for kind in (ERROR, TIMEOUT, SKIPPED):
            for item in row[kind][:limit]:
                lines.append(f"{kind} {name}: {item['file']}: {item['why']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.metamorphic", description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", default=[str(DEFAULT_CORPUS)], help="files or folders (default ../shared/corpus)")
    ap.add_argument("--rewrites", default=",".join(REWRITES), help=f"comma-separated, of: {', '.join(REWRITES)}")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: all cores)")
    ap.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    ap.add_argument("--timeout", type=float, default=300, help="CPU-bound limit per file and rewrite, s (default 300)")
    ap.add_argument("--max-memory", type=int, default=4096, help="per file and rewrite, MB (default 4096)")
    ap.add_argument("--max-tokens", type=int, default=MAX_TOKENS, help=f"inlined size limit (default {MAX_TOKENS:,})")
    args = ap.parse_args(argv)
    rewrites = tuple(r for r in args.rewrites.split(",") if r)
    unknown = [r for r in rewrites if r not in REWRITES]
    if unknown or not rewrites:
        ap.error(f"unknown rewrite(s) {', '.join(unknown) or '(none given)'}; known: {', '.join(REWRITES)}")
    missing = [p for p in args.paths if not os.path.exists(p)]
    if missing:
        print(f"not found: {', '.join(missing)}", file=sys.stderr)
        return 2
    start = time.monotonic()
    table = summary(run(args.paths, rewrites, args.jobs, args.timeout, args.max_memory, args.max_tokens), rewrites)
    if args.json:
        print(json.dumps({"rewrites": table, "wall_seconds": round(time.monotonic() - start, 1)}, indent=1))
    else:
        print(render(table))
        print(f"wall {time.monotonic() - start:.1f} s; a difference or an error fails (exit 1)")
    failed = any(row["differences"] or row[ERROR] for row in table.values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
