"""The table of docs/presets.md: open guards per preset over a set of files.

    python -m benchmarks.presets_table ../shared/corpus --jobs 2 [--sample N] [--out FILE]

For each file and each preset combination of ``absint presets`` (the defaults of
:data:`absint.presets.explore.DEFAULT_COMBINATIONS`), the asserts absint leaves open
with the preset's facts assumed first; a combination refused by a file (a fact false at
its example point) is counted apart, and its open guards are compared on the files that
accept it only. Facts the asserts do not imply are counted, and those for which the
search found an input the program accepts and the preset excludes. ``--sample N`` takes
every k-th file of the sorted list (deterministic). Prints a Markdown table and the CPU
time.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from collections import defaultdict

from absint.lang import terms as T
from absint.presets.explore import DEFAULT_COMBINATIONS, explore
from absint.readers.files import smt2_files
from absint.readers.smtlib import read_file


def one_file(path: str) -> dict:
    """Per combination: refused, open, facts, not implied, witnessed; and the CPU seconds."""
    start = time.process_time()
    try:
        with T.fresh_table():
            program = read_file(path)
            rows = explore(program, DEFAULT_COMBINATIONS)
    except Exception as e:  # noqa: BLE001 - one file's failure is counted, not fatal
        return {"file": path, "error": f"{type(e).__name__}: {e}", "seconds": time.process_time() - start}
    out = {}
    for r in rows:
        new = [f for f in r.facts if not f.implied]
        out[r.label] = {"refused": r.refused is not None, "open": len(r.open), "facts": len(r.facts),
                        "new": len(new), "witnessed": sum(f.witness is not None for f in new)}
    return {"file": path, "rows": out, "asserts": len(program.facts), "seconds": time.process_time() - start}


def sample(files: list[str], n: int | None) -> list[str]:
    if not n or n >= len(files):
        return files
    step = len(files) / n
    return [files[int(i * step)] for i in range(n)]


def totals(results: list[dict]) -> dict[str, dict[str, int]]:
    """Sums per combination; ``base`` is the no-preset open count on the files that accept it."""
    sums: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for res in results:
        if "rows" not in res:
            continue
        base = res["rows"]["none"]["open"]
        for label, row in res["rows"].items():
            s = sums[label]
            if row["refused"]:
                s["refused"] += 1
                continue
            s["files"] += 1
            s["base"] += base
            for key in ("open", "facts", "new", "witnessed"):
                s[key] += row[key]
    return sums


def markdown(sums: dict[str, dict[str, int]]) -> list[str]:
    lines = ["| presets | files accepting | files refusing | open guards without | open guards with | "
             "facts | not implied by the asserts | of which an excluded input was found |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for combo in DEFAULT_COMBINATIONS:
        label = ",".join(combo) or "none"
        s = sums[label]
        lines.append(f"| {label} | {s['files']:,} | {s['refused']:,} | {s['base']:,} | {s['open']:,} | "
                     f"{s['facts']:,} | {s['new']:,} | {s['witnessed']:,} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.presets_table", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--sample", type=int, default=None, metavar="N", help="every k-th file, N files in all")
    parser.add_argument("--out", metavar="FILE", help="also write the table to FILE")
    args = parser.parse_args(argv)
    files = sample(smt2_files(args.paths), args.sample)
    wall = time.monotonic()
    with multiprocessing.get_context("fork").Pool(max(1, args.jobs), maxtasksperchild=50) as pool:
        results = list(pool.imap_unordered(one_file, files, chunksize=1))
    wall = time.monotonic() - wall
    errors = [r for r in results if "error" in r]
    cpu = sum(r["seconds"] for r in results)
    asserts = sum(r.get("asserts", 0) for r in results)
    lines = markdown(totals(results))
    lines.append("")
    lines.append(f"{len(files)} file(s), {asserts:,} asserts, {len(errors)} error(s); "
                 f"{cpu:.0f} s of CPU, {wall:.0f} s wall with {args.jobs} job(s)")
    text = "\n".join(lines)
    print(text)
    for r in errors:
        print(f"{os.path.basename(r['file'])}: {r['error']}", file=sys.stderr)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
