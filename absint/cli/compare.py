"""``absint compare``: absint's verdicts and speed side by side with Z3 (and PyTorch's ShapeEnv).

For each file, in one process and in this order: absint (parse + analysis), Z3
on the original text (:mod:`absint.compare.z3_oracle`), ShapeEnv
(:mod:`absint.compare.shapeenv_oracle`). Every reasoner answers the same question per
assert: is it implied (``T``) or refuted (``F``) by the asserts before it? CPU
time is ``time.process_time`` around each reasoner's own work.

absint's verdicts are then *checked* against Z3's: a ``T`` where Z3 finds a
model of ``facts and not a_i`` (a counterexample), or an ``F`` where Z3 finds a
model of ``facts and a_i`` (a witness), is UNSOUND and listed with Z3's model,
checked once more by absint's own evaluator; the command then exits 1. Where Z3
gave up (``u``: timeout or incompleteness; ``x``: the file's CPU budget was
spent before it got there) nothing is claimed: absint's decisions there are
listed apart, never counted as disagreements.

Outputs: a table on the terminal, ``summary.json``, ``asserts.csv`` and
``cactus.png`` in ``--out``, and with ``--markdown`` the per-family table of
``docs/precision.md``.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from typing import Any

from absint.compare import report
from absint.compare.z3_oracle import MissingExtra

EPILOG = """\
letters: T implied, F refuted, ? open, u gave up (Z3 timeout / unknown),
  x not reached (the file's CPU budget was spent), n not translated (ShapeEnv),
  e ShapeEnv raised.
Z3's CPU seconds count only its protocol (parse + one implication query per
  assert, plus refutation queries with --z3-refute-all); the queries that check
  absint's verdicts (counterexamples, refutations where absint said F) are
  reported apart as verification time. With --z3-reference, Z3's letters and
  per-file CPU come from the reference file and only those checks run Z3.
  Results served from the cache carry the CPU seconds of the run that filled
  it. Z3's per-query timeout is wall-clock, so a loaded machine gives more u.
missing extras: Z3 needs 'absint[z3]', ShapeEnv 'absint[shapeenv]' (torch),
  the cactus plot 'absint[plot]' (matplotlib); the command stops with exit
  status 2 and the pip command when one is missing.
exit status: 0 when no verdict is unsound and every file was read alike by all
  reasoners; 1 otherwise; 2 on a usage error or a missing extra.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    parser.add_argument("paths", nargs="+", metavar="PATH", help=".smt2 files or directories (searched for *.smt2)")
    parser.add_argument("--against", action="append", choices=("z3", "shapeenv"), default=None,
                        help="reasoner to compare with; repeat for both (default: z3)")
    parser.add_argument("--timeout-ms", type=int, default=1000, metavar="N",
                        help="Z3 timeout per query in milliseconds (default %(default)s)")
    parser.add_argument("--budget", type=float, default=300.0, metavar="S",
                        help="CPU seconds per file for Z3 and for ShapeEnv; asserts not reached get 'x' "
                             "(default %(default)g, as the reference)")
    parser.add_argument("--out", default="compare-out", metavar="DIR",
                        help="directory for summary.json, asserts.csv, cactus.png (default %(default)s)")
    parser.add_argument("--cache-dir", metavar="DIR",
                        help="Z3 result cache (default $XDG_CACHE_HOME/absint/z3 or ~/.cache/absint/z3)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the Z3 cache")
    parser.add_argument("--z3-reference", metavar="FILE",
                        help="take Z3's letters and CPU seconds from a reference file (NAME VERDICTS SECONDS "
                             "lines, e.g. ../shared/reference/z3_dev.txt) instead of running Z3; Z3 still "
                             "runs the queries that check absint's verdicts where they disagree")
    parser.add_argument("--z3-refute-all", action="store_true",
                        help="ask Z3 the refutation query on every assert it does not prove implied "
                             "(otherwise only where absint says F), so Z3's F count is complete")
    parser.add_argument("--sample", type=int, metavar="N",
                        help="only N files, spread evenly over the file sizes")
    parser.add_argument("--shapeenv-sample", type=int, metavar="N",
                        help="run ShapeEnv on only N of the files, spread evenly over the sizes")
    parser.add_argument("--markdown", metavar="FILE", help="also write the per-family precision table to FILE")
    parser.add_argument("--show", type=int, default=20, metavar="N",
                        help="files shown in the terminal table (default %(default)s; the largest "
                             "precision gaps first when there are more)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress line")


