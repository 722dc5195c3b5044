"""The child process of ``python -m absint.torch diagnose``: ``python -m
absint.torch.diagnose.child EVENTS SCRIPT [ARGS...]`` runs the diagnosis and writes each
event (a question found, a run ended, the diagnosis, or absint's own failure) to EVENTS as a
JSON line, flushed at once: a parent that stops this process still reads what was found."""

from __future__ import annotations

import json
import sys


def main(argv: list[str]) -> int:
    events, script, args = argv[0], argv[1], argv[2:]
    with open(events, "a", encoding="utf-8") as out:
        def emit(event: dict) -> None:
            out.write(json.dumps(event) + "\n")
            out.flush()

        try:
            from absint.torch.diagnose import pipeline

            d = pipeline.diagnose(script, args, emit=emit)
        except BaseException as e:  # noqa: BLE001 - reported by the parent, never a traceback
            emit({"event": "failed", "error": f"{type(e).__name__}: {e}"})
            return 1
        emit({"event": "done", "diagnosis": d.to_json()})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
