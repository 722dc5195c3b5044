"""The sympy round trip as a rewrite: each assert read into a term, written as sympy and read
back (:mod:`absint.readers.sympy_bridge`, both ways), then printed as SMT-LIB.

This is the path a compiler's expressions take into absint (ShapeEnv's sympy), so a program
must mean the same, and get the same verdicts, after it. The new text keeps the program's
declarations, example values and functions; its named constants are gone (a named sum is
printed as its definition), and the prelude's ``ceil``/``min2``/``max2``, which the printer
spells, are defined when the program did not define them.

A division or remainder whose divisor is not a non-zero number goes to sympy as absint's own
``EuclidDiv``/``EuclidMod``/``RealDiv`` (:mod:`absint.readers.sympy_divisions`) and comes back
as the same division: sympy's ``floor(a/y)`` would cancel ``y/y`` to 1 (SMT-LIB leaves it free
at ``y = 0``) and come back as a real quotient under ``to_int``.
"""

from __future__ import annotations

import sympy

from absint.lang.printer import to_smtlib
from absint.lang.program import Program
from absint.lang.terms import INT, REAL, fresh_table
from absint.metamorphic.scope import is_definition, unquoted
from absint.metamorphic.sexpr import SExpr, parse, render_program
from absint.readers.smtlib import parse as read_program
from absint.readers.sympy_bridge import SympyToTerms, TermsToSympy, default_sort_of

#: the functions the printer spells that SMT-LIB does not have, as the corpus defines them
PRELUDE = {
    "ceil": "(define-fun ceil ((x Real)) Int (ite (= (to_int x) x) (to_int x) (+ (to_int x) 1)))",
    "min2": "(define-fun min2 ((x Int) (y Int)) Int (ite (< x y) x y))",
    "max2": "(define-fun max2 ((x Int) (y Int)) Int (ite (> x y) x y))",
}


def round_trip(commands: list[SExpr], max_tokens: int = 0) -> list[SExpr]:
    """The program with every assert replaced by its sympy round trip; terms are built in a
    table of their own (:func:`~absint.lang.terms.fresh_table`), freed when done."""
    with fresh_table():
        program = read_program(render_program(commands), "sympy-round-trip")
        asserts = iter(_through_sympy(program))
        functions = {unquoted(c[1]) for c in commands
                     if isinstance(c, tuple) and len(c) > 2 and c[0] == "define-fun" and c[2] != ()}
        out: list[SExpr] = [parse(text)[0] for name, text in PRELUDE.items() if name not in functions]
        for c in commands:
            if is_definition(c):
                continue
            out.append(("assert", next(asserts)) if isinstance(c, tuple) and c[:1] == ("assert",) else c)
        return out


def _through_sympy(program: Program) -> list[SExpr]:
    """Each assert's term to sympy and back, printed and read as an S-expression."""
    sorts = {s.name: s.sort for s in program.symbols}
    forth = TermsToSympy({s.name: _symbol(s.name, s.sort) for s in program.symbols})
    back = SympyToTerms(lambda sym: sorts.get(sym.name, default_sort_of(sym)))
    out = []
    for fact in program.facts:
        term = back.boolean(forth(fact.term))
        out.append(parse(to_smtlib(term))[0])
    return out


def _symbol(name: str, sort) -> sympy.Symbol:
    """The symbol the bridge reads back with ``sort`` (Int: ``integer=True``, as PyTorch's sizes)."""
    if sort is INT:
        return sympy.Symbol(name, integer=True)
    return sympy.Symbol(name, real=True) if sort is REAL else sympy.Symbol(name)