def spread_sample(files: list[str], n: int | None) -> list[str]:
    """``n`` files evenly spaced in size order (smallest and largest included), name order kept."""
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


# ---------------------------------------------------------------- absint


def _timed_reasoner():
    from absint.reasoning.reasoner import Reasoner

    class TimedReasoner(Reasoner):
        """Records the CPU seconds of each assert (its verdict plus assuming it)."""

        def __init__(self):
            super().__init__()
            self.times: list[float] = []
            self._decide = 0.0

        def decide(self, guard):
            t = time.process_time()
            try:
                return super().decide(guard)
            finally:
                self._decide = time.process_time() - t

        def assume(self, fact):
            t = time.process_time()
            try:
                super().assume(fact)
            finally:
                self.times.append(self._decide + time.process_time() - t)
                self._decide = 0.0

    return TimedReasoner()


def run_absint(data: bytes, name: str) -> tuple[dict[str, Any], Any]:
    """(result, program or None): letters, deciding layers, per-assert and total CPU seconds."""
    from absint.batch import analyze as analysis
    from absint.readers.smtlib import SmtLibError, parse_bytes

    start = time.process_time()
    try:
        program = parse_bytes(data, name)
    except SmtLibError as e:
        return {"letters": "", "layers": [], "per_assert": [], "seconds": time.process_time() - start,
                "error": str(e)}, None
    parse = time.process_time() - start
    reasoner = _timed_reasoner()
    result = analysis.analyze_program(program, check_example=False, reasoner=reasoner)
    total = time.process_time() - start
    n = len(result.verdicts)
    times = reasoner.times if len(reasoner.times) == n else [(total - parse) / n] * n if n else []
    return {
        "letters": "".join(v.letter for v in result.verdicts),
        "layers": [v.by.value for v in result.verdicts],
        "per_assert": [t + parse / n for t in times],
        "seconds": total,
        "parse_seconds": parse,
        "error": None,
    }, program


# ---------------------------------------------------------------- checking absint against Z3


def _line(fact) -> int | None:
    pos = fact.position
    return None if pos is None else pos.line


def _evaluator_check(program, index: int, model: dict[str, Any], kind: str) -> str:
    """Does absint's evaluator agree that ``model`` is a counterexample (facts before hold,
    the assert fails) or a witness (facts before and the assert hold)?"""
    from absint.lang.evaluator import NotEvaluable, evaluate
    from absint.compare.z3_oracle import as_value

    point = {k: as_value(v) for k, v in model.items()}
    memo: dict = {}
    try:
        for fact in program.facts[:index]:
            if evaluate(fact.term, point, memo) is not True:
                return "evaluator disagrees: an earlier assert is false there"
        value = evaluate(program.facts[index].term, point, memo)
    except NotEvaluable as e:
        return f"not evaluable ({e})"
    want = kind == "witness"
    return "confirmed by absint's evaluator" if value is want else "evaluator disagrees: the assert is " + str(value)


def check_against_z3(name: str, program, absint: dict[str, Any], z3res, *, with_models: bool) -> dict[str, list]:
    """Unsound verdicts and the asserts absint decided where Z3 gave up."""
    from absint.lang.terms import free_vars

    unsound, gave_up = [], []
    letters = absint["letters"]
    for i, a in enumerate(letters):
        if a not in "TF":
            continue
        base = z3res.letters[i] if i < len(z3res.letters) else "x"
        z = z3res.letter(i)
        item = {"file": name, "index": i, "absint": a, "layer": absint["layers"][i], "z3": z}
        if program is not None:
            fact = program.facts[i]
            item["line"] = _line(fact)
            item["assert"] = report.assert_text(fact.term, limit=300)
        if a == "T":
            cx = z3res.extra.get(i, {}).get("cx")
            if base == "?" and not (cx is not None and cx["result"] == "unsat"):
                kind, model = "counterexample", (cx or {}).get("model")
            elif base in "ux":
                gave_up.append({**item, "why": "timeout/unknown" if base == "u" else "not reached (budget)"})
                continue
            else:
                continue
        else:
            ref = z3res.extra.get(i, {}).get("refute")
            if ref is not None and ref["result"] == "sat":
                kind, model = "witness", ref.get("model")
            elif ref is not None and ref["result"] == "unsat":
                continue
            elif ref is None and base == "x":
                gave_up.append({**item, "why": "not reached (budget)"})
                continue
            else:
                gave_up.append({**item, "why": "refutation query: " + (ref or {}).get("result", "not asked")})
                continue
        item["kind"] = kind
        if program is not None:
            item["assert"] = report.assert_text(program.facts[i].term, limit=4000)
        if model is None:
            item["note"] = ("Z3 said not implied (reference)" if z3res.source == "reference" else
                            "Z3 found a model earlier; the re-query did not reproduce it") + \
                ("" if with_models else "; install z3 for the counterexample")
        else:
            item["model"] = model
            if program is not None:
                names = [v.data for v in free_vars(program.facts[i].term)]
                item["model_of_assert"] = {n: model[n] for n in names if n in model}
                item["evaluator"] = _evaluator_check(program, i, model, kind)
        unsound.append(item)
    return {"unsound": unsound, "gave_up": gave_up}


