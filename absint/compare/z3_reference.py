"""Z3's letters from a reference file (``NAME VERDICTS SECONDS`` lines, such as
``../shared/reference/z3_dev.txt``) instead of a Z3 run: the published numbers, reproduced."""

from __future__ import annotations

from absint.compare.z3_solver import Z3FileResult


def read_reference(path: str) -> dict[str, tuple[str, float]]:
    """``NAME VERDICTS SECONDS`` lines -> {name: (letters, seconds)}; ``-`` means no asserts."""
    out = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) != 3:
                continue
            name, letters, secs = parts
            out[name] = ("" if letters == "-" else letters, float(secs))
    return out


def from_reference(letters: str, seconds: float) -> Z3FileResult:
    """A reference line as a result: the file's CPU time is spread evenly over its asserts."""
    n = len(letters)
    return Z3FileResult(letters, [seconds / n] * n if n else [], 0.0, seconds, source="reference")
