"""The Z3 protocol on one file: Z3's letters, CPU seconds and, on request, models.

Z3 reads the *original* file text itself (``z3.parse_smt2_string`` accepts the
corpus dialect: ``-1`` literals, the prelude macros, a 0-ary ``define-fun``
named like a macro), so a bug in absint's reader or normaliser shows up as a
disagreement instead of being shared by both sides.

The protocol is the one of ``../shared/reference/z3_dev.txt``: one incremental
solver per file; assert ``i`` (file order) is checked against asserts ``0..i-1``
by ``push; add (not a_i); check; pop`` with a per-query timeout, then added.
Letters: ``T`` implied (unsat), ``?`` not implied (sat), ``u`` Z3 gave up
(unknown: timeout or incompleteness), ``x`` not reached (the file's CPU budget
was spent). ``F`` (refuted: ``facts and a_i`` unsat) is asked only where needed
(see :data:`Requests`) or, with ``refute_all``, for every assert not implied.

Besides the letters, :func:`run_file` answers *requests* that turn a
disagreement into evidence: ``cx`` — a model of ``facts and not a_i`` (a
counterexample to a claimed ``T``) — and ``refute`` — the query ``facts and a_i``
with a model when sat (a witness against a claimed ``F``). Their CPU time is
kept apart from Z3's own (it is verification work, not part of the protocol).
:func:`complete` answers the requests a stored result (cache, reference file) lacks.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Mapping, Sequence

from absint.compare.oracle import MissingExtra

PROTOCOL = "prefix-implication/1"
INSTALL_HINT = "Z3 comparison needs z3: pip install 'absint[z3]' (z3-solver)"

#: requests per assert index: "cx" (model of facts and not a_i) and/or "refute" (facts and a_i)
Requests = Mapping[int, frozenset[str] | set[str]]

_DECLARE = re.compile(r"\(\s*declare-(?:const|fun)\s+(\|[^|]*\||[^\s()]+)\s+(?:\(\s*\)\s*)?(Int|Real|Bool)\s*\)")


def require_z3():
    try:
        import z3
    except ImportError:
        raise MissingExtra(INSTALL_HINT) from None
    return z3


def z3_version() -> str:
    return require_z3().get_version_string()


def declared_symbols(text: str) -> list[tuple[str, str]]:
    """``(name, sort)`` of every ``declare-const`` in file order (quotes removed)."""
    out = []
    for m in _DECLARE.finditer(text):
        name = m.group(1)
        out.append((name[1:-1] if name.startswith("|") else name, m.group(2)))
    return out


# ---------------------------------------------------------------- results


@dataclass
class Z3FileResult:
    letters: str = ""
    seconds: list[float] = field(default_factory=list)  # per assert; parse time spread evenly
    parse_seconds: float = 0.0
    total_seconds: float = 0.0
    #: index -> {"cx": {...}, "refute": {...}}; each {"result": sat|unsat|unknown, "model": {...}?}
    extra: dict[int, dict[str, dict[str, Any]]] = field(default_factory=dict)
    extra_seconds: float = 0.0  # CPU spent on requests (not part of total_seconds)
    error: str | None = None
    source: str = "z3"  # "z3" (run now), "cache", or "reference"

    def letter(self, i: int) -> str:
        """The verdict on assert ``i``, refutations included."""
        base = self.letters[i] if i < len(self.letters) else "x"
        extra = self.extra.get(i, {})
        r = extra.get("refute")
        if r is not None and r["result"] == "unsat" and base in "?u":
            return "F"
        cx = extra.get("cx")
        if cx is not None and cx["result"] == "unsat" and base == "?":
            return "T"  # a reference '?' that a real Z3 run now proves
        return base

    def final_letters(self) -> str:
        return "".join(self.letter(i) for i in range(len(self.letters)))

    def model(self, i: int, kind: str) -> dict[str, Any] | None:
        return self.extra.get(i, {}).get(kind, {}).get("model")

    def to_json(self) -> dict[str, Any]:
        return {
            "letters": self.letters,
            "seconds": [round(s, 6) for s in self.seconds],
            "parse_seconds": round(self.parse_seconds, 6),
            "total_seconds": round(self.total_seconds, 6),
            "extra": {str(i): v for i, v in self.extra.items()},
            "error": self.error,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any], source: str = "cache") -> "Z3FileResult":
        return cls(
            letters=d["letters"],
            seconds=list(d["seconds"]),
            parse_seconds=d["parse_seconds"],
            total_seconds=d["total_seconds"],
            extra={int(i): dict(v) for i, v in d.get("extra", {}).items()},
            error=d.get("error"),
            source=source,
        )


def model_value(v) -> Any:
    """A Z3 value as JSON: int, bool, or ``"p/q"`` for a rational."""
    z3 = require_z3()
    if z3.is_int_value(v):
        return v.as_long()
    if z3.is_rational_value(v):
        f = Fraction(v.numerator_as_long(), v.denominator_as_long())
        return f.numerator if f.denominator == 1 else f"{f.numerator}/{f.denominator}"
    if z3.is_true(v):
        return True
    if z3.is_false(v):
        return False
    return str(v)  # an algebraic number: shown, not evaluated


def as_value(v: Any) -> int | Fraction | bool:
    """Inverse of :func:`model_value` for the evaluator (strings become Fractions)."""
    if isinstance(v, str):
        return Fraction(v)
    return v


class _File:
    """One file parsed by Z3 in its own context (freed with the object)."""

    def __init__(self, text: str):
        z3 = require_z3()
        self.z3 = z3
        self.ctx = z3.Context()
        self.asserts = list(z3.parse_smt2_string(text, ctx=self.ctx))
        sorts = {"Int": z3.IntSort(self.ctx), "Real": z3.RealSort(self.ctx), "Bool": z3.BoolSort(self.ctx)}
        self.symbols = [(n, z3.Const(n, sorts[s])) for n, s in declared_symbols(text)]

    def parsed(self, facts: Sequence[str]) -> list:
        """Bool facts in SMT-LIB (``(>= x_size0 2)``) over the file's declared symbols, read in
        its context: what a caller assumes ahead of the file's asserts (a preset's facts)."""
        if not facts:
            return []
        decls = {n: c for n, c in self.symbols}
        return list(self.z3.parse_smt2_string("".join(f"(assert {t})" for t in facts), decls=decls, ctx=self.ctx))

    def solver(self, timeout_ms: int):
        s = self.z3.Solver(ctx=self.ctx)
        s.set("timeout", int(timeout_ms))
        return s

    def model(self, solver) -> dict[str, Any]:
        m = solver.model()
        return {n: model_value(m.eval(c, model_completion=True)) for n, c in self.symbols}

    def ask(self, solver, goal, want_model: bool) -> dict[str, Any]:
        """``check(facts and goal)`` in a push/pop scope."""
        z3 = self.z3
        solver.push()
        try:
            solver.add(goal)
            r = solver.check()
            out: dict[str, Any] = {"result": str(r)}
            if r == z3.sat and want_model:
                out["model"] = self.model(solver)
            elif r == z3.unknown:
                out["reason"] = solver.reason_unknown()
            return out
        finally:
            solver.pop()


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def run_file(data: bytes, *, timeout_ms: int = 1000, budget_s: float = 300.0, refute_all: bool = False,
             requests: Requests | None = None, assumed: Sequence[str] = ()) -> Z3FileResult:
    """The protocol on one file's bytes (no cache). ``requests`` are answered on the way;
    ``assumed``: Bool facts in SMT-LIB over the file's symbols, asserted before its first
    assert (a preset's facts: the letters are then relative to them)."""
    requests = requests or {}
    start = time.process_time()
    try:
        f = _File(_decode(data))
        ahead = f.parsed(assumed)
    except Exception as e:  # z3.Z3Exception: Z3 could not read the file
        return Z3FileResult(error=f"z3 cannot parse: {e}", parse_seconds=time.process_time() - start,
                            total_seconds=time.process_time() - start)
    z3 = f.z3
    parse = time.process_time() - start
    s = f.solver(timeout_ms)
    s.add(*ahead)
    letters, seconds, extra = [], [], {}
    extra_cpu = 0.0
    n = len(f.asserts)
    for i, a in enumerate(f.asserts):
        t0 = time.process_time()
        if t0 - start > budget_s:
            letters.extend("x" * (n - i))
            seconds.extend([0.0] * (n - i))
            break
        want = requests.get(i, ())
        impl = f.ask(s, z3.Not(a), "cx" in want)
        r = impl["result"]
        letter = "T" if r == "unsat" else "?" if r == "sat" else "u"
        if refute_all and letter != "T":
            ref = f.ask(s, a, "refute" in want)
            extra.setdefault(i, {})["refute"] = ref
        t1 = time.process_time()
        if "cx" in want and r == "sat":
            extra.setdefault(i, {})["cx"] = impl
        if "refute" in want and "refute" not in extra.get(i, {}):
            extra.setdefault(i, {})["refute"] = f.ask(s, a, True)
        t2 = time.process_time()
        s.add(a)
        t3 = time.process_time()
        extra_cpu += t2 - t1
        letters.append(letter)
        seconds.append((t1 - t0) + (t3 - t2))
    total = time.process_time() - start - extra_cpu
    if n:
        seconds = [x + parse / n for x in seconds]
    return Z3FileResult("".join(letters), seconds, parse, total, extra, extra_cpu)


def answer_requests(data: bytes, requests: Requests, *, timeout_ms: int = 1000) -> tuple[dict, float]:
    """Only the requested queries (a solver built up to each index); returns (extra, CPU seconds)."""
    start = time.process_time()
    f = _File(_decode(data))
    z3 = f.z3
    s = f.solver(timeout_ms)
    extra: dict[int, dict[str, Any]] = {}
    last = max(requests, default=-1)
    for i, a in enumerate(f.asserts):
        if i > last:
            break
        want = requests.get(i, ())
        if "cx" in want:
            extra.setdefault(i, {})["cx"] = f.ask(s, z3.Not(a), True)
        if "refute" in want:
            extra.setdefault(i, {})["refute"] = f.ask(s, a, True)
        s.add(a)
    return extra, time.process_time() - start


def _missing(result: Z3FileResult, requests: Requests) -> dict[int, set[str]]:
    """Requests a cached result has not answered yet and that still mean something:
    a counterexample exists only where Z3 said ``?``; nothing is asked past the budget."""
    out: dict[int, set[str]] = {}
    for i, kinds in requests.items():
        have = result.extra.get(i, {})
        letter = result.letters[i] if i < len(result.letters) else "x"
        todo = {k for k in kinds if k not in have and (letter == "?" if k == "cx" else letter in "T?u")}
        if todo:
            out[i] = todo
    return out


def complete(result: Z3FileResult, data: bytes, requests: Requests, *, timeout_ms: int = 1000) -> bool:
    """Answer the requests ``result`` (cached or from the reference file) still lacks, with a
    real Z3 run of only those queries; True if anything was added."""
    todo = _missing(result, requests)
    if not todo or result.error is not None:
        return False
    extra, cpu = answer_requests(data, todo, timeout_ms=timeout_ms)
    for i, v in extra.items():
        result.extra.setdefault(i, {}).update(v)
    result.extra_seconds += cpu
    return True


def requests_for(absint_letters: str) -> dict[int, set[str]]:
    """What Z3 must answer to check absint's verdicts: a counterexample for each ``T``
    (taken only where Z3's implication query is sat), a refutation query for each ``F``."""
    out: dict[int, set[str]] = {}
    for i, a in enumerate(absint_letters):
        if a == "T":
            out[i] = {"cx"}
        elif a == "F":
            out[i] = {"refute"}
    return out
