"""``absint compare``: absint's verdicts and speed side by side with Z3 (and PyTorch's ShapeEnv).

This module is the command line only. The oracles and their registry, the run over the
files, the soundness check against Z3, the summary and every rendering live in
:mod:`absint.compare` (see its ``__init__``).

Outputs: a table on the terminal (with ``--json``, summary.json's object on stdout
instead), ``summary.json``, ``asserts.csv`` and ``cactus.png`` in ``--out``, and with
``--markdown`` the per-family table of ``docs/precision.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from absint.compare import registry
from absint.compare.cactus import cactus, require_matplotlib
from absint.compare.html import write_html
from absint.compare.markdown import write_markdown
from absint.compare.oracle import MissingExtra
from absint.compare.outputs import write_json
from absint.compare.row import FileRow
from absint.compare.sampling import spread_sample
from absint.compare.session import Session
from absint.compare.summary import summarize
from absint.compare.terminal import print_terminal
from absint.readers.files import smt2_files
from absint.cli.runner import add_paths

DEFAULT_AGAINST = "z3"

EPILOG = """\
letters: T implied, F refuted, ? open, u gave up (Z3 timeout / unknown),
  x not reached (the file's CPU budget was spent), n not translated (ShapeEnv),
  e ShapeEnv raised.
Z3's CPU seconds count only its protocol (parse + one implication query per
  assert, plus refutation queries with --z3-refute-all); the queries that check
  absint's verdicts (counterexamples, refutations where absint said F) are
  reported apart as verification time. With --z3-reference, Z3's letters and
  per-file CPU come from the reference file and only those checks run Z3.
  Results served from the cache carry the CPU seconds of the run that filled
  it. Z3's per-query timeout is wall-clock, so a loaded machine gives more u.
missing extras: Z3 needs 'absint[z3]', ShapeEnv 'absint[shapeenv]' (torch),
  the cactus plot 'absint[plot]' (matplotlib); the command stops with exit
  status 2 and the pip command when one is missing.
exit status: 0 when no verdict is unsound and every file was read alike by all
  reasoners; 1 otherwise; 2 on a usage error or a missing extra.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_paths(parser, EPILOG)
    parser.add_argument("--against", action="append", choices=registry.against_choices(), default=None,
                        help="reasoner to compare with; repeat for both (default: z3)")
    parser.add_argument("--timeout-ms", type=int, default=1000, metavar="N",
                        help="Z3 timeout per query in milliseconds (default %(default)s)")
    parser.add_argument("--budget", type=float, default=300.0, metavar="S",
                        help="CPU seconds per file for Z3 and for ShapeEnv; asserts not reached get 'x' "
                             "(default %(default)g, as the reference)")
    parser.add_argument("--out", default="compare-out", metavar="DIR",
                        help="directory for summary.json, asserts.csv, cactus.png (default %(default)s)")
    parser.add_argument("--cache-dir", metavar="DIR",
                        help="Z3 result cache (default $XDG_CACHE_HOME/absint/z3 or ~/.cache/absint/z3)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the Z3 cache")
    parser.add_argument("--z3-reference", metavar="FILE",
                        help="take Z3's letters and CPU seconds from a reference file (NAME VERDICTS SECONDS "
                             "lines, e.g. ../shared/reference/z3_dev.txt) instead of running Z3; Z3 still "
                             "runs the queries that check absint's verdicts where they disagree")
    parser.add_argument("--z3-refute-all", action="store_true",
                        help="ask Z3 the refutation query on every assert it does not prove implied "
                             "(otherwise only where absint says F), so Z3's F count is complete")
    parser.add_argument("--sample", type=int, metavar="N",
                        help="only N files, spread evenly over the file sizes")
    parser.add_argument("--shapeenv-sample", type=int, metavar="N",
                        help="run ShapeEnv on only N of the files, spread evenly over the sizes")
    parser.add_argument("--markdown", metavar="FILE", help="also write the per-family precision table to FILE")
    parser.add_argument("--html", metavar="FILE", help="also write a report page to FILE: wrong answers first, "
                        "solved counts and CPU, a cactus plot, a sortable per-file table")
    parser.add_argument("--show", type=int, default=20, metavar="N",
                        help="files shown in the terminal table (default %(default)s; the largest "
                             "precision gaps first when there are more)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress line")
    parser.add_argument("--json", action="store_true",
                        help="stdout: summary.json's object (the summary and one entry per file) instead "
                             "of the table; the files in --out are written as usual")


def run(args) -> int:
    try:
        oracles = registry.build(args.against or [DEFAULT_AGAINST], args)
        require_matplotlib()
    except MissingExtra as e:
        print(f"absint compare: {e}", file=sys.stderr)
        return 2
    files = spread_sample(smt2_files(args.paths), args.sample)
    if not files:
        print("absint compare: no .smt2 files found", file=sys.stderr)
        return 2
    session = Session.over(oracles, files)
    os.makedirs(args.out, exist_ok=True)
    session.warm_up()
    started = time.time()
    rows = session.compare_all(files, os.path.join(args.out, "asserts.csv"), quiet=args.quiet)
    summary = summarize(rows, oracles, _settings(args, files, session, time.time() - started))
    _write(args, summary, rows, oracles)
    return 1 if summary["unsound_count"] or summary["problem_count"] else 0


def _settings(args, files: list[str], session: Session, wall_seconds: float) -> dict[str, Any]:
    """The run's settings as summary.json records them."""
    return {
        "paths": args.paths, "files": len(files), "timeout_ms": args.timeout_ms, "budget_s": args.budget,
        "z3_source": f"reference {args.z3_reference}" if args.z3_reference else "z3",
        "z3_refute_all": args.z3_refute_all, "shapeenv_files": len(session.plan.get("shapeenv", ())),
        "wall_seconds": round(wall_seconds, 3), "command": "absint compare " + " ".join(sys.argv[2:]),
    }


def _write(args, summary: dict[str, Any], rows: list[FileRow], oracles) -> None:
    write_json(os.path.join(args.out, "summary.json"), summary, rows, oracles)
    cactus(os.path.join(args.out, "cactus.png"), rows, oracles)
    if args.markdown:
        write_markdown(args.markdown, summary, rows, oracles, command=_command_line(args))
    if args.html:
        with open(os.path.join(args.out, "summary.json"), encoding="utf-8") as fh:
            write_html(args.html, json.load(fh))
    if args.json:
        with open(os.path.join(args.out, "summary.json"), encoding="utf-8") as fh:
            print(json.dumps(json.load(fh)))
        return
    print_terminal(summary, rows, oracles, show=args.show)
    print(f"wrote {args.out}/summary.json, {args.out}/asserts.csv, {args.out}/cactus.png"
          + (f", {args.markdown}" if args.markdown else "") + (f", {args.html}" if args.html else ""))


def _command_line(args) -> str:
    parts = ["absint compare", *args.paths]
    for a in args.against or [DEFAULT_AGAINST]:
        parts += ["--against", a]
    if args.z3_reference:
        parts += ["--z3-reference", args.z3_reference]
    if args.timeout_ms != 1000:
        parts += ["--timeout-ms", str(args.timeout_ms)]
    if args.sample:
        parts += ["--sample", str(args.sample)]
    if args.shapeenv_sample:
        parts += ["--shapeenv-sample", str(args.shapeenv_sample)]
    parts += ["--out", args.out, "--markdown", args.markdown]
    return " ".join(parts)
