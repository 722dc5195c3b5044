"""How absint's cost grows with the program: double the input, what happens?

    python -m benchmarks.scaling [--families jagged,chain,copies] [--sizes 250,500,...,8000]
                                 [--z3-up-to 1000] [--markdown OUT.md] [--plot OUT.png]

Three families of generated programs (``benchmarks.generators``), each at sizes that double:

* ``jagged``: a jagged split of N unbacked lengths (prefix sums ``start_{k+1} = start_k + u_k``,
  three implied guards per split); ``jagged-sum-first``: the same with the sum's equality
  before the lengths' signs (each sign then narrows an atom of a sum already known);
  ``jagged-chain``: the same with the total stated over the prefix sums (``end_{N-1} =
  values_size0``), ``jagged-links``: with the total a chain of named two-term sums (the same
  meaning; each link names its sum);
* ``chain``: N unbacked sizes in a chain of ``<=`` facts, implied guards on its ends;
* ``copies``: N copies of one corpus-sized program (a conv stack and an attention block,
  about 110 asserts, each copy's symbols renamed) in one file: independent blocks.

Each program is written to a file and run as ``absint analyze FILE`` in a process of its own;
the table gives that process's CPU seconds (user + sys, the interpreter's start included: about
0.7 s) and
peak memory (its largest resident set, the worker's included; a child's peak starts at the
size of the process it was forked from, so every run starts from a small forkserver worker), the ratio to the size before
(2.0 is linear, 4.0 quadratic), the implied guards proved, the file's own CPU seconds as its
record says (reading and analysis, no interpreter start), and Z3 on the same file (asked assert
by assert, as ``absint compare`` does, its CPU also without the interpreter's start, so the Z3
ratio is against the file's seconds) up to ``--z3-up-to``. Exit 1 when a guard the
generator knows implied is not proved.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.generators import PRELUDE, Generated, build_attention_block, build_conv_stack, \
    build_jagged_split, build_le_chain

DEFAULT_SIZES = "250,500,1000,2000,4000,8000"
FAMILIES = ("jagged", "jagged-sum-first", "jagged-chain", "jagged-links", "chain", "copies")
_NAMES = re.compile(r"\((?:declare-const|define-fun) (\S+)|:example-(\S+)")


def copies(n: int) -> Generated:
    """``n`` copies of a conv stack and an attention block, each copy's names suffixed."""
    parts = [build_conv_stack(6), build_attention_block(layers=2)]
    prelude = "\n".join(PRELUDE)
    body, claims = [], []
    for j, part in enumerate(parts):
        text = part.text.split(prelude, 1)[1]
        names = {a or b for a, b in _NAMES.findall(text)}
        names -= {"ceil", "min2", "max2", "sqrt"}
        pattern = re.compile(r"(?<![\w.@|(-])(" + "|".join(map(re.escape, sorted(names, key=len, reverse=True)))
                             + r")(?![\w.@|-])")
        for i in range(n):
            renamed = re.sub(r":example-(\S+)", lambda m: f":example-{m.group(1)}_p{j}c{i}", text)
            body.append(pattern.sub(lambda m: f"{m.group(1)}_p{j}c{i}", renamed).replace("(check-sat)", ""))
            claims += part.claims
    return Generated("copies", prelude + "\n" + "\n".join(body) + "(check-sat)\n", {}, {}, claims)


