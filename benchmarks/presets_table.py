"""The table of docs/presets.md: open guards per preset over a set of files.

    python -m benchmarks.presets_table ../shared/corpus --jobs 2 [--sample N] [--out FILE]
                                       [--preset NAMES]... [--z3 [--missed FILE]]

For each file and each preset combination of ``absint presets`` (the defaults of
:data:`absint.presets.explore.DEFAULT_COMBINATIONS`), the asserts absint leaves open
with the preset's facts assumed first; a combination refused by a file (a fact false at
its example point) is counted apart, and its open guards are compared on the files that
accept it only. Facts the asserts do not imply are counted, and those for which the
search found an input the program accepts and the preset excludes. ``--sample N`` takes
every k-th file of the sorted list (deterministic); ``--preset`` (repeated, each a
comma-joined combination) reports those combinations instead of the defaults. Prints a
Markdown table and the CPU time.

With ``--z3``, Z3 answers every assert of every accepted combination with the same preset
facts asserted ahead of the file's asserts (the protocol of ``absint compare``, 1 s per
query): the table then says how many asserts Z3 proves implied, how many of those absint
proves too (the recall), how many Z3 proves only with the preset's facts (not without them)
and how many of those absint proves, and absint's wrong verdicts (a ``T`` where Z3 has a counterexample,
an ``F`` Z3 does not refute; there must be none). ``--missed FILE`` writes what absint misses,
per file and combination, as JSON lines (the assert indices).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from collections import defaultdict
from functools import partial

from absint.lang import terms as T
from absint.lang.printer import to_smtlib
from absint.presets.explore import DEFAULT_COMBINATIONS, combinations_from, explore
from absint.readers.files import smt2_files
from absint.readers.smtlib import read_file

#: Z3's limits, as ``absint compare`` sets them: per query, and per file and combination
Z3_TIMEOUT_MS = 1000
Z3_BUDGET_S = 300.0
#: the Z3 figures a row sums
Z3_KEYS = ("z3_proved", "both", "z3_unknown", "wrong", "z3_error", "z3_seconds", "z3_new", "both_new")


def one_file(path: str, combinations=DEFAULT_COMBINATIONS, z3: bool = False) -> dict:
    """Per combination: refused, open, facts, not implied, witnessed (and with ``z3``, the
    comparison with Z3 under the same facts); and absint's CPU seconds."""
    start = time.process_time()
    try:
        with T.fresh_table():
            program = read_file(path)
            rows = explore(program, combinations)
    except Exception as e:  # noqa: BLE001 - one file's failure is counted, not fatal
        return {"file": path, "error": f"{type(e).__name__}: {e}", "seconds": time.process_time() - start}
    seconds = time.process_time() - start
    out, letters = {}, {}
    for r in rows:
        new = [f for f in r.facts if not f.implied]
        out[r.label] = {"refused": r.refused is not None, "open": len(r.open), "facts": len(r.facts),
                        "new": len(new), "witnessed": sum(f.witness is not None for f in new)}
        if z3 and r.refused is None:
            out[r.label].update(against_z3(path, r))
            letters[r.label] = (r.letters, out[r.label].pop("z3_letters", None))
    if "none" in letters and letters["none"][1] is not None:
        for label, (mine, z3_letters) in letters.items():
            if z3_letters is not None:
                out[label].update(new_proofs(mine, z3_letters, letters["none"][1]))
    return {"file": path, "rows": out, "asserts": len(program.facts), "seconds": seconds}


def new_proofs(mine: str, z3_letters: str, without: str) -> dict:
    """Of the asserts Z3 proves with the preset and not without it, how many absint proves."""
    new = [i for i, (z, w) in enumerate(zip(z3_letters, without)) if z == "T" and w != "T"]
    return {"z3_new": len(new), "both_new": sum(mine[i] == "T" for i in new)}


def against_z3(path: str, row) -> dict:
    """Z3 on the file with the row's preset facts asserted first, against absint's letters:
    Z3's proofs, absint's among them, the indices absint misses, absint's wrong verdicts."""
    from absint.compare.z3_solver import run_file

    with open(path, "rb") as f:
        data = f.read()
    letters = row.letters
    refute = {i: {"refute"} for i, c in enumerate(letters) if c == "F"}
    result = run_file(data, timeout_ms=Z3_TIMEOUT_MS, budget_s=Z3_BUDGET_S, requests=refute,
                      assumed=[to_smtlib(f.fact.term) for f in row.facts])
    if result.error is not None:
        return {"z3_error": 1}
    z3 = result.final_letters()
    missed = [i for i, (a, z) in enumerate(zip(letters, z3)) if z == "T" and a != "T"]
    wrong = [i for i, (a, z) in enumerate(zip(letters, z3)) if (a == "T" and z == "?") or (a == "F" and z != "F")]
    return {"z3_proved": z3.count("T"), "both": sum(a == z == "T" for a, z in zip(letters, z3)),
            "z3_unknown": sum(z in "ux" for z in z3), "wrong": len(wrong), "z3_seconds": result.total_seconds,
            "missed": missed, "wrong_at": wrong, "z3_letters": z3}


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
            for key in ("open", "facts", "new", "witnessed", *Z3_KEYS):
                s[key] += row.get(key, 0)
    return sums


