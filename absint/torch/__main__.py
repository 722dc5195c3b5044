"""``ABSINT_TORCH=fallback|shadow|primary python -m absint.torch script.py [args]``: run a
script with absint installed in PyTorch's ShapeEnv, then print what it did on stderr.

``python -m absint.torch diagnose SCRIPT.py [ARGS...] [--json] [--timeout S]``: which
``torch._check`` lines the script's export or compile is missing, each verified
(:mod:`absint.torch.diagnose`; ``diagnose --help``).

``ABSINT_TORCH_CHECK=1`` turns on the check at the example point; ``ABSINT_TORCH_UNKNOWN=ask_torch``
sends primary mode's UNKNOWNs to PyTorch (default ``final``); ``ABSINT_TORCH_RECORD=PATH``
records the sessions as JSONL (see ``docs/torch.md``).
"""

from __future__ import annotations

import json
import os
import runpy
import sys

from absint.torch import client

USAGE = ("usage: ABSINT_TORCH=fallback|shadow|primary python -m absint.torch script.py [args...]\n"
         "       python -m absint.torch diagnose SCRIPT.py [ARGS...] [--json] [--timeout S]")


def main(argv: list[str]) -> int:
    if argv and argv[0] == "diagnose":
        from absint.torch.diagnose import cli

        return cli.main(argv[1:])
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE + "\n\n" + (__doc__ or ""), file=sys.stderr)
        return 0 if argv else 2
    mode = os.environ.get("ABSINT_TORCH", "fallback")
    if mode not in client.MODES:
        print(f"ABSINT_TORCH must be one of {', '.join(client.MODES)}, not {mode!r}\n{USAGE}", file=sys.stderr)
        return 2
    unknown = os.environ.get("ABSINT_TORCH_UNKNOWN", "final")
    if unknown not in client.UNKNOWN_POLICIES:
        print(f"ABSINT_TORCH_UNKNOWN must be one of {', '.join(client.UNKNOWN_POLICIES)}, not {unknown!r}",
              file=sys.stderr)
        return 2
    if os.environ.get("ABSINT_TORCH_RECORD"):
        client.record(os.environ["ABSINT_TORCH_RECORD"], label=os.path.basename(argv[0]))
    client.install(mode, check=os.environ.get("ABSINT_TORCH_CHECK", "") not in ("", "0"), unknown=unknown)
    sys.argv = list(argv)
    try:
        runpy.run_path(argv[0], run_name="__main__")
    finally:
        summary = client.stats()
        client.uninstall()
        client.record(None)
        print("absint.torch: " + json.dumps(summary, default=str), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
