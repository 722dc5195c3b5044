"""A ShapeEnv's knowledge as absint facts, kept in step with it; questions routed by the
entry-guard rule. Torch-free: the ShapeEnv is read by attribute name (:mod:`.reading`).

Two reasoners, because not every fact may decide every question:

* **entry** facts hold for every input that passes the compiled artifact's *entry guards*:
  the guards, the ranges of backed symbols (``produce_guards`` checks them at entry),
  replacements between backed symbols, and runtime asserts that mention only backed
  symbols. PyTorch defers a backed-only condition to a runtime assert only under
  ``prefer_deferred_runtime_asserts_over_guards`` (export: ``defer_runtime_assert`` makes it
  a guard otherwise), where that assert *is* the entry check, and PyTorch adds every
  runtime assert to ``self.axioms``, which ``_maybe_evaluate_static`` substitutes into
  every question (torch 2.13 ``symbolic_shapes.py``).
* **full** facts add what holds only once the graph runs: deferred runtime asserts that
  mention unbacked symbols (``torch._check`` on unbacked values), ranges of unbacked
  symbols and replacements that mention them.

A question whose every relation, once PyTorch's replacements are applied, mentions only
backed symbols is one whose undecided answer becomes an entry guard: it is asked of the
entry reasoner only, so absint can never drop an entry guard on the strength of a runtime
assert (under ``torch.compile`` such an assert can fold to True after PyTorch turns it into
a replacement, and then nothing would check it). Every other question is asked of the full
reasoner: left undecided it becomes a data-dependent error or a runtime assert, never an
entry guard.

Facts only accumulate. When the ShapeEnv goes back (its guards or asserts shrink or differ,
a replacement or symbol disappears, a range widens, a hint changes), both reasoners are
rebuilt from scratch: a stale fact could prove a wrong answer.
"""

from __future__ import annotations

import functools
import itertools
import operator
import time
from typing import Any, Callable, Iterator

import attrs
import sympy

from absint.api import ShapeReasoner, inputs
from absint.lang.evaluator import truth_at
from absint.lang.printer import to_smtlib
from absint.lang import terms as T
from absint.lang.terms import Term
from absint.readers.sympy_bridge import SympyToTerms, UnsupportedExpression, default_sort_of
from absint.reasoning.verdict import Truth
from absint.torch import reading
from absint.torch.counters import Stats

Emit = Callable[[dict], None]


@attrs.frozen(slots=True)
class Answer:
    """absint's answer to one question: ``truth``; ``by``: the layer that decided, or why
    not (``gap``: a class absint cannot read, ``error``, ``not-boolean``, ``contradiction``);
    ``route``: the reasoner asked (``entry`` or ``full``)."""

    truth: Truth
    by: str
    route: str
    #: an UNKNOWN the witness points showed true and false (no reasoner decides it)
    shown_open: bool = False


class _Tier:
    """One reasoner and the symbols declared into it."""

    def __init__(self) -> None:
        self.r = ShapeReasoner()
        self.declared: set = set()

    def declare(self, symbol, hint: int | None) -> None:
        if symbol in self.declared:
            return
        self.declared.add(symbol)
        try:
            self.r.declare(symbol, hint=hint)
        except ValueError:  # already met in an expression (read as unbacked): its facts still count
            pass


@attrs.define(slots=True)
class _Seen:
    """What has been synced, to add only what is new and to notice a rollback."""

    key: tuple = ()
    ranges: dict = attrs.Factory(dict)  # symbol -> (lo, hi) assumed
    range_objects: dict = attrs.Factory(dict)  # symbol -> the ValueRanges read (unchanged: nothing to do)
    hints: dict = attrs.Factory(dict)  # symbol -> int hint or None (unbacked)
    hint_objects: dict = attrs.Factory(dict)  # symbol -> the hint object read
    replacements: dict = attrs.Factory(dict)  # symbol -> expression assumed equal
    guards: list = attrs.Factory(list)  # the guard objects, in order
    #: key -> how many of its runtime asserts were read, and the last of them (two dicts in
    #: one key order: the checks compare them with the ShapeEnv's lists in C)
    assert_counts: dict = attrs.Factory(dict)
    assert_lasts: dict = attrs.Factory(dict)