def markdown(sums: dict[str, dict[str, int]], combinations=DEFAULT_COMBINATIONS, z3: bool = False) -> list[str]:
    header = ("| presets | files accepting | files refusing | open guards without | open guards with | "
              "facts | not implied by the asserts | of which an excluded input was found |")
    rule = "|---|---:|---:|---:|---:|---:|---:|---:|"
    if z3:
        header += (" Z3 proves | absint proves of those | recall | absint wrong | Z3 gave up | "
                   "Z3 proves only with the preset | absint proves of those |")
        rule += "---:|---:|---:|---:|---:|---:|---:|"
    lines = [header, rule]
    for combo in combinations:
        label = ",".join(combo) or "none"
        s = sums[label]
        line = (f"| {label} | {s['files']:,} | {s['refused']:,} | {s['base']:,} | {s['open']:,} | "
                f"{s['facts']:,} | {s['new']:,} | {s['witnessed']:,} |")
        if z3:
            recall = f"{s['both'] / s['z3_proved']:.4f}" if s["z3_proved"] else "-"
            line += (f" {s['z3_proved']:,} | {s['both']:,} | {recall} | {s['wrong']:,} | {s['z3_unknown']:,} | "
                     f"{s['z3_new']:,} | {s['both_new']:,} |")
        lines.append(line)
    return lines


def write_missed(results: list[dict], path: str) -> None:
    """One JSON line per file and combination where absint misses a Z3 proof or is wrong."""
    with open(path, "w") as f:
        for res in sorted(results, key=lambda r: r["file"]):
            for label, row in res.get("rows", {}).items():
                if row.get("missed") or row.get("wrong_at"):
                    f.write(json.dumps({"file": res["file"], "presets": label, "missed": row["missed"],
                                        "wrong": row["wrong_at"]}) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.presets_table", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--sample", type=int, default=None, metavar="N", help="every k-th file, N files in all")
    parser.add_argument("--out", metavar="FILE", help="also write the table to FILE")
    parser.add_argument("--preset", action="append", metavar="NAMES",
                        help="a combination to report (comma-joined; repeat for more; default: the table's)")
    parser.add_argument("--z3", action="store_true", help="compare with Z3 under the same preset facts")
    parser.add_argument("--missed", metavar="FILE", help="with --z3: write what absint misses here (JSON lines)")
    args = parser.parse_args(argv)
    combinations = [(), *(c for c in combinations_from(args.preset) if c)]
    files = sample(smt2_files(args.paths), args.sample)
    wall = time.monotonic()
    with multiprocessing.get_context("fork").Pool(max(1, args.jobs), maxtasksperchild=50) as pool:
        job = partial(one_file, combinations=combinations, z3=args.z3)
        results = list(pool.imap_unordered(job, files, chunksize=1))
    wall = time.monotonic() - wall
    errors = [r for r in results if "error" in r]
    cpu = sum(r["seconds"] for r in results)
    asserts = sum(r.get("asserts", 0) for r in results)
    sums = totals(results)
    lines = markdown(sums, combinations, args.z3)
    lines.append("")
    lines.append(f"{len(files)} file(s), {asserts:,} asserts, {len(errors)} error(s); "
                 f"{cpu:.0f} s of CPU for absint, {wall:.0f} s wall with {args.jobs} job(s)"
                 + (f"; Z3 {sum(s['z3_seconds'] for s in sums.values()):.0f} s" if args.z3 else ""))
    if args.missed:
        write_missed(results, args.missed)
    text = "\n".join(lines)
    print(text)
    for r in errors:
        print(f"{os.path.basename(r['file'])}: {r['error']}", file=sys.stderr)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    wrong = sum(s["wrong"] for s in sums.values())
    if wrong:
        print(f"absint is wrong on {wrong} assert(s) where Z3 has the other answer", file=sys.stderr)
    return 1 if errors or wrong else 0


if __name__ == "__main__":
    sys.exit(main())
