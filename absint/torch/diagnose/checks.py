"""The checks that decide one question, written as lines to paste in the user's frame.

Candidates come from :func:`absint.missing.missing` over the question (the question itself
first: exactly what PyTorch asks) and from a pool of checks found at earlier questions of
the same trace (one fact may decide many questions: the cover prefers it). Each is true at
the example (the missing search checks it) and decides the question with what the
ShapeEnv knows at that moment (absint's reasoner, tentatively). Each is also put to
PyTorch's own static evaluation with the check as one more axiom (and, for a bound on one
symbol, its narrowed range): ``pytorch`` says whether PyTorch alone would then decide it,
as it will have to when the user exports without absint.
"""

from __future__ import annotations

import re
import time

import attrs
import sympy

from absint.lang import terms as T
from absint.lang.evaluator import truth_at
from absint.lang.kinds import AND, LE
from absint.missing import Candidate, Search, missing
from absint.torch import reading
from absint.torch.bridge import linear_coefficients
from absint.torch.diagnose import frames
from absint.torch.diagnose.model import Check
from absint.torch.diagnose.pytext import Names, conjuncts, python_text
from absint.torch.diagnose.source import Statement

#: checks kept from earlier questions of a trace and tried on each later one
POOL_SIZE = 24
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


@attrs.frozen(slots=True)
class Where:
    """Where a check is pasted: before ``stmt`` of ``file``; ``clause``: a comprehension's
    ``(target, iterable, targets)`` when the question came from inside one."""

    file: str
    stmt: Statement
    clause: tuple | None = None


@attrs.frozen(slots=True)
class QuestionChecks:
    text: str | None
    checks: tuple[Check, ...]


def for_question(bridge, pool: dict, fact, frame, where: Where | None, read, seconds: float) -> QuestionChecks:
    """The question ``fact`` (the way the example went) in the frame's names, and its checks."""
    bridge.sync()
    r = bridge.full.r
    names = frames.names_of(frame, where.stmt.names if where else frozenset(), read) if frame else Names()
    if frame is not None:
        frames.add_sources(names, frame, bridge.se, read)
    try:
        goal = r.term(fact)
    except Exception:  # noqa: BLE001 - a class absint does not read: no checks
        return QuestionChecks(None, ())
    text = python_text(goal, names)
    point = _point(bridge.se)
    seen = pool.setdefault("texts", set())
    candidates = [Candidate((goal,), "question")]
    if (where, text) not in seen or text is None:  # a loop's later passes reuse the first one's search
        seen.add((where, text))
        found = missing(r.reasoner, goal, point, families=[m for _, _, m in names.families],
                        include_goal=True, prune=False, seconds=seconds)
        candidates = found or candidates
    pairs = [(c, _check(c, names, where, bridge, fact)) for c in candidates]
    pairs += _from_pool(pool, {k.key for _, k in pairs}, Search(r.reasoner, goal, point, time.process_time() + 1.0),
                        bridge, fact, names, where)
    _remember(pool, pairs)
    return QuestionChecks(text, _first_by_key(k for _, k in pairs))


def _first_by_key(checks) -> tuple[Check, ...]:
    out: dict = {}
    for k in checks:
        out.setdefault(k.key, k)
    return tuple(out.values())


def _point(se) -> dict:
    point = {}
    for s, v in list(reading.hints(se).items()) + list(reading.unbacked_values(se).items()):
        iv = reading.integer_value(v)
        if iv is not None:
            point[str(s)] = iv
    return point


def _remember(pool: dict, pairs: list[tuple[Candidate, Check]]) -> None:
    facts = pool.setdefault("facts", {})
    for c, check in pairs:
        if c.kind != "question" and check.pasteable and check.key not in facts and len(facts) < POOL_SIZE:
            facts[check.key] = (c, check)


def _from_pool(pool: dict, have: set, search: Search, bridge, fact, names: Names, where) -> list[tuple]:
    """Facts of earlier questions (and the ``seeds`` a pipeline hands over from an earlier
    run) that decide this question too: each pasted where it was found, and written here."""
    out = []
    known = [(c, check) for c, check in pool.get("facts", {}).values()] + [(c, None) for c in pool.get("seeds", ())]
    for c, check in known:
        if search.late() or truth_at(c.fact, search.point) is not True or not search.decides(c.facts):
            continue
        pytorch = pytorch_decides(bridge, fact, c)
        if check is not None and check.key not in have:
            out.append((c, attrs.evolve(check, pytorch=pytorch)))
            have.add(check.key)
        here = _check(c, names, where, bridge, fact)
        if here.pasteable and here.key not in have:
            out.append((c, here))
            have.add(here.key)
    return out


