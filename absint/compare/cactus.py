"""``cactus.png``: asserts decided against cumulative CPU seconds, one line per oracle, so that
precision and speed show in one picture."""

from __future__ import annotations

from typing import Sequence

from absint.compare.oracle import MissingExtra, Oracle
from absint.compare.row import FileRow

INSTALL_HINT = "the cactus plot needs matplotlib: pip install 'absint[plot]'"


def require_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise MissingExtra(INSTALL_HINT) from None


def cactus(path: str, rows: Sequence[FileRow], oracles: Sequence[Oracle]) -> None:
    """Each oracle's per-assert times of the asserts it decided (T or F), sorted ascending and
    summed up, against the count of asserts decided so far."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5), dpi=120)
    total = sum(r.asserts for r in rows)
    for oracle in oracles:
        _line(ax, rows, oracle)
    ax.axhline(total, color="grey", linestyle=":", linewidth=1, label=f"all asserts ({total})")
    ax.set_xscale("log")
    ax.set_xlabel("cumulative CPU seconds (log scale)")
    ax.set_ylabel("asserts decided (T or F)")
    ax.set_title(f"Cactus plot: {len(rows)} file(s), {total} asserts")
    ax.grid(True, which="both", alpha=0.3)
    ax.set_ylim(bottom=0)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _line(ax, rows: Sequence[FileRow], oracle: Oracle) -> None:
    answers = [r.answers[oracle.name] for r in rows if oracle.name in r.answers]
    times = sorted(t for a in answers for t, letter in zip(a.per_assert, a.letters) if letter in "TF")
    if not times:
        return
    acc, xs = 0.0, []
    for t in times:
        acc += t
        xs.append(max(acc, 1e-6))
    label = f"{oracle.title}: {len(times)} decided, {acc:.2f} s on them"
    if len(answers) != len(rows):
        label += f" ({len(answers)} files)"
    if any(a.details.get("source") == "reference" for a in answers):
        label += "\n(reference file: each file's time spread evenly over its asserts)"
    color, dash = oracle.line_style
    ax.step(xs, range(1, len(xs) + 1), where="post", color=color, linestyle=dash, label=label)