# ---------------------------------------------------------------- one file


class Settings:
    def __init__(self, args, against: list[str], z3_ok: bool):
        from absint.compare.z3_oracle import Z3Cache, default_cache_dir, read_reference

        self.against = against
        self.timeout_ms = args.timeout_ms
        self.budget = args.budget
        self.refute_all = args.z3_refute_all
        self.reference = read_reference(args.z3_reference) if args.z3_reference else None
        self.reference_path = args.z3_reference
        self.z3_ok = z3_ok
        directory = None if args.no_cache else (args.cache_dir or default_cache_dir())
        self.cache = Z3Cache(directory if z3_ok else None)


def compare_file(path: str, settings: Settings, shapeenv: bool) -> dict[str, Any]:
    from absint.compare import z3_oracle

    name = os.path.basename(path)
    with open(path, "rb") as f:
        data = f.read()
    absint, program = run_absint(data, name)
    row: dict[str, Any] = {"file": name, "family": report.family(name), "asserts": len(absint["letters"]),
                           "absint": absint, "problems": [], "unsound": [], "gave_up": []}
    if absint["error"]:
        row["problems"].append(f"absint: {absint['error']}")
    if "z3" in settings.against:
        requests = z3_oracle.requests_for(absint["letters"])
        if settings.reference is not None:
            ref = settings.reference.get(name)
            z3res = z3_oracle.from_reference(*ref) if ref is not None else None
            if z3res is not None and settings.z3_ok and not absint["error"] and len(z3res.letters) == row["asserts"]:
                z3_oracle.complete(z3res, data, requests, timeout_ms=settings.timeout_ms)
        else:
            z3res = z3_oracle.check_file(data, timeout_ms=settings.timeout_ms, budget_s=settings.budget,
                                         refute_all=settings.refute_all, requests=requests, cache=settings.cache)
        if z3res is None:
            row["problems"].append("z3: not in the reference file")
        elif z3res.error:
            row["problems"].append(z3res.error)
        else:
            if len(z3res.letters) != row["asserts"] and not absint["error"]:
                row["problems"].append(f"assert count differs: absint read {row['asserts']}, "
                                       f"z3 read {len(z3res.letters)}")
            else:
                row.update(check_against_z3(name, program, absint, z3res, with_models=settings.z3_ok))
            row["z3"] = {"letters": z3res.final_letters(), "per_assert": z3res.seconds,
                         "seconds": z3res.total_seconds, "verify_seconds": z3res.extra_seconds,
                         "source": z3res.source}
            if not absint["error"]:
                row["asserts"] = max(row["asserts"], len(z3res.letters))
    if shapeenv:
        from absint.compare import shapeenv_oracle

        se = shapeenv_oracle.run_file(data, budget_s=settings.budget)
        if se.error:
            row["problems"].append(f"shapeenv: {se.error}")
        else:
            row["shapeenv"] = {"letters": se.letters, "per_assert": se.seconds, "seconds": se.total_seconds,
                               "translate_seconds": se.translate_seconds,
                               "positive_divisor_reading": se.positive_divisor_reading, "reasons": se.reasons}
    row["texts"] = _texts(program)
    return row


def _texts(program) -> list[tuple[int | None, str]]:
    if program is None:
        return []
    return [(_line(f), report.assert_text(f.term, limit=report.CSV_TEXT)) for f in program.facts]


# ---------------------------------------------------------------- command

