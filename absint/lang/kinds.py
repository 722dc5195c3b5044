"""The kinds of term, as values: one :class:`Kind` member per row of the operator table.

A member is its text (``Kind.DIV == "div"``, and the two hash alike), so the SMT-LIB
reader, JSON and the domains' tables keyed by text keep working; code compares kinds
with the members, never with string literals, so a misspelt kind is a ``NameError``
rather than a comparison that is silently never true.

Compare through the module-level aliases (``from absint.lang.kinds import DIV, MOD`` and
``t.kind == DIV``): in CPython 3.11 reading ``Kind.DIV`` (an attribute of an Enum class)
costs about 0.25 µs and a module global about 0.05 µs, and these comparisons are in the
reasoner's hot path. Use ``==``, not ``is``: a stray plain string then still matches.

This module imports nothing from absint, so :mod:`absint.lang.ops` and
:mod:`absint.lang.terms` can both import it.
"""

from __future__ import annotations

import enum


class Kind(enum.StrEnum):
    """A kind of term (see :data:`absint.lang.ops.OPS` for what each one is)."""

    __hash__ = str.__hash__  # a member and its text are one dict/set key

    CONST = "const"
    VAR = "var"
    LIN = "lin"
    MUL = "mul"
    DIV = "div"
    MOD = "mod"
    RDIV = "rdiv"
    POW = "pow"
    TO_INT = "to_int"
    CEIL = "ceil"
    TO_REAL = "to_real"
    MIN = "min"
    MAX = "max"
    FN = "fn"
    DEF = "def"
    ITE = "ite"
    LE = "le"
    LT = "lt"
    EQ = "eq"
    NE = "ne"
    DISTINCT = "distinct"
    NOT = "not"
    AND = "and"
    OR = "or"


CONST = Kind.CONST
VAR = Kind.VAR
LIN = Kind.LIN
MUL = Kind.MUL
DIV = Kind.DIV
MOD = Kind.MOD
RDIV = Kind.RDIV
POW = Kind.POW
TO_INT = Kind.TO_INT
CEIL = Kind.CEIL
TO_REAL = Kind.TO_REAL
MIN = Kind.MIN
MAX = Kind.MAX
FN = Kind.FN
DEF = Kind.DEF
ITE = Kind.ITE
LE = Kind.LE
LT = Kind.LT
EQ = Kind.EQ
NE = Kind.NE
DISTINCT = Kind.DISTINCT
NOT = Kind.NOT
AND = Kind.AND
OR = Kind.OR

__all__ = ["Kind", *Kind.__members__]
