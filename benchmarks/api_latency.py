"""Latency of the compiler API: the same facts and queries through absint and ShapeEnv.

A *stream* is what a compiler does during one compile: declare the symbols
(backed with a hint, unbacked without), then for each guard in order ask
whether it is already implied, and record it as a fact. Streams come from

* corpus files (``../shared/corpus`` relative to the repo root; skipped with a
  message when absent): each assert's term is written back as sympy by
  :class:`absint.readers.sympy_bridge.TermsToSympy` (PyTorch's vocabulary when torch is
  installed, so both reasoners read the very same expressions);
* generated jagged-split programs (:func:`benchmarks.generators.build_jagged_split`).

Per query we time (``time.perf_counter_ns``):

* absint: ``ShapeReasoner.decide(expr)``, first call (``cold``: the sympy ->
  term translation included) and the same query again (``warm``: memoised
  translation, the compiler's repeated question);
* ShapeEnv (when torch is importable): ``statically_known_true`` on a SymBool
  of the same expression over ShapeEnv's own symbols (backed:
  ``create_symbol(hint, positive=None, do_not_specialize_zero_one=True)``;
  unbacked: ``create_unbacked_symint()``), cold and warm likewise (its
  ``_maybe_evaluate_static`` is memoised until the facts change). Facts are
  recorded as the compiler records a ``torch._check``: ``evaluate_expr`` when
  all symbols are backed, ``guard_or_defer_runtime_assert`` otherwise.

The garbage collector is off while a stream runs (as in ``timeit``), so a
collection does not land on whichever query happens to be running.
Medians and p99 (µs) are printed overall and per deciding layer of absint's
verdict; the ratio ShapeEnv / absint is of the medians over the same queries.
Nothing here asserts timings.

Usage::

    python -m benchmarks.api_latency [--corpus DIR] [--files A.smt2 B.smt2 ...]
                                     [--jagged 16 64 256] [--max-steps 1500]
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from dataclasses import dataclass, field

import sympy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CORPUS = os.path.join(ROOT, "..", "shared", "corpus")
DEFAULT_FILES = (
    "BERT_pytorch___1.smt2",
    "hf_Bert___5.smt2",
    "BlenderbotSmallForConditionalGeneration___12.smt2",
    "DebertaForQuestionAnswering___55.smt2",
    "TrOCRForCausalLM___29.smt2",
    "cspdarknet53___4.smt2",
    "hf_Longformer___69.smt2",
    "MBartForConditionalGeneration___176.smt2",
)


@dataclass
class Stream:
    name: str
    symbols: list[tuple[sympy.Symbol, int | None]]  # (symbol, hint or None)
    queries: list = field(default_factory=list)  # sympy Booleans: decide, then assume


@dataclass
class Timing:
    stream: str
    layer: str  # absint's deciding layer, or "unknown"
    absint_cold: float
    absint_warm: float
    shapeenv_cold: float | None = None
    shapeenv_warm: float | None = None
    shapeenv_true: bool | None = None
    absint_true: bool = False
    read_floor: float = 0.0  # µs just to read the expression once: one hash, one walk of its nodes
    repeats_fact: bool = False  # the query is a fact recorded before (the API answers from memo)


def torch_available() -> bool:
    try:
        import torch  # noqa: F401
        from torch.fx.experimental.symbolic_shapes import ShapeEnv  # noqa: F401
    except Exception:
        return False
    return True


def stream_from_program(name: str, program, vocabulary: object, max_steps: int) -> Stream:
    from absint.readers.sympy_bridge import TermsToSympy
    from absint.lang.terms import INT

    symbols, declared = {}, []
    for s in program.symbols:
        if s.sort is INT:
            sym = sympy.Symbol(s.name, integer=True)
            symbols[s.name] = sym
            declared.append((sym, s.hint))
    back = TermsToSympy(symbols, vocabulary)
    stream = Stream(name, declared)
    for fact in program.facts[:max_steps]:
        e = back(fact.term)
        if not isinstance(e, sympy.logic.boolalg.BooleanAtom):
            stream.queries.append(e)
    return stream


def corpus_streams(corpus: str, files, vocabulary: object, max_steps: int) -> list[Stream]:
    from absint.readers.smtlib import read_file

    if not os.path.isdir(corpus):
        print(f"corpus not found at {corpus}: corpus streams skipped")
        return []
    out = []
    for f in files:
        path = os.path.join(corpus, f)
        if not os.path.exists(path):
            print(f"{f}: not in the corpus, skipped")
            continue
        out.append(stream_from_program(f, read_file(path), vocabulary, max_steps))
    return out


def jagged_streams(sizes, vocabulary: object, max_steps: int) -> list[Stream]:
    from absint.readers.smtlib import parse

    from benchmarks.generators import build_jagged_split

    return [stream_from_program(f"jagged_split(n={n})", parse(build_jagged_split(n).text), vocabulary, max_steps)
            for n in sizes]


def run_absint(stream: Stream) -> list[tuple[float, float, str, bool, bool]]:
    """Per query: (cold µs, warm µs, deciding layer, TRUE?, repeats a fact?).

    The layer is the one the term-level reasoner decides the query with, asked
    untimed in the same state: the API answers a query that repeats a recorded
    fact from its memo, which is no layer at all, and the classification must not
    depend on that (so the per-layer rows compare like with like)."""
    from absint.api import ShapeReasoner
    from absint.reasoning.verdict import Truth

    r = ShapeReasoner()
    for sym, hint in stream.symbols:
        r.declare(sym, hint=hint)
    out = []
    clock = time.perf_counter_ns
    recorded = set()
    for q in stream.queries:
        t0 = clock()
        v = r.decide(q)
        t1 = clock()
        r.decide(q)
        t2 = clock()
        if v.truth is not Truth.UNKNOWN:
            by = r.reasoner.decide(r.term(q))
            layer = by.by.value if by.truth is not Truth.UNKNOWN else "unknown"
        else:
            layer = "unknown"
        out.append(((t1 - t0) / 1000, (t2 - t1) / 1000, layer, v.truth is Truth.TRUE, q in recorded))
        r.assume(q)
        recorded.add(q)
        recorded.update(q.args if isinstance(q, sympy.And) else ())
    return out


def _walk(e) -> None:
    for a in e.args:
        _walk(a)


def read_floor(stream: Stream) -> list[float]:
    """Per query, what merely *reading* it costs: hashing it (the top level, as a first
    dictionary lookup must; its children's hashes are already cached, so this is a lower
    bound) and visiting each node once, with no translation and no reasoning. No
    implementation that takes sympy expressions can answer a first-time query faster."""
    out = []
    clock = time.perf_counter_ns
    for q in stream.queries:
        q._mhash = None  # sympy caches an expression's hash in this slot
        t0 = clock()
        hash(q)
        _walk(q)
        out.append((clock() - t0) / 1000)
    return out


def run_shapeenv(stream: Stream) -> list[tuple[float | None, float | None, bool | None]]:
    from torch._dynamo.source import ConstantSource
    from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv, statically_known_true

    se = ShapeEnv(specialize_zero_one=False, duck_shape=False, assume_static_by_default=False)
    mapping, unbacked = {}, set()
    for sym, hint in stream.symbols:
        if hint is not None:
            e = se.create_symbol(int(hint), ConstantSource(sym.name), dynamic_dim=DimDynamic.DYNAMIC,
                                 positive=None, do_not_specialize_zero_one=True)
        else:
            e = se.create_unbacked_symint().node.expr
            unbacked.add(e)
        mapping[sym] = e
    out = []
    clock = time.perf_counter_ns
    for i, q in enumerate(stream.queries):
        e = q.xreplace(mapping)
        if isinstance(e, sympy.logic.boolalg.BooleanAtom):
            out.append((None, None, None))
            continue
        b = se.create_symboolnode(e)
        try:
            t0 = clock()
            known = statically_known_true(b)
            t1 = clock()
            statically_known_true(b)
            t2 = clock()
            out.append(((t1 - t0) / 1000, (t2 - t1) / 1000, known))
        except Exception:
            out.append((None, None, None))
        try:
            if e.free_symbols & unbacked:
                se.guard_or_defer_runtime_assert(e, f"query {i}")
            else:
                se.evaluate_expr(e)
        except Exception:
            pass
    return out


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def _row(name: str, g: list[Timing], with_shapeenv: bool) -> str:
    ac = [t.absint_cold for t in g]
    aw = [t.absint_warm for t in g]
    line = (f"{name:<34}{len(g):>6}  {statistics.median(ac):>9.1f} /{_pct(ac, .99):>8.0f}  "
            f"{statistics.median(aw):>7.1f} /{_pct(aw, .99):>6.1f}")
    if with_shapeenv:
        paired = [t for t in g if t.shapeenv_cold is not None]
        if paired:
            sc = [t.shapeenv_cold for t in paired]
            sw = [t.shapeenv_warm for t in paired]
            rc = statistics.median(sc) / statistics.median([t.absint_cold for t in paired])
            rw = statistics.median(sw) / statistics.median([t.absint_warm for t in paired])
            line += (f"  {statistics.median(sc):>9.1f} /{_pct(sc, .99):>8.0f}  "
                     f"{statistics.median(sw):>7.1f} /{_pct(sw, .99):>6.1f}  {rc:>7.1f}x {rw:>7.1f}x")
    return line


LAYERS = ("normal-form", "interval-congruence", "polyhedra", "contradiction", "unknown")


def report(timings: list[Timing], with_shapeenv: bool) -> None:
    """Median / p99 in µs; ``cold`` = first time the expression is asked, ``warm`` = asked again."""
    head = f"{'source: queries answered by':<34}{'n':>6}  {'absint cold':>19}  {'absint warm':>15}"
    if with_shapeenv:
        head += f"  {'ShapeEnv cold':>19}  {'ShapeEnv warm':>15}  {'ratio cold, warm':>16}"
    print(head)
    sources = {"all": timings}
    for t in timings:
        sources.setdefault(t.stream.split("(")[0] if t.stream.startswith("jagged") else "corpus", []).append(t)
    for source, ts in sources.items():
        print(_row(f"{source}: any layer", ts, with_shapeenv))
        for layer in LAYERS:
            g = [t for t in ts if t.layer == layer]
            if g:
                print(_row(f"{source}: {layer}", g, with_shapeenv))
    print("\ntarget (issue 7): on queries the interval layer answers, median cold decide < 50 µs and "
          ">= 50x below ShapeEnv")
    for source, ts in sources.items():
        g = [t for t in ts if t.layer == "interval-congruence"]
        paired = [t for t in g if t.shapeenv_cold is not None]
        if not g:
            continue
        med = statistics.median(t.absint_cold for t in g)
        repeats = sum(t.repeats_fact for t in g)
        line = (f"  {source:<14} {med:>7.1f} µs: {'met' if med < 50 else 'NOT met'} "
                f"({repeats} of {len(g)} repeat a recorded fact)")
        if with_shapeenv and paired:
            se_med = statistics.median(t.shapeenv_cold for t in paired)
            ratio = se_med / statistics.median(t.absint_cold for t in paired)
            floor = statistics.median(t.read_floor for t in paired)
            line += (f"; {ratio:.1f}x: {'met' if ratio >= 50 else 'NOT met'} (50x needs <= {se_med / 50:.2f} µs; "
                     f"reading the expression alone, one hash and one walk, takes {floor:.2f} µs)")
        print(line)
    if with_shapeenv:
        paired = [t for t in timings if t.shapeenv_true is not None]
        both = sum(t.absint_true and t.shapeenv_true for t in paired)
        only_a = sum(t.absint_true and not t.shapeenv_true for t in paired)
        only_s = sum(t.shapeenv_true and not t.absint_true for t in paired)
        print(f"\nstatically known true: both {both}, absint only {only_a}, ShapeEnv only {only_s} "
              f"(of {len(paired)} queries ShapeEnv ran)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=DEFAULT_CORPUS)
    ap.add_argument("--files", nargs="*", default=list(DEFAULT_FILES))
    ap.add_argument("--jagged", nargs="*", type=int, default=[16, 64, 256])
    ap.add_argument("--max-steps", type=int, default=1500, help="queries per stream at most")
    ap.add_argument("--no-shapeenv", action="store_true")
    args = ap.parse_args(argv)

    with_shapeenv = not args.no_shapeenv and torch_available()
    vocabulary = "sympy"
    if torch_available():
        from absint.torch.vocabulary import sympy_functions

        vocabulary = sympy_functions()
    if not with_shapeenv:
        print("torch not importable (or --no-shapeenv): absint only")
    streams = corpus_streams(args.corpus, args.files, vocabulary, args.max_steps)
    streams += jagged_streams(args.jagged, vocabulary, args.max_steps)
    timings: list[Timing] = []
    print(f"{'stream':<52}{'queries':>8}  {'absint s':>9}  {'ShapeEnv s':>10}")
    for s in streams:
        gc.collect()
        gc.disable()  # as timeit does: a collection mid-stream lands on whichever query is running
        try:
            t0 = time.perf_counter()
            a = run_absint(s)
            t1 = time.perf_counter()
            gc.collect()
            t2 = time.perf_counter()
            se = run_shapeenv(s) if with_shapeenv else [(None, None, None)] * len(a)
            t3 = time.perf_counter()
        finally:
            gc.enable()
        print(f"{s.name:<52}{len(s.queries):>8}  {t1 - t0:>9.2f}  {(t3 - t2) if with_shapeenv else float('nan'):>10.2f}")
        floor = read_floor(s)  # last: hashing first would make the runs above cheaper
        for (ac, aw, layer, at, rep), (sc, sw, st), fl in zip(a, se, floor):
            timings.append(Timing(s.name, layer, ac, aw, sc, sw, st, at, fl, rep))
    print(f"\nexpressions in {vocabulary} vocabulary; latency of one decide / statically_known_true call\n")
    report(timings, with_shapeenv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
