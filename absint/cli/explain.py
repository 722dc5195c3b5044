"""``absint explain FILE:LINE``: why one assert has its verdict.

The assert written on LINE is decided against the asserts before it, as ``absint analyze``
does; then a TRUE or FALSE verdict is shown with the earlier asserts it needs (a smallest
set found by deletion, see :mod:`absint.explain`), and FALSE or UNKNOWN with a point where
the earlier asserts hold and this one fails (UNKNOWN also one where it holds), each
checked by the evaluator. ``--missing``: an open assert also gets the weakest extra facts
over the file's symbols that would prove it, each true at the example point and checked.
"""

from __future__ import annotations

import argparse
import json
import sys

from absint.explain import EXPLAIN_SECONDS, MISSING_SECONDS, NotRead, explain_line
from absint.lang.printer import brief_infix

EPILOG = f"""\
example:
  absint explain examples/pool_skip.smt2:47
output:
  the assert (FILE:LINE:COLUMN: verdict, layer, text), then 'because' and the earlier
  asserts that decide it (each FILE:LINE:COLUMN and text; 'not minimal' when the search
  for a smallest set ran out of its {EXPLAIN_SECONDS:g} s), or 'fails at' / 'holds at' and a point.
  With --missing, an open assert ('?') also gets 'missing:' and the weakest extra facts
  over the file's symbols that would prove it (bounds, orderings, sums, non-zero,
  residues; two that decide only together are one line joined by 'and'), each true at the
  file's example point and checked to decide the assert; 'none found' when the search
  ({MISSING_SECONDS:g} s) found none or the example point gives the assert no value.
  With --json, one object: {{"file", "index", "position", "text", "verdict", "layer",
  "premises" [{{"index", "position", "text"}}], "minimal", "failing_point", "passing_point"}},
  and with --missing on an open assert "missing" [{{"facts" [text], "kind"}}].
exit status: 0 when explained; 1 if the file cannot be read or parsed or has no assert on
  LINE; 2 on a usage error.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    parser.add_argument("where", metavar="FILE:LINE", help="an .smt2 file and the line of one of its asserts")
    parser.add_argument("--seed", type=int, default=0, help="seed of the point search (default 0)")
    parser.add_argument("--missing", action="store_true",
                        help="an open assert: the weakest extra facts that would prove it, each checked")
    parser.add_argument("--json", action="store_true", help="one JSON object")


def run(args) -> int:
    path, _, line = args.where.rpartition(":")
    if not path or not line.isdigit():
        print(f"absint explain: expected FILE:LINE, got {args.where!r}", file=sys.stderr)
        return 2
    try:
        e = explain_line(path, int(line), args.seed, want_missing=args.missing)
    except NotRead as problem:
        print(problem, file=sys.stderr)
        return 1
    print(json.dumps(e.to_json(path)) if args.json else "\n".join(_lines(e)))
    return 0


def _lines(e) -> list[str]:
    out = [e.row.line()]
    if e.row.verdict in ("T", "F"):
        head = "because" + ("" if e.minimal else " (not minimal: the search ran out of time)")
        out.append(f"  {head}:" if e.premises else "  because: it holds (or fails) on its own")
        out += [f"    {p.position}: {p.text}" for p in e.premises]
    for label, point in (("fails at", e.failing), ("holds at", e.passing)):
        if point is not None:
            out.append(f"  {label}: " + ", ".join(f"{k}={v}" for k, v in point.items()))
    if e.row.verdict in ("F", "?") and e.failing is None:
        out.append("  fails at: no point found by the search")
    if e.missing is not None:
        out.append("  missing:" if e.missing else "  missing: none found")
        out += [f"    {' and '.join(brief_infix(f, 200) for f in c.facts)}    ({c.kind})" for c in e.missing]
    return out
