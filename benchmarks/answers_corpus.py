"""Do the answers users read hold up on real files? ``sample`` and ``inputs --export`` on a corpus.

    python -m benchmarks.answers_corpus [PATH] [--files N] [--samples K] [--json]

For N files spread evenly over the sorted ``.smt2`` files under PATH (default: the shared
corpus, 200 files): ``absint sample`` draws K points (each checked here again with the
evaluator against every assert), and ``absint inputs --export``'s module is executed (torch
imported once, in this process) and its ``check_inputs`` called at the file's example point,
where every assert holds, so it must pass. Reports per command: files, answers (sat /
unknown / impossible; exported modules that ran), crashes (an internal error or an exception
from the module), wrong answers (a sample an assert rejects, a check that fails at the
example point), and CPU seconds. Exit 1 when any crash or wrong answer was seen.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter

from absint.reports.inputs import inputs_of_file
from absint.reports.sample import sample_file
from absint.inputs.export import python_name
from absint.lang import terms as T
from absint.lang.evaluator import truth_at
from absint.readers.smtlib import read_file

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CORPUS = os.path.normpath(os.path.join(ROOT, os.pardir, "shared", "corpus"))


def spread(path: str, n: int) -> list[str]:
    files = sorted(os.path.join(d, f) for d, _, names in os.walk(path) for f in names if f.endswith(".smt2"))
    if n <= 0 or n >= len(files):
        return files
    return [files[i * len(files) // n] for i in range(n)]


def check_samples(path: str, k: int, seed: int) -> tuple[str, str | None]:
    """(status, problem): problem is ``crash: ...`` or ``wrong: ...`` or None."""
    report = sample_file(path, k, seed=seed)
    if report.error is not None:
        return "error", (f"crash: {report.error}" if "internal error" in report.error else None)
    with T.fresh_table():
        facts = [f.term for f in read_file(path).facts]
        for p in report.result.points:
            memo: dict = {}
            if not all(truth_at(f, p, memo) is True for f in facts):
                return report.result.status, f"wrong: a sample fails an assert: {p}"
    return report.result.status, None


def check_export(path: str) -> tuple[str, str | None]:
    report = inputs_of_file(path, export=True)
    if report.error is not None:
        return "error", (f"crash: {report.error}" if "internal error" in report.error else None)
    namespace: dict = {"__name__": "exported"}
    try:
        exec(compile(report.export, f"<export of {path}>", "exec"), namespace)
    except Exception as e:  # the module must run
        return "raised", f"crash: the module raises {type(e).__name__}: {e}"
    with T.fresh_table():
        symbols = read_file(path).symbols
    if any(s.hint is None for s in symbols):
        return "ran", None  # unbacked symbols: no example point to check at
    try:
        namespace["check_inputs"](**{python_name(s.name): s.hint for s in symbols})
    except Exception as e:
        return "ran", f"wrong: check_inputs fails at the example point: {type(e).__name__}: {e}"
    return "ran", None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.answers_corpus", description=__doc__.split("\n")[0])
    ap.add_argument("path", nargs="?", default=DEFAULT_CORPUS, help=f"directory of .smt2 files (default {DEFAULT_CORPUS})")
    ap.add_argument("--files", type=int, default=200, help="files spread over the sorted list (0: all; default 200)")
    ap.add_argument("--samples", type=int, default=3, help="samples per file (default 3)")
    ap.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    args = ap.parse_args(argv)
    if not os.path.isdir(args.path):
        print(f"answers_corpus: {args.path}: no such directory", file=sys.stderr)
        return 2
    import torch  # noqa: F401 - the exported modules import it: once here, not in the timing

    files = spread(args.path, args.files)
    out = {}
    for name, check in (("sample", lambda f: check_samples(f, args.samples, 0)), ("export", check_export)):
        start, statuses, problems = time.process_time(), Counter(), []
        for i, f in enumerate(files, 1):
            status, problem = check(f)
            statuses[status] += 1
            if problem is not None:
                problems.append(f"{os.path.basename(f)}: {problem}"[:300])
            print(f"\r{name}: {i}/{len(files)}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        out[name] = {"files": len(files), "statuses": dict(statuses), "problems": problems,
                     "cpu": round(time.process_time() - start, 1)}
    if args.json:
        print(json.dumps(out))
    else:
        for name, r in out.items():
            print(f"{name}: {r['files']} files, {dict(sorted(r['statuses'].items()))}, "
                  f"{len(r['problems'])} crash(es) or wrong answer(s), {r['cpu']} s CPU")
            for p in r["problems"][:20]:
                print("  " + p)
    return 1 if any(r["problems"] for r in out.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
