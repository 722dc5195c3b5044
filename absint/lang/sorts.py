"""The three sorts of shape programs: Int, Real and Bool.

Singletons compared by identity; not an Enum because Enum hashing is Python-level and
sorts are part of every interning key. ``real`` is what the abstract domains read of a
sort (:class:`domains.lattice.Sort`): Int and Real are the numeric sorts.
"""

from __future__ import annotations


class Sort:
    __slots__ = ("value", "real")

    def __init__(self, value: str, real: bool):
        self.value = value
        self.real = real

    def __repr__(self) -> str:
        return self.value

    def __reduce__(self):
        return (sort_named, (self.value,))


INT, REAL, BOOL = Sort("Int", False), Sort("Real", True), Sort("Bool", False)
SORTS = {"Int": INT, "Real": REAL, "Bool": BOOL}


def sort_named(value: str) -> Sort:
    """The sort spelled ``value`` in SMT-LIB (``Int``, ``Real``, ``Bool``)."""
    return SORTS[value]