class ShapeEnvBridge:
    """absint's view of one ShapeEnv-like object (see :mod:`.reading`).

    ``emit``, when given, receives every declaration, fact and rebuild as a dict (for
    :mod:`.trace`). ``stats`` (shared by an installation's bridges) counts the sympy classes
    absint could not read, in questions and in facts (a fact that cannot be read is left
    out: fewer facts, still sound), errors, rebuilds and the time spent.
    """

    def __init__(self, se: Any, emit: Emit | None = None, stats: Stats | None = None):
        self.se = se
        self.emit = emit
        self.stats = stats if stats is not None else Stats()
        self._plain = SympyToTerms()  # facts-free reading: for traces and the check at hints
        self._replaced: tuple = (None, {})  # (what it was read from, replaced unbacked symbols): _replaced_unbacked
        self._reset()

    def _reset(self) -> None:
        self.entry, self.full = _Tier(), _Tier()
        self.seen = _Seen()
        #: every fact synced so far was read (none left out as a gap or an error)
        self.facts_complete = True
        #: answers at the synced state, by expression (sympy's structural equality and
        #: cached hash, as PyTorch's own lru caches): PyTorch asks a fifth of its
        #: questions again before the next fact arrives; emptied whenever the state moves
        self.answers: dict = {}

    # ------------------------------------------------------------ sync

    def sync(self) -> None:
        """Bring both reasoners up to the ShapeEnv's current knowledge (cheap when nothing changed)."""
        t0 = time.thread_time()
        try:
            key = self._state_key()
            if key != self.seen.key or not key:
                self.answers.clear()
                if self._rolled_back():
                    self.stats.rebuilds += 1
                    self._reset()
                    self._emit({"t": "rebuild"})
                self._sync_symbols()
                self._sync_replacements()
                self._sync_guards()
                self._sync_asserts()
                self.seen.key = key
        finally:
            self.stats.sync_seconds += time.thread_time() - t0

    def _state_key(self) -> tuple:
        se = self.se
        version = getattr(se, "_version_counter", None)
        if version is None:
            return ()
        asserts = getattr(se, "num_deferred_runtime_asserts", None)
        if asserts is None:
            asserts = sum(len(v) for v in se.deferred_runtime_asserts.values())
        return (version, len(se.guards), asserts, len(se.replacements), len(se.var_to_range))

    def _rolled_back(self) -> bool:
        se, seen = self.se, self.seen
        if _shrunk(se.guards, seen.guards):
            return True
        if _asserts_taken_back(se.deferred_runtime_asserts, seen.assert_counts, seen.assert_lasts):
            return True
        if any(s not in se.replacements for s in seen.replacements):
            return True
        hints, ranges = reading.hints(se), se.var_to_range
        for s in _replaced(ranges, seen.range_objects):  # identity first, in C: most syncs find none
            now = ranges.get(s)
            if now is None or _widened(reading.integer_range(now), seen.ranges[s]):
                return True
        return any(reading.integer_value(hints.get(s)) != seen.hints[s] for s in _replaced(hints, seen.hint_objects))

    def _sync_symbols(self) -> None:
        se, seen = self.se, self.seen
        hints = reading.hints(se)
        known, ranges = seen.range_objects, se.var_to_range
        for s in list(_replaced(known, ranges)):  # new or replaced ranges only (the scan in C)
            vr = ranges[s]
            if s not in seen.hints:
                self._declare(s, hints)
            backed = s in hints
            lo, hi = reading.integer_range(vr)
            old_lo, old_hi = seen.ranges.get(s, (None, None))
            if lo is not None and lo != old_lo:
                self._fact(sympy.Ge(s, lo, evaluate=False), entry=backed)
            if hi is not None and hi != old_hi:
                self._fact(sympy.Le(s, hi, evaluate=False), entry=backed)
            seen.ranges[s] = (lo, hi)
            known[s] = vr

    def _declare(self, s, hints: dict) -> None:
        hint = reading.integer_value(hints.get(s)) if s in hints else None
        backed = s in hints
        self.seen.hints[s] = hint if backed else None
        if backed:
            self.seen.hint_objects[s] = hints[s]
        self.full.declare(s, hint)
        if backed:
            self.entry.declare(s, hint)
        if self.emit is not None:
            self._emit({"t": "symbol", "name": str(s), "sort": "Int" if s.is_integer else "Real",
                        "hint": hint, "backed": backed})
            for fact, _ in inputs.assumption_facts(s, T.var(str(s), default_sort_of(s))):  # s0 > 0 for positive s0
                self._emit({"t": "fact", "tier": "entry" if backed else "full", "smt": self._smt(fact)})

    def _sync_replacements(self) -> None:
        seen = self.seen
        for s, e in list(self.se.replacements.items()):
            if seen.replacements.get(s) is e or seen.replacements.get(s) == e:
                continue
            seen.replacements[s] = e
            self._fact(sympy.Eq(s, e, evaluate=False), entry=self._backed_only({s} | _symbols(e)))

    def _sync_guards(self) -> None:
        guards, seen = self.se.guards, self.seen.guards
        for g in guards[len(seen):]:
            seen.append(g)
            self._fact(g.expr, entry=self._backed_only(_symbols(g.expr)))

    def _sync_asserts(self) -> None:
        asserts, counts, lasts = self.se.deferred_runtime_asserts, self.seen.assert_counts, self.seen.assert_lasts
        keys = list(asserts)
        grown = itertools.compress(keys, map(operator.ne, map(len, asserts.values()),
                                             map(counts.get, keys, itertools.repeat(0))))
        for key in list(grown):  # the lists that grew (the scan in C)
            items = asserts[key]
            for ra in items[counts.get(key, 0):]:
                self._fact(ra.expr, entry=self._backed_only(_symbols(ra.expr)))
            counts[key], lasts[key] = len(items), items[-1]

    def _fact(self, expr, entry: bool) -> None:
        """Assume ``expr`` in the full reasoner, and in the entry one if it is an entry fact."""
        if expr is sympy.true or not isinstance(expr, sympy.Basic):
            return
        tiers = (self.full, self.entry) if entry else (self.full,)
        for tier in tiers:
            try:
                tier.r.assume(expr)
            except UnsupportedExpression as e:
                self.stats.fact_gaps[e.class_name] += 1
                self.facts_complete = False
                return
            except Exception as e:  # noqa: BLE001 - a fact absint cannot take is left out, never fatal
                self.stats.errors[f"fact: {type(e).__name__}"] += 1
                self.facts_complete = False
                return
        if self.emit is not None:
            self._emit({"t": "fact", "tier": "entry" if entry else "full", "smt": self._smt(expr)})

    # ------------------------------------------------------------ questions

    def route(self, expr) -> str:
        """``entry`` if some relation of ``expr`` mentions, after replacements, only backed
        symbols (left undecided, PyTorch could make it an entry guard), else ``full``."""
        for atom in _relations(expr):
            if self._backed_only(self._closure(_symbols(atom))):
                return "entry"
        return "full"

    def decide(self, expr, size_oblivious: bool = False) -> Answer:
        """absint's answer to a Boolean question about the ShapeEnv's symbols (sync first).
        ``size_oblivious``: PyTorch's meaning of that keyword when the facts alone leave it
        open (:meth:`_size_oblivious`); such an answer says ``by="size-oblivious"``."""
        if not reading.is_boolean(expr):
            return Answer(Truth.UNKNOWN, "not-boolean", "none")
        if self._ranges_moved(expr):
            self.seen.key = None  # the next sync reads everything again
            self.sync()
        answer = self.answers.get((expr, size_oblivious))
        if answer is None:
            answer = self._decide(expr) if not size_oblivious else self._size_oblivious(expr)
            self.answers[(expr, size_oblivious)] = answer
        return answer

    def keeps_unbacked(self, expr) -> bool:
        """Whether PyTorch's ``_maybe_evaluate_static(expr, unbacked_only=True)`` returns an
        expression with a symbol that is not backed, when absint can tell without sympy.

        Its callers (``evaluate_expr``, ``guard_or_defer_runtime_assert``, torch 2.13 and
        2.15) read nothing of that result but whether its free symbols are all backed; then
        ``expr`` itself, which has an unbacked symbol, leads them the same way. PyTorch's
        steps: replacements (``simplify``), ``canonicalize_bool_expr``, the axioms substituted,
        each unbacked symbol with a finite lower bound moved onto a fresh positive symbol,
        expansion, and ``bound_sympy`` over the ranges (a singleton range gives a constant).
        So this says yes only for one relation between linear sides in which, after the
        replacements, an unbacked symbol keeps a nonzero coefficient (moving it by an offset
        and expanding keeps it), and that absint, with every fact read, leaves UNKNOWN: the
        relation is then no axiom (absint proves each implication of its facts PyTorch
        stores) and the ranges do not decide it (absint's facts include them, and interval
        sums of a linear form are what ``bound_sympy`` computes)."""
        if not self.facts_complete or not isinstance(expr, sympy.core.relational.Relational):
            return False
        coefs = self._difference_coefficients(expr)
        hints = reading.hints(self.se)
        if coefs is None or all(s in hints for s, c in coefs.items() if c):
            return False
        answer = self.decide(expr)
        return answer.truth is Truth.UNKNOWN and answer.by not in UNREAD_BY

    def _difference_coefficients(self, relation) -> dict | None:
        """``linear_coefficients`` of ``lhs - rhs`` after PyTorch's replacements; each side
        read on its own first (sympy's subtraction builds and collects a new sum: about a
        quarter of this check's time, profiled), the difference built only when a side is not
        linear."""
        read = self._unbacked_replaced(relation)
        if isinstance(read, sympy.core.relational.Relational):
            left, right = linear_coefficients(read.lhs), linear_coefficients(read.rhs)
            if left is not None and right is not None:
                for s, c in right.items():
                    left[s] = left.get(s, 0) - c
                return left
        return linear_coefficients(self._unbacked_replaced(relation.lhs - relation.rhs))

    def _size_oblivious(self, expr) -> Answer:
        """PyTorch's ``size_oblivious=True`` (``_maybe_evaluate_static_worker``, torch 2.13):
        each size-like symbol of the question ranges over ``[max(2, lo), min(2**48, hi) - 1]``
        (the upper end kept when that would empty the range; unchanged when ``lo > hi``).
        Not a truth about the inputs but PyTorch's policy, so it is asked only when the
        facts alone leave the question open, under those bounds taken back at once."""
        plain = self.decide(expr)
        size_like = getattr(self.se, "size_like", ())
        if plain.truth is not Truth.UNKNOWN or plain.by in UNREAD_BY or not size_like:
            return plain
        route = self.route(expr)
        tier, read = self._tier(route), self._read(route, expr)
        bounds = [b for s in _symbols(read) if s in size_like for b in self._oblivious_bounds(s)]
        if not bounds:
            return plain
        try:
            with tier.r.tentatively():
                for b in bounds:
                    tier.r.assume(b)
                v = tier.r.decide(read)
        except Exception as e:  # noqa: BLE001 - absint failing must not break the compiler
            self.stats.errors[f"size-oblivious: {type(e).__name__}"] += 1
            return plain
        return plain if v.truth is Truth.UNKNOWN else Answer(v.truth, "size-oblivious", route)

    def _ranges_moved(self, expr) -> bool:
        """Whether a range was replaced without the ShapeEnv's version moving: export
        narrows ranges by ``shape_env.var_to_range[s] &= user_vr`` (torch 2.13
        ``_export/non_strict_utils.py``), which the state key cannot see (PyTorch's draft
        export then asked ``Eq(s97, 3)`` of a range now [3, 3]). The ranges' identities are
        compared with those synced, in C (``map``): about 10 ns a symbol, where reading the
        question's own symbols in Python cost 0.3 µs each and grew with every prefix sum."""
        seen = self.seen.range_objects
        values = self.se.var_to_range.values()
        if len(values) != len(seen):
            return True
        return any(map(operator.is_not, values, seen.values())) and \
            any(True for _ in _replaced(self.se.var_to_range, seen))

    def _oblivious_bounds(self, s) -> list:
        lo, hi = reading.integer_range(self.se.var_to_range.get(s))
        lower = 2 if lo is None else max(2, lo)
        upper = 2**48 if hi is None else min(2**48, hi)
        if upper > lower:
            upper -= 1
        if lower > upper:
            return []
        return [sympy.Ge(s, lower, evaluate=False), sympy.Le(s, upper, evaluate=False)]

    def _tier(self, route: str) -> _Tier:
        return self.entry if route == "entry" else self.full

    def _read(self, route: str, expr):
        """``expr`` as the routed reasoner reads it: an entry question with PyTorch's
        replacements of its unbacked symbols applied."""
        return self._unbacked_replaced(expr) if route == "entry" else expr

    def _decide(self, expr) -> Answer:
        route = self.route(expr)
        tier = self._tier(route)
        if tier.r.contradiction:
            self.stats.errors["contradiction"] += 1
            return Answer(Truth.UNKNOWN, "contradiction", route)
        t0 = time.thread_time()
        try:
            v = tier.r.decide(self._read(route, expr))
        except UnsupportedExpression as e:
            self.stats.gaps[e.class_name] += 1
            return Answer(Truth.UNKNOWN, "gap", route)
        except Exception as e:  # noqa: BLE001 - absint failing must not break the compiler
            self.stats.errors[f"question: {type(e).__name__}"] += 1
            return Answer(Truth.UNKNOWN, "error", route)
        finally:
            self.stats.decide_seconds += time.thread_time() - t0
        return Answer(v.truth, v.by.value, route, v.open_at is not None)

    def value_at_example(self, expr) -> bool | None:
        """``expr`` at the backed hints and the real unbacked values PyTorch knows; None
        when some symbol has no value (or the expression none there)."""
        try:
            t = self._plain(expr)
        except Exception:  # noqa: BLE001
            return None
        point = {}
        for s, v in list(reading.hints(self.se).items()) + list(reading.unbacked_values(self.se).items()):
            iv = reading.integer_value(v)
            if iv is not None:
                point[str(s)] = iv
        return truth_at(t, point)

    def smt(self, expr) -> str | None:
        """``expr`` as SMT-LIB text (read without facts), or None when absint cannot read it."""
        return self._smt(expr)

    # ------------------------------------------------------------ helpers

    def _backed_only(self, symbols) -> bool:
        hints = reading.hints(self.se)
        return all(s in hints for s in symbols)

    def _unbacked_replaced(self, expr, rounds: int = 8):
        """``expr`` with PyTorch's replacements of unbacked symbols applied (PyTorch's own
        ``simplify`` applies them before it evaluates): an entry question that mentions
        ``u1`` where ``u1 -> s86`` is the question about ``s86`` that the entry facts may
        decide (the replacement itself, mentioning ``u1``, is a full fact only)."""
        replaced = self._replaced_unbacked()
        for _ in range(rounds if replaced else 0):
            symbols = _symbols(expr)
            if len(replaced) < len(symbols):
                sub = {s: e for s, e in replaced.items() if s in symbols}
            else:
                sub = {s: replaced[s] for s in symbols if s in replaced}
            if not sub:
                break
            expr = expr.xreplace(sub)
        return expr

    def _replaced_unbacked(self) -> dict:
        """PyTorch's replacements of symbols that are not backed (symbol -> expression), read
        once per state of the ShapeEnv: a question's symbols are then looked up among the few
        replaced ones, not each in three sympy-hashed dicts (0.27 ms a question at 256
        features, profiled). Kept while the replacements' keys and values are the same
        objects (compared in C) and no symbol was added: PyTorch writes some replacements
        without moving its version counter."""
        repl, hints = self.se.replacements, reading.hints(self.se)
        key = (list(repl), list(repl.values()), len(hints))
        if key != self._replaced[0]:
            self._replaced = (key, {s: e for s, e in repl.items() if s not in hints and e != s})
        return self._replaced[1]

    def _closure(self, symbols: frozenset) -> frozenset | set:
        """The symbols left once PyTorch's replacements are applied (transitively). When none of
        them is replaced that is ``symbols`` itself, found by looking the (fewer) replaced
        symbols up in it: routing a prefix sum over 256 lengths then costs about a
        microsecond, where the loop below (a sympy hash and ``==`` per symbol) took 60."""
        repl = self.se.replacements
        if len(repl) < len(symbols) and not any(s in symbols for s in repl):
            return symbols
        return _closure_loop(repl, symbols)

    def _smt(self, expr) -> str | None:
        try:
            t: Term = self._plain(expr)
        except Exception:  # noqa: BLE001
            return None
        return to_smtlib(t)

    def _emit(self, event: dict) -> None:
        if self.emit is not None:
            self.emit(event)


