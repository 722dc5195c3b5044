"""Command line: ``absint check | analyze | ...``."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Iterable, Sequence

from absint import __version__


def smt2_files(paths: Iterable[str]) -> list[str]:
    """Files named on the command line; directories are searched for ``*.smt2``, sorted by name."""
    out: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            found = []
            for root, _, names in os.walk(p):
                found.extend(os.path.join(root, n) for n in names if n.endswith(".smt2"))
            out.extend(sorted(found, key=lambda f: (os.path.basename(f), f)))
        else:
            out.append(p)
    return out


def cmd_check(args: argparse.Namespace) -> int:
    from absint.check import check_file

    files = smt2_files(args.paths)
    if not files:
        print("absint check: no .smt2 files found", file=sys.stderr)
        return 2
    failed = 0
    for f in files:
        report = check_file(f)
        print(report.summary())
        failed += not report.ok
    print(f"{len(files)} file(s), {failed} with a problem")
    return 1 if failed else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="absint",
        description="Sound, fast reasoning about the integer shape programs of deep-learning compilers.",
    )
    parser.add_argument("--version", action="version", version=f"absint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("check", help="parse files and verify every assert holds at the example point")
    p.add_argument("paths", nargs="+", metavar="PATH", help=".smt2 files or directories")
    p.set_defaults(run=cmd_check)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return args.run(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
