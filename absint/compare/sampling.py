"""Which files a comparison (or one slow oracle) runs on when asked for a sample."""

from __future__ import annotations

import os


def spread_sample(files: list[str], n: int | None) -> list[str]:
    """``n`` files evenly spaced in size order (smallest and largest included), name order
    kept: a sample that still covers the small and the huge programs."""
    if n is None or n >= len(files):
        return list(files)
    if n <= 0:
        return []
    by_size = sorted(files, key=lambda f: (os.path.getsize(f), f))
    if n == 1:
        picked = {by_size[len(by_size) // 2]}
    else:
        picked = {by_size[round(k * (len(by_size) - 1) / (n - 1))] for k in range(n)}
    return [f for f in files if f in picked]