#: an Answer's ``by`` when absint did not read the question completely
UNREAD_BY = frozenset({"gap", "error", "not-boolean", "contradiction"})


def _closure_loop(repl: dict, symbols) -> set:
    """:meth:`ShapeEnvBridge._closure` one symbol at a time, each replaced one followed."""
    out, todo, done = set(), list(symbols), set()
    while todo:
        s = todo.pop()
        if s in done:
            continue
        done.add(s)
        e = repl.get(s)
        if e is None or e == s:
            out.add(s)
        else:
            todo.extend(_symbols(e))
    return out


def _symbols(expr) -> frozenset:
    """``expr``'s free symbols. sympy walks the whole tree for them on every call; PyTorch
    asks about the same expressions again and again (and a question reads them about twice:
    10,206 reads for 4,845 questions in the jagged export at 256 lengths), so they are kept
    by expression, as PyTorch's own lru caches keep answers."""
    try:
        return _free_symbols(expr)
    except TypeError:  # unhashable: not a sympy expression
        return frozenset(getattr(expr, "free_symbols", ()))


@functools.lru_cache(maxsize=1 << 16)
def _free_symbols(expr) -> frozenset:
    return frozenset(getattr(expr, "free_symbols", ()))


def linear_coefficients(expr) -> dict | None:
    """``{symbol: coefficient}`` of a sum of integer multiples of symbols and an integer
    (sympy keeps such a sum collected: one term per symbol), or None for anything else."""
    terms = expr.args if isinstance(expr, sympy.Add) else (expr,)
    out: dict = {}
    for t in terms:
        if isinstance(t, sympy.Integer):
            continue
        if isinstance(t, sympy.Symbol):
            out[t] = out.get(t, 0) + 1
        elif isinstance(t, sympy.Mul) and len(t.args) == 2 and isinstance(t.args[0], sympy.Integer) \
                and isinstance(t.args[1], sympy.Symbol):
            out[t.args[1]] = out.get(t.args[1], 0) + int(t.args[0])
        else:
            return None
    return out


