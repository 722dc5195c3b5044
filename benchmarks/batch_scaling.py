"""Wall time of ``absint analyze`` with 1 job against 2 jobs on one directory.

Each configuration runs as its own ``python -m absint analyze DIR --jobs N
--quiet --jsonl ...`` process (start-up, hashing and the final sort included);
configurations alternate, ``--repeat`` times, and the fastest run of each is
compared (the least disturbed by other load on the machine). The two runs must
give the same records, timing fields aside.

    python -m benchmarks.batch_scaling [DIR] [--jobs 1 2] [--repeat 1] [--timeout S]

DIR defaults to ``../shared/corpus`` next to the repository. ``--jobs A B``
also gives the order of the runs (``--jobs 2 1`` runs 2 jobs first, to
counterbalance a load that drifts). Prints the wall times and the ratio
``wall(more jobs) / wall(fewer jobs)``; the goal for 1 vs 2 jobs on two idle
cores is at most 0.60.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

from absint.batch.jsonl import read_records, without_timing

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DIR = os.path.normpath(os.path.join(REPO, "..", "shared", "corpus"))
TARGET = 0.60


def run_once(directory: str, jobs: int, out: str, timeout: float | None) -> float:
    cmd = [sys.executable, "-m", "absint", "analyze", directory, "--jobs", str(jobs), "--quiet", "--jsonl", out]
    if timeout is not None:
        cmd += ["--timeout", str(timeout)]
    start = time.perf_counter()
    subprocess.run(cmd, cwd=REPO, stdout=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", nargs="?", default=DEFAULT_DIR)
    parser.add_argument("--jobs", nargs=2, type=int, default=[1, 2], metavar=("A", "B"),
                        help="the two job counts, in the order they run (default 1 2)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per configuration (the fastest counts)")
    parser.add_argument("--timeout", type=float, default=None, help="passed to absint analyze")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.directory):
        print(f"batch_scaling: no directory {args.directory}", file=sys.stderr)
        return 2
    a, b = args.jobs
    walls: dict[int, list[float]] = {a: [], b: []}
    with tempfile.TemporaryDirectory(prefix="absint-scaling-") as tmp:
        outs = {j: os.path.join(tmp, f"jobs{j}.jsonl") for j in (a, b)}
        print(f"{args.directory}: load average before {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs")
        for i in range(args.repeat):
            for j in (a, b):
                wall = run_once(args.directory, j, outs[j], args.timeout)
                walls[j].append(wall)
                print(f"  run {i + 1}: --jobs {j}: {wall:.2f} s", flush=True)
        same = [without_timing(r) for r in read_records(outs[a])] == [without_timing(r) for r in read_records(outs[b])]
        files = len(read_records(outs[a]))
    few, many = sorted((a, b))
    best_few, best_many = min(walls[few]), min(walls[many])
    ratio = best_many / best_few
    print(f"files: {files}; records identical (timing aside): {'yes' if same else 'NO'}")
    print(f"--jobs {few}: {best_few:.2f} s   --jobs {many}: {best_many:.2f} s   ratio {ratio:.3f}"
          + (f"   (goal for 1 vs 2 jobs: <= {TARGET:.2f})" if (few, many) == (1, 2) else ""))
    print(f"load average after {os.getloadavg()[0]:.2f}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
