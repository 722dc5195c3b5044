"""``--preset NAME[,NAME...]``: the option every command that assumes a program's asserts
shares (``analyze``, ``bounds``, ``check``, ``inputs``, ``outputs``, ``solve``; a new
command calls the same two functions).

How a command uses it::

    from absint.presets import option
    option.add_argument(parser)                 # in add_arguments
    names = option.names(args)                  # in run; PresetError -> usage error, exit 2
    facts = absint.presets.facts.assume(reasoner, program, names)   # before the asserts;
                                                # PresetRefused -> the file's error, exit 2
"""

from __future__ import annotations

import argparse

from absint.presets.facts import PRESETS, PresetError, parse

HELP = ("assume these facts ahead of the asserts, comma-separated and repeatable: "
        + "; ".join(f"{n}: {what}" for n, (what, _) in PRESETS.items())
        + ". Sizes, strides and tensors are read from the symbols' names (<tensor>_size<d>, "
          "<tensor>_stride<d>, <tensor>_storage_offset). A preset fact false at a file's example "
          "point is refused with that fact (exit status 2)")


def add_argument(parser: argparse.ArgumentParser, more: str = "") -> None:
    """``more``: what the command adds to the help (appended to :data:`HELP`)."""
    parser.add_argument("--preset", action="append", metavar="NAME[,NAME...]", dest="preset", help=HELP + more)


def names(args: argparse.Namespace) -> tuple[str, ...]:
    """The preset names the command line chose (in table order); raises :class:`PresetError`."""
    return parse(getattr(args, "preset", None))


__all__ = ["add_argument", "names", "PresetError", "HELP"]