def _relations(expr) -> list:
    """The leaves of a Boolean combination (relations, Boolean symbols, true/false)."""
    out, todo = [], [expr]
    while todo:
        e = todo.pop()
        if isinstance(e, (sympy.And, sympy.Or, sympy.Not, sympy.Implies, sympy.Xor, sympy.Equivalent)):
            todo.extend(e.args)
        else:
            out.append(e)
    return out


def _replaced(now: dict, seen: dict) -> Iterator:
    """The keys of ``seen`` whose value in ``now`` is not the very object seen (missing
    included). The comparison runs in C (``map``, ``compress``): a sync after each of a
    program's facts then costs microseconds per thousand symbols, not a Python loop."""
    keys = list(seen)
    return itertools.compress(keys, map(operator.is_not, map(now.get, keys), seen.values()))


def _asserts_taken_back(asserts: dict, counts: dict, lasts: dict) -> bool:
    """Whether a list of runtime asserts we read has lost one, or holds another object
    where we read the last one (compared in C, list by list)."""
    keys = list(counts)
    now = list(map(asserts.get, keys))
    if any(map(operator.is_, now, itertools.repeat(None))):
        return True
    if any(map(operator.lt, map(len, now), counts.values())):
        return True
    at_last = map(operator.getitem, now, map(operator.sub, counts.values(), itertools.repeat(1)))
    return any(map(operator.is_not, at_last, lasts.values()))


def _shrunk(now, seen: list) -> bool:
    """Whether a list we saw grow has shrunk or changed under what we saw."""
    n = len(seen)
    return len(now) < n or (n > 0 and now[n - 1] is not seen[-1])


def _widened(now: tuple, before: tuple) -> bool:
    (lo, hi), (old_lo, old_hi) = now, before
    return (old_lo is not None and (lo is None or lo < old_lo)) or \
        (old_hi is not None and (hi is None or hi > old_hi))