def _check(c: Candidate, names: Names, where: Where | None, bridge, fact) -> Check:
    statement = statement_for(c, names, where)
    shown = " and ".join(python_text(f, names) or _plain(f) for f in _facts(c))
    key = f"{where.file}:{where.stmt.line}:{statement}" if statement is not None and where else f"sympy:{shown}"
    return Check(key, where.file if where else None, where.stmt.line if where else None,
                 where.stmt.indent if where else 0, statement, shown, c.kind, pytorch_decides(bridge, fact, c))


def _facts(c: Candidate) -> list:
    return [g for f in c.facts for g in conjuncts(f)]


def _plain(t) -> str:
    from absint.lang.printer import brief_infix

    return brief_infix(t, 200)


def statement_for(c: Candidate, names: Names, where: Where | None) -> str | None:
    """The lines to paste (``torch._check(...)``, a family's as one ``for`` line), or None
    when some part has no name in the frame or the frame's place is unknown."""
    if where is None:
        return None
    lines = []
    for f in c.facts:
        loop = _family_loop(f, names)
        if loop is not None:
            lines.append(loop)
            continue
        for g in conjuncts(f):
            text = python_text(g, names)
            if text is None:
                return None
            lines.append(f"torch._check({text})")
    return _in_comprehension(lines, names, where)


def _family_loop(f, names: Names) -> str | None:
    """``m >= k`` for every member of a family, as ``for _x in ls: torch._check(_x >= k)``."""
    if f.kind != AND:
        return None
    bounds = {}
    for g in f.args:
        coefs, c = T.linear_parts(g.args[0]) if g.kind == LE else ({}, 0)
        if len(coefs) != 1 or list(coefs.values()) != [-1]:
            return None
        bounds[next(iter(coefs)).id] = c  # -m + k <= 0: m >= k
    for _, text, members in names.families:
        if {m.id for m in members} == set(bounds) and len(set(bounds.values())) == 1:
            return f"for _x in {text}: torch._check(_x >= {next(iter(bounds.values()))})"
    return None


def _in_comprehension(lines: list[str], names: Names, where: Where) -> str | None:
    """Lines that use a comprehension's own variables run under its ``for`` clause; other
    names local to the comprehension cannot be pasted outside it."""
    if not names.loop_names:
        return "\n".join(lines)
    used = {w for line in lines for w in _IDENTIFIER.findall(line)} & names.loop_names
    if not used:
        return "\n".join(lines)
    if where.clause is None or not used <= where.clause[2] or names.shadowing:
        return None
    target, iterable, _ = where.clause
    return "\n".join(f"for {target} in {iterable}: {line}" for line in lines)


def pytorch_decides(bridge, fact, c: Candidate) -> bool:
    """Whether PyTorch's own ``_maybe_evaluate_static`` decides ``fact`` once the check's
    facts are axioms (the runtime asserts and guards so far are too), a bound on one
    symbol also narrowing its range, as ``torch._check`` would."""
    se = bridge.se
    try:
        new = [fact] if c.kind == "question" else [bridge.full.r.to_sympy(g) for g in _facts(c)]
        known = [ra.expr for ras in se.deferred_runtime_asserts.values() for ra in ras] + [g.expr for g in se.guards]
        answer = se._maybe_evaluate_static(fact, axioms=tuple(known + new), var_to_range=_ranges(se, new))
    except Exception:  # noqa: BLE001 - PyTorch could not evaluate it: it does not decide
        return False
    return answer is sympy.true


def _ranges(se, facts) -> tuple | None:
    """The ShapeEnv's ranges with those the one-symbol bounds ``s <= k`` / ``s >= k`` among
    ``facts`` narrow (as ``torch._check`` narrows them), or None when none does."""
    from torch.utils._sympy.numbers import int_oo
    from torch.utils._sympy.value_ranges import ValueRanges

    ranges = dict(se.var_to_range)
    moved = False
    for f in facts:
        if not isinstance(f, (sympy.LessThan, sympy.GreaterThan)) or len(f.free_symbols) != 1:
            continue
        difference = sympy.expand(f.lhs - f.rhs)
        coefs = linear_coefficients(difference)
        if not coefs or len(coefs) != 1:
            continue
        (s, a), = coefs.items()
        bound = sympy.Rational(-difference.subs(s, 0), a)  # a*s + c <op> 0: s <op'> -c/a
        upper = isinstance(f, sympy.LessThan) == (a > 0)
        narrowed = ValueRanges(-int_oo, sympy.floor(bound)) if upper else ValueRanges(sympy.ceiling(bound), int_oo)
        if s in ranges:
            ranges[s] = ranges[s] & narrowed
            moved = True
    return tuple(ranges.items()) if moved else None
