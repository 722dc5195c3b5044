"""The tree against a release: the same corpus analysed by both, paired, CPU ratio and verdicts.

    python -m benchmarks.release_vs_release [--release REV] [--corpus DIR] [--files N | --quarter]
        [--pairs K] [--jobs J] [--build-dir DIR] [--json]

The release (default ``a04f2a6``, the last one; any tag or commit) is checked out
from this repository's history (``git archive``: no worktree is registered in
the shared ``.git``) into ``DIR`` (default ``$TMPDIR/absint-release-<commit>``)
with its own venv (``pip install -e`` of that checkout); a checkout whose venv
was built for the same commit is reused. Both versions then run
``absint analyze FILES --jobs J --quiet --jsonl OUT`` as separate processes, each
from its own root (so each one's workers import its own package), in pairs whose
order alternates (release first, then the tree first, ...), after one warm-up run
each on one file (byte-compilation, shared libraries read in).

The CPU of a run is its children's user + system seconds (``getrusage``): the
``analyze`` process, its workers and their per-file processes. Per pair it
prints both and the ratio tree / release, then the median and the range (a wide
range says the machine was noisy). Verdicts are compared per assert: a ``T`` or
``F`` of the release that is ``?`` in the tree is a lost proof (listed), the
reverse a gain, ``T`` against ``F`` a flip; example violations and errors are
counted for both. Every run of a version must give the letters of its first run.

Exit status 1 when a proof is lost, a verdict flips, a version's letters change
between runs or a version reports example violations; 0 otherwise (the CPU
ratio is reported, never judged: ratios are the reader's to weigh).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import attrs

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
DEFAULT_RELEASE = "a04f2a6"
BUILT_MARK = ".absint-release-built"  # holds the commit the checkout's venv was built for
SHOWN_LOST = 30
#: left out of the runs' environment: a PYTHONPATH would put one version's package in the
#: other's way; PYTHONDONTWRITEBYTECODE (set on some machines, this one included) would
#: defeat the warm-up's byte-compilation, and every process of every run would compile its
#: version's sources again (the tree's, being larger, about 0.1 s more a process), a cost
#: an installed package does not pay
CHILD_ENV_DROPPED = frozenset({"PYTHONPATH", "PYTHONDONTWRITEBYTECODE"})


@attrs.frozen(slots=True)
class Version:
    """One side of the comparison: its interpreter and the root it runs from."""

    label: str
    python: str
    root: Path


@attrs.frozen(slots=True)
class Run:
    """One timed ``absint analyze`` run and the letters it gave."""

    cpu: float
    wall: float
    records: dict
    in_files: float  # the records' own CPU seconds (each file's reading and analysis), overheads aside


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), *args], check=True, capture_output=True, text=True).stdout.strip()


def tree_label() -> str:
    """HEAD's short hash, marked when the package's sources differ from it."""
    dirty = git("status", "--porcelain", "--", "absint", "domains")
    return git("rev-parse", "--short", "HEAD") + (" (modified)" if dirty else "")


def build_release(rev: str, build_dir: Path | None) -> Version:
    """The release checked out with its own venv, built once per commit and reused."""
    commit = git("rev-parse", f"{rev}^{{commit}}")
    root = build_dir or Path(tempfile.gettempdir()) / f"absint-release-{commit[:12]}"
    python = root / ".venv" / "bin" / "python"
    mark = root / BUILT_MARK
    if not (mark.is_file() and mark.read_text().strip() == commit and python.exists()):
        _clear_build_dir(root)
        root.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", commit],
                                 check=True, capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(root, filter="data")
        print(f"building the release's venv in {root} ...", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(root / ".venv")], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "-e", str(root)], check=True)
        mark.write_text(commit + "\n")
    return Version(f"release {commit[:7]}", str(python), root)


class BuildDirRefused(Exception):
    """A ``--build-dir`` that holds something other than an earlier build of a release."""


def _clear_build_dir(root: Path) -> None:
    """Remove an earlier, stale build at ``root``; refuse anything else. Only a folder this
    benchmark made (it holds the build mark) is ever deleted: ``--build-dir /tmp`` once
    removed all of /tmp."""
    if not root.exists():
        return
    if not (root / BUILT_MARK).is_file():
        if root.is_dir() and not any(root.iterdir()):
            root.rmdir()
            return
        raise BuildDirRefused(f"--build-dir {root} exists and is not a release built by this benchmark "
                              f"(no {BUILT_MARK} in it): not touched; give a new or empty folder")
    shutil.rmtree(root)


def chosen_files(corpus: Path, files: int | None, quarter: bool) -> list[str]:
    """Every file sorted by name, every fourth one (``--quarter``), or N spread evenly over them."""
    every = sorted(str(p) for p in corpus.glob("*.smt2"))
    if quarter:
        return every[::4]
    if files is not None and files < len(every):
        return [every[i * len(every) // files] for i in range(files)]
    return every


def run_once(version: Version, paths: list[str], jobs: int, out: Path) -> Run:
    """One ``absint analyze`` process tree, its CPU read from the children's resource usage."""
    if out.exists():
        out.unlink()
    cmd = [version.python, "-m", "absint", "analyze", *paths, "--jobs", str(jobs), "--quiet", "--jsonl", str(out)]
    env = {k: v for k, v in os.environ.items() if k not in CHILD_ENV_DROPPED}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=version.root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):  # 1: some file had an error record, still a run
        raise SystemExit(f"{version.label}: analyze exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    letters, in_files = read_letters(out)
    return Run(cpu, wall, letters, in_files)


def read_letters(path: Path) -> tuple[dict, float]:
    """File name -> (verdict letters, example violations, error) from a ``--jsonl`` file, and the
    sum of its records' CPU seconds."""
    out, seconds = {}, 0.0
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            out[os.path.basename(rec["file"])] = (rec.get("verdicts", ""), len(rec.get("example_violations") or ()),
                                                   rec.get("error"))
            seconds += rec.get("seconds") or 0.0
    return out, seconds


def letter_counts(records: dict) -> dict:
    letters = "".join(v for v, _, _ in records.values())
    return {k: letters.count(k) for k in "TF?"} | {
        "example_violations": sum(n for _, n, _ in records.values()),
        "errors": sum(1 for _, _, e in records.values() if e)}


def differences(release: dict, tree: dict) -> dict:
    """Per assert, the release's letter against the tree's: lost and gained proofs, flips."""
    lost, gained, flips, mismatched = [], [], [], []
    for name in sorted(set(release) | set(tree)):
        a, b = release.get(name, ("", 0, "absent"))[0], tree.get(name, ("", 0, "absent"))[0]
        if len(a) != len(b):
            mismatched.append(name)
            continue
        for i, (x, y) in enumerate(zip(a, b)):
            if x == y:
                continue
            entry = {"file": name, "assert": i, "release": x, "tree": y}
            (lost if y == "?" else gained if x == "?" else flips).append(entry)
    return {"lost": lost, "gained": gained, "flips": flips, "files_mismatched": mismatched}


def pair_runs(versions: tuple[Version, Version], paths: list[str], pairs: int, jobs: int, tmp: Path) -> list:
    """``pairs`` pairs of runs, the order alternating; each pair's runs as (release, tree)."""
    release, tree = versions
    for v in versions:  # warm-up: byte-compile, read the shared libraries in
        run_once(v, paths[:1], jobs, tmp / "warmup.jsonl")
    out = []
    for k in range(pairs):
        order = versions if k % 2 == 0 else versions[::-1]
        runs = {v.label: run_once(v, paths, jobs, tmp / f"{'rt'[v is tree]}{k}.jsonl") for v in order}
        r, t = runs[release.label], runs[tree.label]
        out.append((r, t))
        print(f"pair {k + 1}: {release.label} {r.cpu:.2f} s CPU ({r.in_files:.2f} in files, {r.wall:.2f} s wall), "
              f"tree {t.cpu:.2f} s CPU ({t.in_files:.2f} in files, {t.wall:.2f} s wall), "
              f"ratio {t.cpu / r.cpu:.3f}", flush=True)
    return out


def summary(versions: tuple[Version, Version], paths: list[str], jobs: int, runs: list) -> dict:
    release, tree = versions
    ratios = [t.cpu / r.cpu for r, t in runs]
    first_r, first_t = runs[0]
    return {
        "release": release.label, "tree": tree.label, "files": len(paths), "jobs": jobs, "pairs": len(runs),
        "cpu": [{"release": r.cpu, "tree": t.cpu, "ratio": t.cpu / r.cpu, "release_in_files": r.in_files,
                 "tree_in_files": t.in_files, "release_wall": r.wall, "tree_wall": t.wall} for r, t in runs],
        "ratio_median": statistics.median(ratios), "ratio_min": min(ratios), "ratio_max": max(ratios),
        "letters": {"release": letter_counts(first_r.records), "tree": letter_counts(first_t.records)},
        "stable": all(r.records == first_r.records and t.records == first_t.records for r, t in runs),
        "differences": differences(first_r.records, first_t.records),
    }


def print_summary(s: dict) -> None:
    print(f"CPU ratio tree / release over {s['pairs']} pairs: median {s['ratio_median']:.3f} "
          f"(range {s['ratio_min']:.3f}-{s['ratio_max']:.3f})")
    for side in ("release", "tree"):
        c = s["letters"][side]
        print(f"{s[side]}: {c['T']:,} T, {c['F']:,} F, {c['?']:,} ?, "
              f"{c['example_violations']} example violations, {c['errors']} file errors")
    d = s["differences"]
    print(f"verdicts: {len(d['lost'])} proofs lost (T/F -> ?), {len(d['gained'])} gained (? -> T/F), "
          f"{len(d['flips'])} flips, {len(d['files_mismatched'])} files with other assert counts; "
          f"letters the same in every run: {'yes' if s['stable'] else 'NO'}")
    for e in d["lost"][:SHOWN_LOST]:
        print(f"  lost: {e['file']} assert {e['assert']}: {e['release']} -> {e['tree']}")
    if len(d["lost"]) > SHOWN_LOST:
        print(f"  ... and {len(d['lost']) - SHOWN_LOST} more (--json lists them all)")
    for e in d["flips"][:SHOWN_LOST]:
        print(f"  FLIP: {e['file']} assert {e['assert']}: {e['release']} -> {e['tree']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.release_vs_release",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--release", default=DEFAULT_RELEASE, help=f"tag or commit (default {DEFAULT_RELEASE})")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--files", type=int, metavar="N", help="N files spread evenly over the sorted corpus")
    which.add_argument("--quarter", action="store_true", help="every fourth file of the sorted corpus")
    parser.add_argument("--pairs", type=int, default=4, metavar="K", help="pairs of runs (default 4)")
    parser.add_argument("--jobs", type=int, default=1, help="analyze --jobs for both (default 1)")
    parser.add_argument("--build-dir", type=Path, help="where the release is checked out and built: a new or "
                        "empty folder, or one this benchmark built before (anything else is refused, never deleted)")
    parser.add_argument("--json", action="store_true", help="print one JSON object at the end")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"release_vs_release: no corpus at {args.corpus}", file=sys.stderr)
        return 2
    paths = chosen_files(args.corpus, args.files, args.quarter)
    try:
        release = build_release(args.release, args.build_dir)
    except BuildDirRefused as e:
        print(f"release_vs_release: {e}", file=sys.stderr)
        return 2
    versions = (release, Version(f"tree {tree_label()}", sys.executable, REPO))
    print(f"{versions[0].label} ({versions[0].root}) against the tree ({REPO}): {len(paths)} files, "
          f"--jobs {args.jobs}, {args.pairs} pairs; load average {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="absint-rvr-") as tmp:
        runs = pair_runs(versions, paths, args.pairs, args.jobs, Path(tmp))
    s = summary(versions, paths, args.jobs, runs)
    s["load_average_after"] = os.getloadavg()[0]
    print_summary(s)
    if args.json:
        print(json.dumps(s, indent=1))
    d, c = s["differences"], s["letters"]
    bad = d["lost"] or d["flips"] or d["files_mismatched"] or not s["stable"] or c["tree"]["example_violations"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
