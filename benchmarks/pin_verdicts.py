"""The shared corpus's verdict letters, pinned in the repository: no proof is lost unseen.

    python -m benchmarks.pin_verdicts [CORPUS_DIR] [--jsonl RECORDS] [--jobs N] [--write] [--pin FILE]

The pin (``tests/data/corpus_verdicts.txt``) holds, per corpus file, the letter of every
assert as ``absint analyze`` gives it (``T`` implied, ``F`` refuted, ``?`` open), run-length
encoded: ``6?T5?`` is ``??????T?????``. It is derived data (names and letters), no corpus text.
The corpus test (``tests/corpus/test_corpus_analysis.py``) fails when a pinned ``T`` or ``F``
becomes ``?`` or flips, naming the file and the assert's index (from 0); a letter gained is
reported and does not fail. This command compares the same way (exit 1 on a loss), and with
``--write`` moves the pin to what the tree gives now: commit it with a message that says why.
Without ``--jsonl`` it analyses every file itself (a process pool, as benchmarks.precision);
with it, it reads the records of an ``absint analyze --jsonl`` run.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import sys
from pathlib import Path

import attrs

ROOT = Path(__file__).resolve().parents[1]
PIN = ROOT / "tests" / "data" / "corpus_verdicts.txt"
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus"
LETTERS = "TF?"
HEADER = ("# absint analyze's verdict letters on ../shared/corpus, per file, run-length encoded "
          "(6?T5? = ??????T?????, - = no asserts)\n# re-pin: python -m benchmarks.pin_verdicts --write "
          "(commit with a message that says why)\n")
_RUN = re.compile(r"([0-9]*)([TF?])")


def encode(letters: str) -> str:
    """``??????T?????`` -> ``6?T5?``: a run of one letter is the letter alone; no asserts is ``-``."""
    if not letters:
        return "-"
    out = []
    for letter, run in itertools.groupby(letters):
        n = len(list(run))
        out.append(letter if n == 1 else f"{n}{letter}")
    return "".join(out)


def decode(text: str) -> str:
    """The inverse of :func:`encode`; a malformed text is a ValueError naming it."""
    if text == "-":
        return ""
    pos, out = 0, []
    for m in _RUN.finditer(text):
        if m.start() != pos or m.group(1).startswith("0"):
            break
        out.append(m.group(2) * int(m.group(1) or 1))
        pos = m.end()
    if pos != len(text) or not text:
        raise ValueError(f"malformed run-length letters at character {pos + 1}: {text[pos:pos + 20]!r}")
    return "".join(out)


def render_pin(verdicts: dict[str, str]) -> str:
    """The pin's text: the header, then one ``NAME LETTERS`` line per file, by name."""
    return HEADER + "".join(f"{name} {encode(letters)}\n" for name, letters in sorted(verdicts.items()))


def read_pin(path: Path = PIN) -> dict[str, str]:
    """File name -> its pinned letters; a malformed line is a ValueError naming its line."""
    out: dict[str, str] = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            try:
                name, text = line.split()
                out[name] = decode(text)
            except ValueError as e:
                raise ValueError(f"{path}:{number}: {e}") from None
    return out


def current_verdicts(records: list[dict]) -> dict[str, str | None]:
    """Base name -> letters of each record (``None`` for a record with an error: no letters)."""
    return {os.path.basename(r["file"]): None if r.get("error") else r["verdicts"] for r in records}


@attrs.frozen(slots=True)
class Change:
    """One assert whose letter moved: ``file``, ``index`` (from 0), the pinned and the new letter."""

    file: str
    index: int
    before: str
    after: str

    def __str__(self) -> str:
        return f"{self.file} assert {self.index}: {self.before} -> {self.after}"


@attrs.frozen(slots=True)
class Comparison:
    """The tree's letters against the pin: ``lost`` (a T or F now ``?`` or flipped) and
    ``problems`` (a pinned file missing, failed or with another number of asserts) fail;
    ``gained`` (a ``?`` now T or F) and ``new_files`` are reported."""

    lost: tuple[Change, ...] = ()
    gained: tuple[Change, ...] = ()
    problems: tuple[str, ...] = ()
    new_files: tuple[str, ...] = ()

    @property
    def failed(self) -> bool:
        return bool(self.lost or self.problems)


def compare(pinned: dict[str, str], current: dict[str, str | None]) -> Comparison:
    lost, gained, problems = [], [], []
    for name, before in sorted(pinned.items()):
        if name not in current:
            problems.append(f"{name}: pinned, but not analysed")
            continue
        after = current[name]
        if after is None:
            problems.append(f"{name}: pinned, but its record is an error")
            continue
        if len(after) != len(before):
            problems.append(f"{name}: {len(after)} asserts, the pin has {len(before)}")
            continue
        for i, (b, a) in enumerate(zip(before, after)):
            if b != a:
                (gained if b == "?" else lost).append(Change(name, i, b, a))
    new_files = tuple(sorted(set(current) - set(pinned)))
    return Comparison(tuple(lost), tuple(gained), tuple(problems), new_files)


def report(result: Comparison, limit: int = 50) -> str:
    """The comparison in lines: what fails first, then what was gained."""
    lines = [f"LOST: {c}" for c in result.lost[:limit]] + [f"PROBLEM: {p}" for p in result.problems[:limit]]
    lines += [f"gained: {c}" for c in result.gained[:limit]]
    lines += [f"new file (not pinned): {n}" for n in result.new_files[:limit]]
    lines.append(f"{len(result.lost)} letter(s) lost, {len(result.problems)} problem(s), "
                 f"{len(result.gained)} gained, {len(result.new_files)} new file(s)")
    return "\n".join(lines)


def totals(verdicts: dict[str, str]) -> str:
    letters = "".join(verdicts.values())
    return (f"{len(verdicts)} files, {len(letters)} asserts: {letters.count('T')} T, {letters.count('F')} F, "
            f"{letters.count('?')} ?")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.pin_verdicts", description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS, help="directory of .smt2 files")
    ap.add_argument("--jsonl", type=Path, help="read records from an 'absint analyze --jsonl' run instead")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: all cores)")
    ap.add_argument("--pin", type=Path, default=PIN, help=f"the pin file (default {PIN.relative_to(ROOT)})")
    ap.add_argument("--write", action="store_true", help="write the tree's letters as the new pin")
    args = ap.parse_args(argv)
    if args.jsonl:
        with open(args.jsonl) as f:
            records = [json.loads(line) for line in f if line.strip()]
    elif args.corpus.is_dir():
        from benchmarks.precision import run_analysis

        records = run_analysis(args.corpus, args.jobs)
    else:
        print(f"corpus directory not found: {args.corpus}", file=sys.stderr)
        return 2
    current = current_verdicts(records)
    errors = sorted(name for name, letters in current.items() if letters is None)
    pinned = read_pin(args.pin) if args.pin.exists() else {}
    result = compare(pinned, current)
    print(report(result))
    if args.write:
        if errors:
            print(f"not written: {len(errors)} record(s) with an error, e.g. {errors[0]}", file=sys.stderr)
            return 1
        args.pin.write_text(render_pin({n: v for n, v in current.items() if v is not None}))
        print(f"wrote {args.pin}: {totals(read_pin(args.pin))}")
        return 0
    print(f"pin {args.pin}: {totals(pinned)}")
    return 1 if result.failed else 0


if __name__ == "__main__":
    sys.exit(main())
