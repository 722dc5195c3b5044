"""Z3 as the tests' exact oracle for implications between terms (SMT-LIB semantics:
``x div 0`` and ``x mod 0`` are unconstrained)."""

from __future__ import annotations

import pytest

from absint.lang import terms as T
from absint.lang.printer import to_smtlib
from benchmarks.generators import PRELUDE_TEXT  # min2, max2, ceil as the corpus defines them


def z3_implies(facts, guard, timeout_ms: int = 5000) -> bool:
    """Whether ``facts`` imply ``guard`` for all integers; Z3 must answer (skipped without z3)."""
    names = sorted({v.data for t in [*facts, guard] for v in T.free_vars(t)})
    text = PRELUDE_TEXT + "".join(f"(declare-const {n} Int)\n" for n in names)
    text += "".join(f"(assert {to_smtlib(f)})\n" for f in facts)
    text += f"(assert (not {to_smtlib(guard)}))\n"
    return z3_unsat(text, timeout_ms)


def z3_unsat(text: str, timeout_ms: int = 5000) -> bool:
    """Whether the SMT-LIB ``text`` is unsatisfiable; Z3 must answer (skipped without z3)."""
    z3 = pytest.importorskip("z3")
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.add(z3.parse_smt2_string(text))
    r = solver.check()
    assert r != z3.unknown, "Z3 gave no answer: the test needs a smaller case"
    return r == z3.unsat