WARM_UP = b"""(define-fun ceil ((x Real)) Int (ite (= (to_int x) x) (to_int x) (+ (to_int x) 1)))
(declare-const s0 Int)
(set-info :example-s0 8)
(declare-const u0 Int)
(define-fun ge () Bool (>= s0 0))
(assert ge)
(assert (= (mod s0 2) 0))
(assert (>= (div s0 2) 0))
(assert (<= (ceil (/ s0 2)) s0))
(assert (>= u0 0))
(assert (>= (+ u0 s0) 0))
"""


def warm_up(against: list[str]) -> None:
    """Run each reasoner once on a tiny program so that lazy imports and first-call set-up
    are not charged to the first file."""
    run_absint(WARM_UP, "warm-up.smt2")
    if "z3" in against:
        from absint.compare import z3_oracle

        z3_oracle.run_file(WARM_UP)
    if "shapeenv" in against:
        from absint.compare import shapeenv_oracle

        shapeenv_oracle.run_file(WARM_UP)
    # what the imports left behind (torch's is large) is not any reasoner's garbage: keep the
    # collector from scanning it again while a reasoner is being timed
    gc.collect()
    gc.freeze()



def run(args) -> int:
    from absint.readers.files import smt2_files

    against = list(dict.fromkeys(args.against or ["z3"]))
    z3_ok = True
    try:
        from absint.compare.z3_oracle import require_z3

        require_z3()
    except MissingExtra as e:
        z3_ok = False
        if "z3" in against and not args.z3_reference:
            print(f"absint compare: {e}", file=sys.stderr)
            return 2
    if "shapeenv" in against:
        try:
            from absint.compare.shapeenv_oracle import require_torch

            require_torch()
        except MissingExtra as e:
            print(f"absint compare: {e}", file=sys.stderr)
            return 2
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("absint compare: the cactus plot needs matplotlib: pip install 'absint[plot]'", file=sys.stderr)
        return 2
    files = spread_sample(smt2_files(args.paths), args.sample)
    if not files:
        print("absint compare: no .smt2 files found", file=sys.stderr)
        return 2
    settings = Settings(args, against, z3_ok)
    se_files = set(spread_sample(files, args.shapeenv_sample)) if "shapeenv" in against else set()
    os.makedirs(args.out, exist_ok=True)
    if z3_ok or "shapeenv" in against:
        warm_up([w for w in against if w != "z3" or z3_ok])
    else:
        warm_up([])
    started = time.time()
    rows = []
    with report.CsvSink(os.path.join(args.out, "asserts.csv"), against) as csv_sink, \
            report.progress(len(files), quiet=args.quiet) as advance:
        for path in files:
            row = compare_file(path, settings, path in se_files)
            csv_sink.write(row)
            row.pop("texts", None)
            rows.append(row)
            advance(os.path.basename(path))
    summary = report.summarize(rows, against, {
        "paths": args.paths, "files": len(files), "timeout_ms": args.timeout_ms, "budget_s": args.budget,
        "z3_source": f"reference {settings.reference_path}" if settings.reference is not None else "z3",
        "z3_refute_all": args.z3_refute_all, "shapeenv_files": len(se_files),
        "wall_seconds": round(time.time() - started, 3), "command": "absint compare " + " ".join(sys.argv[2:]),
    })
    report.write_json(os.path.join(args.out, "summary.json"), summary, rows)
    report.cactus(os.path.join(args.out, "cactus.png"), rows, against)
    if args.markdown:
        report.write_markdown(args.markdown, summary, rows, command=_command_line(args))
    report.print_terminal(summary, rows, show=args.show)
    print(f"wrote {args.out}/summary.json, {args.out}/asserts.csv, {args.out}/cactus.png"
          + (f", {args.markdown}" if args.markdown else ""))
    bad = summary["unsound_count"] or summary["problem_count"]
    return 1 if bad else 0


def _command_line(args) -> str:
    parts = ["absint compare", *args.paths]
    for a in args.against or ["z3"]:
        parts += ["--against", a]
    if args.z3_reference:
        parts += ["--z3-reference", args.z3_reference]
    if args.timeout_ms != 1000:
        parts += ["--timeout-ms", str(args.timeout_ms)]
    if args.sample:
        parts += ["--sample", str(args.sample)]
    if args.shapeenv_sample:
        parts += ["--shapeenv-sample", str(args.shapeenv_sample)]
    parts += ["--out", args.out, "--markdown", args.markdown]
    return " ".join(parts)
