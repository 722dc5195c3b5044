"""Command line: ``absint check | analyze | compare | bounds | outputs | presets | validate | sample | solve | inputs | explain``.

Each subcommand lives in its own module with ``add_arguments(parser)`` and
``run(args) -> exit code``; modules are imported only when their command runs,
so ``absint --help`` stays fast and a missing optional extra (z3, torch, dask)
only matters to the command that needs it.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from absint import __version__

COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("absint.cli.check", "parse files and verify every assert holds at the example point"),
    "analyze": ("absint.cli.analyze", "decide every assert against the asserts before it (T / F / ?)"),
    "compare": ("absint.cli.compare", "precision and speed side by side with Z3 (and PyTorch's ShapeEnv)"),
    "bounds": ("absint.cli.bounds", "numeric and symbolic bounds of a program's unbacked sizes and outputs"),
    "outputs": ("absint.cli.outputs", "each output as the simplest expression over the inputs (its constant when fixed)"),
    "presets": ("absint.cli.presets", "open guards per preset (facts assumed ahead), and inputs each preset excludes"),
    "validate": ("absint.cli.validate", "translation validation: source/target pairs equal, or the first failing step"),
    "sample": ("absint.cli.sample", "shapes that satisfy operator specs: random samples or every solution"),
    "solve": ("absint.cli.solve", "inputs that give wanted outputs (--want 'output0_size0 == 8'), or a proof of none"),
    "inputs": ("absint.cli.inputs", "the inputs that pass every assert: constants, equalities, ranges, relations"),
    "explain": ("absint.cli.explain", "why one assert (FILE:LINE) has its verdict: the earlier asserts it needs, or a failing point"),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="absint",
        description="Sound, fast reasoning about the integer shape programs of deep-learning compilers.",
        epilog="Run 'absint COMMAND --help' for the options of one command.",
    )
    parser.add_argument("--version", action="version", version=f"absint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if only is None or only == name:
            mod = _load(module)
            if mod is not None:
                mod.add_arguments(p)
                p.set_defaults(run=mod.run)
    return parser


def _load(module: str):
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name == module:
            return None
        raise


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    chosen = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(chosen if chosen in COMMANDS else None)
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
