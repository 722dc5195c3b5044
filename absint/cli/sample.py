"""``absint sample``: shapes that satisfy operator specifications, as graph fuzzers ask of Z3.

Each spec's answer is :func:`absint.reports.sample.sample_file`; this module parses the
options and prints the answer (or its JSON).
"""

from __future__ import annotations

import argparse

from absint.cli.runner import JSON_HELP, FileOutcome, add_paths, each_file, reported
from absint.reports.sample import FileSamples, sample_file
from absint.search.sampling import DEFAULT_LIMIT, IMPOSSIBLE, LARGEST, SAT

EPILOG = """\
what is reported, per file:
  sat         the points listed satisfy every assert (each is checked by the evaluator)
  impossible  proved: the asserts are contradictory, or --exhaustive tried every point
  unknown     no point found, and none proved absent
With --exhaustive, every solution is listed (at most --limit of them) with their number;
--count-only gives the number alone. Samples are drawn within -65536..65536 where the asserts
allow it (--max changes the bound, --max none lifts it); symbols unbounded on a side are drawn
from a window of 256 values next to their bound (samples), or refused (--exhaustive). The
symbols whose values were chosen that way, not forced by the asserts, are listed as "free".
output:
  text on stdout, errors on stderr as 'FILE:LINE:COLUMN: message' (or 'FILE: message');
  with --json, one JSON object per line and file:
  {"file", "status": "sat" | "impossible" | "unknown", "samples": [{symbol: int}]}, plus
  "free" (symbols drawn within --max or a window) for samples, "count" and "complete" with
  --exhaustive, "reason" when there is one, "error" on an error.
exit status: 0 if every file was reported; 1 if a file could not be read, parsed or sampled
  (the other files are still reported); 2 on a usage error.
"""


def lines(report: FileSamples, exhaustive: bool) -> list[str]:
    """The readable answer of one file (without its error, which goes to stderr)."""
    r = report.result
    assert r is not None
    head = f"{report.file}: {r.status}"
    if exhaustive and r.count is not None and r.status != IMPOSSIBLE:
        head += f", {'' if r.complete else 'at least '}{r.count} solution(s)"
    elif r.status == SAT:
        head += f", {len(r.points)} sample(s)"
    if r.reason is not None:
        head += f" ({r.reason})"
    return [head] + ["  " + " ".join(f"{k}={v}" for k, v in p.items()) for p in r.points]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_paths(parser, EPILOG, "SPEC", json_help=JSON_HELP)
    parser.add_argument("-n", type=_natural, default=10, metavar="N", help="samples per spec (default 10)")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: a fresh one)")
    parser.add_argument("--exhaustive", action="store_true",
                        help="list every solution of a finite spec, and count them")
    parser.add_argument("--count-only", action="store_true", help="with --exhaustive: the number, not the list")
    parser.add_argument("--limit", type=_natural, default=DEFAULT_LIMIT, metavar="L",
                        help=f"with --exhaustive: stop after L solutions (default {DEFAULT_LIMIT})")
    parser.add_argument("--max", type=_largest, default=LARGEST, metavar="M", dest="largest",
                        help=f"samples: draw within -M..M where the asserts allow it (default {LARGEST}; "
                        "'none': anywhere they allow)")


def _largest(text: str) -> int | None:
    return None if text.strip().lower() == "none" else _natural(text)


def _natural(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {v}")
    return v


def run(args) -> int:
    def job(path: str, presets: tuple[str, ...]) -> FileOutcome:
        report = sample_file(path, args.n, args.seed, args.exhaustive, args.limit, not args.count_only, args.largest)
        return reported(report.to_json(args.exhaustive), lambda: lines(report, args.exhaustive), report.error)

    return each_file(args, "sample", job, budgeted=False)
