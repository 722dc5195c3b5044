"""``absint presets``: per file and preset, the guards left open and the inputs excluded.

Each file's report is :func:`absint.reports.presets.report_file`; this module parses the
options and prints the table (or its JSON).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from absint.cli.runner import add_paths
from absint.presets.explore import DEFAULT_COMBINATIONS, combinations_from
from absint.presets.facts import PRESETS, PresetError
from absint.reports.presets import PresetsReport, report_file

#: open asserts listed per combination in the table (all of them are in --json)
OPEN_SHOWN = 8

EPILOG = """\
presets (facts assumed ahead of the asserts):
""" + "".join(f"  {n:<11} {what}\n" for n, (what, _) in PRESETS.items()) + """\
Sizes, strides and tensors are recognised from the symbols' names, as the corpus
writes them: <tensor>_size<d>, <tensor>_stride<d>, <tensor>_storage_offset. Other
symbols are left alone by every preset.
what is reported, per file and preset (or comma-joined combination, 'none' for no preset):
  open      the asserts absint leaves '?' with the preset's facts assumed first
  refused   the preset's first fact that is false at the example point (then nothing else)
  facts     how many facts the preset adds for this program
  new       those the program's own asserts do not imply; for each, an input that every
            assert accepts and the fact excludes, searched near the example point (only
            the changed symbols are shown, checked with the evaluator), or 'none found'
Default combinations: """ + ", ".join(",".join(c) or "none" for c in DEFAULT_COMBINATIONS) + """.
output: a table per file; with --json one JSON object per file and line: {"file",
  "asserts", "rows": [{"presets", "refused", "open", "open_asserts" (indices from 0),
  "facts": [{"preset", "fact", "text", "implied", "witness"}]}], "error"}.
exit status: 0 if every file was reported, 1 if one could not be read or parsed,
  2 on a usage error (an unknown preset).
"""


def table(report: PresetsReport, verbose: bool = False) -> list[str]:
    """The table of one file, then the facts its asserts do not imply, each once (with
    ``verbose``, how each witness was found, or what the search spent)."""
    lines = [f"{report.file}: {report.asserts} asserts"]
    width = max([len(r.label) for r in report.rows] + [7])
    lines.append(f"  {'presets'.ljust(width)}  {'open':>5}  {'facts':>5}  {'new':>4}  open asserts (line:col) / refused")
    for r in report.rows:
        new = sum(not f.implied for f in r.facts)
        if r.refused is not None:
            lines.append(f"  {r.label.ljust(width)}  {'-':>5}  {'-':>5}  {'-':>4}  {r.refused}")
            continue
        shown = ", ".join(report.positions[i].split(":", 1)[-1] for i in r.open[:OPEN_SHOWN])
        more = f" (+{len(r.open) - OPEN_SHOWN})" if len(r.open) > OPEN_SHOWN else ""
        lines.append(f"  {r.label.ljust(width)}  {len(r.open):>5}  {len(r.facts):>5}  {new:>4}  {shown}{more}")
    seen: dict[str, object] = {}
    for r in report.rows:
        for f in r.facts:
            if not f.implied:
                seen.setdefault(f.fact.text, f)
    if seen:
        lines.append("  facts the asserts do not imply, each with an input they accept and it excludes "
                     "(other symbols at the example point):")
    for text, f in seen.items():
        witness = "none found" if f.witness is None else ", ".join(f"{n} = {v}" for n, v in f.witness.items())
        how = f"    [{f.found_by or 'no strategy found one'}, {f.points} point(s) checked]" if verbose else ""
        lines.append(f"    {f.fact.preset:<10}  {text}    {witness}{how}")
    return lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_paths(parser, EPILOG)
    parser.add_argument("--preset", action="append", metavar="NAME[,NAME...]",
                        help="a preset or comma-joined combination to report ('none': no preset); repeatable; "
                             "default: the combinations listed below")
    parser.add_argument("--no-search", action="store_true",
                        help="do not search for excluded inputs (faster; 'new' facts get no witness)")
    parser.add_argument("--json", action="store_true", help="one JSON object per file and line instead of the table")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="after each witness, the search strategy that found it and the points checked; "
                             "each file's CPU seconds")


def run(args) -> int:
    from absint.readers.files import smt2_files

    try:
        combinations = combinations_from(args.preset)
    except PresetError as e:
        print(f"absint presets: {e}", file=sys.stderr)
        return 2
    files = smt2_files(args.paths)
    if not files:
        print("absint presets: no .smt2 files found", file=sys.stderr)
        return 2
    failed = 0
    for path in files:
        start = time.process_time()
        report = report_file(path, combinations, not args.no_search)
        if report.error is not None:
            print(report.error, file=sys.stderr)
            failed += 1
        if args.json:
            print(json.dumps(report.to_json()), flush=True)
        elif report.error is None:
            print("\n".join(table(report, args.verbose)), flush=True)
        if args.verbose and not args.json:
            print(f"  {time.process_time() - start:.2f} s of CPU", flush=True)
    return 1 if failed else 0