def build(family: str, n: int) -> Generated:
    if family == "jagged":
        return build_jagged_split(n)
    if family == "jagged-sum-first":
        return build_jagged_split(n, sum_first=True)
    if family in ("jagged-chain", "jagged-links"):
        return build_jagged_split(n, total=family.split("-")[1])
    if family == "chain":
        return build_le_chain(n)
    if family == "copies":
        return copies(max(1, n // 100))  # about n asserts
    raise ValueError(family)


def run_absint(path: Path) -> tuple[str, float, float, float]:
    """(letters, process CPU seconds, peak MB, the file's own CPU seconds: reading and
    analysis, as its record says) of ``absint analyze PATH`` in a process of its own."""
    out = path.with_suffix(".jsonl")
    proc = subprocess.Popen([sys.executable, "-m", "absint", "analyze", str(path), "--jsonl", str(out),
                             "--timeout", "0", "--max-memory", "0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    record = json.loads(out.read_text().splitlines()[0])
    if record.get("error"):
        raise RuntimeError(f"{path}: {record['error']}")
    return record["verdicts"], usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, record["seconds"]


_Z3 = """import json, sys
from absint.compare.z3_solver import run_file
r = run_file(open(sys.argv[1], 'rb').read(), timeout_ms=1000, budget_s=3600.0)
print(json.dumps(None if r.error else [r.letters, r.total_seconds]))
"""


def run_z3(path: Path) -> tuple[str, float] | None:
    """Z3's letters and CPU seconds, in a process of its own."""
    try:
        import z3  # noqa: F401
    except ImportError:
        return None
    out = subprocess.run([sys.executable, "-c", _Z3, str(path)], capture_output=True, text=True, check=True)
    found = json.loads(out.stdout)
    return (None, 0.0) if found is None else tuple(found)


def measure(family: str, sizes: list[int], z3_up_to: int, tmp: Path, pool) -> list[dict]:
    rows = []
    for n in sizes:
        gen = build(family, n)
        path = tmp / f"{family}_{n}.smt2"
        path.write_text(gen.text)
        letters, cpu, mb, own = pool.apply(run_absint, (path,))
        implied = [i for i, c in enumerate(gen.claims) if c == "T"]
        row = {"family": family, "n": n, "asserts": len(gen.claims), "implied": len(implied),
               "proved": sum(letters[i] == "T" for i in implied), "cpu": cpu, "mb": mb, "own": own}
        if n <= z3_up_to:
            z = pool.apply(run_z3, (path,))
            if z is not None and z[0] is not None:
                row["z3_cpu"], row["z3_proved"] = z[1], sum(z[0][i] == "T" for i in implied)
        if rows:
            row["ratio"] = cpu / rows[-1]["cpu"]
        rows.append(row)
        print(_line(row), flush=True)
    return rows


_HEADER = (f"{'family':17} {'N':>5} {'asserts':>8} {'proved':>13} {'CPU s':>8} {'x/doubling':>10} "
           f"{'peak MB':>8} {'file s':>7} {'Z3 s':>8} {'Z3/file':>8}")


def _line(r: dict) -> str:
    z3 = f"{r['z3_cpu']:8.2f} {r['z3_cpu'] / r['own']:7.1f}x" if "z3_cpu" in r else f"{'':8} {'':8}"
    ratio = f"{r['ratio']:10.2f}" if "ratio" in r else f"{'':10}"
    return (f"{r['family']:17} {r['n']:5} {r['asserts']:8} {r['proved']:6}/{r['implied']:<6} {r['cpu']:8.2f} "
            f"{ratio} {r['mb']:8.0f} {r['own']:7.2f} {z3}")


def markdown(rows: list[dict]) -> str:
    out = ["| family | N | asserts | implied proved | process CPU s | x per doubling | peak MB | file's CPU s | "
           "Z3 CPU s | Z3 / file |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        z3 = f"{r['z3_cpu']:.2f} | {r['z3_cpu'] / r['own']:.1f}x" if "z3_cpu" in r else " | "
        ratio = f"{r['ratio']:.2f}" if "ratio" in r else ""
        out.append(f"| {r['family']} | {r['n']} | {r['asserts']} | {r['proved']} of {r['implied']} | "
                   f"{r['cpu']:.2f} | {ratio} | {r['mb']:.0f} | {r['own']:.2f} | {z3} |")
    return "\n".join(out) + "\n"


def plot(rows: list[dict], path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (cpu_ax, mem_ax) = plt.subplots(1, 2, figsize=(11, 4.2))
    for family in dict.fromkeys(r["family"] for r in rows):
        rs = [r for r in rows if r["family"] == family]
        ns = [r["n"] for r in rs]
        cpu_ax.loglog(ns, [r["cpu"] for r in rs], "o-", label=f"absint {family}")
        z = [(r["n"], r["z3_cpu"]) for r in rs if "z3_cpu" in r]
        if z:
            cpu_ax.loglog(*zip(*z), "x--", label=f"Z3 {family}")
        mem_ax.loglog(ns, [r["mb"] for r in rs], "o-", label=family)
    cpu_ax.set(xlabel="N (doubling)", ylabel="CPU seconds (process)", title="cost against size")
    mem_ax.set(xlabel="N (doubling)", ylabel="peak MB", title="peak memory")
    for ax in (cpu_ax, mem_ax):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.scaling", description=__doc__.split("\n\n")[0])
    ap.add_argument("--families", default=",".join(FAMILIES), help="comma-separated (default: %(default)s)")
    ap.add_argument("--sizes", default=DEFAULT_SIZES, help="comma-separated N (default: %(default)s)")
    ap.add_argument("--z3-up-to", type=int, default=1000, help="run Z3 up to this N (default 1000; 0: never)")
    ap.add_argument("--markdown", help="write the table here")
    ap.add_argument("--plot", help="write a PNG plot here (needs matplotlib)")
    ap.add_argument("--json", action="store_true", help="print the rows as one JSON array at the end")
    args = ap.parse_args(argv)
    families = [f for f in args.families.split(",") if f]
    unknown = set(families) - set(FAMILIES)
    if unknown:
        ap.error(f"unknown families: {', '.join(sorted(unknown))} (known: {', '.join(FAMILIES)})")
    sizes = [int(x) for x in args.sizes.split(",") if x]
    print(_HEADER)
    rows: list[dict] = []
    # runs start from a small forkserver worker: a process's peak memory counts the size of the
    # process it was forked from, and this one grows with the programs it generates
    with tempfile.TemporaryDirectory() as tmp, multiprocessing.get_context("forkserver").Pool(1) as pool:
        for family in families:
            rows += measure(family, sizes, args.z3_up_to, Path(tmp), pool)
    if args.markdown:
        Path(args.markdown).write_text(markdown(rows))
    if args.plot:
        plot(rows, args.plot)
    if args.json:
        print(json.dumps(rows))
    missed = [r for r in rows if r["proved"] < r["implied"]]
    for r in missed:
        print(f"{r['family']} N={r['n']}: {r['implied'] - r['proved']} implied guards not proved", file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
