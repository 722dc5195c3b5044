"""Every registered value domain (``domains.VALUE_DOMAINS``) has the shared lattice laws run
on it for Int and Real (a ``LatticeLaws`` subclass per sort), and builds a working reasoner."""

from __future__ import annotations

import ast

import domains
from absint.lang import terms as T
from absint.reasoning.reasoner import Reasoner
from absint.reasoning.verdict import Truth
from repo_paths import TESTS


def law_classes(sources: dict[str, str]) -> dict[str, set[str]]:
    """``domain`` name -> the sorts (``INT``, ``REAL``) of the LatticeLaws subclasses
    that set it, over the given test sources (path -> text)."""
    out: dict[str, set[str]] = {}
    for text in sources.values():
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.ClassDef) or "LatticeLaws" not in {getattr(b, "id", None) for b in node.bases}:
                continue
            fields = {t.id: v for s in node.body if isinstance(s, ast.Assign) for t in s.targets
                      if isinstance(t, ast.Name) for v in [s.value]}
            if "domain" in fields and "sort" in fields:
                out.setdefault(ast.unparse(fields["domain"]), set()).add(ast.unparse(fields["sort"]).split(".")[-1])
    return out


def _registered_names() -> dict[str, str]:
    """Registry name -> the name its adapter object has in its module (INTERVAL, IC, ...)."""
    out = {}
    for name, obj in domains.VALUE_DOMAINS.items():
        module = __import__(type(obj).__module__, fromlist=["_"])
        out[name] = next(k for k, v in vars(module).items() if v is obj and k.isupper())
    return out


def test_every_registered_domain_has_the_laws_for_both_sorts():
    sources = {str(p): p.read_text() for p in TESTS.rglob("test_*.py")}
    covered = law_classes(sources)
    assert {name: covered.get(obj_name) for name, obj_name in _registered_names().items()} == {
        name: {"INT", "REAL"} for name in domains.VALUE_DOMAINS}


def test_the_check_sees_a_domain_without_laws():
    planted = {"t.py": "class TestX(LatticeLaws):\n    domain = NEW\n    sort = T.INT\n"}
    assert law_classes(planted) == {"NEW": {"INT"}}  # no REAL: the check above would fail


def test_every_registered_domain_builds_a_reasoner():
    x = T.var("x", T.INT)
    for name, d in domains.VALUE_DOMAINS.items():
        r = Reasoner(domain=d)
        r.assume(T.eq(x, T.const(4)))
        assert r.decide(T.eq(x, T.const(5))).truth is Truth.FALSE, name


def test_every_registered_domain_implements_the_value_domain_protocol():
    """What a reasoner reads of a domain is the protocol (``domains/lattice.py: ValueDomain``),
    never an attribute of a value (``congruence``, not ``v.modulus``)."""
    from domains.lattice import ValueDomain

    wanted = {n for n in vars(ValueDomain) if not n.startswith("_")} | {"top", "bottom", "is_bottom", "leq", "join",
                                                                         "meet"}
    assert "congruence" in wanted
    for name, d in domains.VALUE_DOMAINS.items():
        assert {n for n in wanted if not callable(getattr(d, n, None))} == set(), name


def test_the_congruence_law_catches_a_domain_that_claims_a_residue():
    from domain_laws import congruence_breaks
    from domains.interval_congruence import IC, IntervalCongruenceDomain

    class Claims(IntervalCongruenceDomain):
        def congruence(self, v):
            return 2, 1  # "every value is odd"

    v = IC.from_bounds(0, 4, T.INT)
    assert congruence_breaks(IC, v, T.INT) is None
    assert congruence_breaks(Claims(), v, T.INT) == 0
    assert congruence_breaks(IC, IC.constant(3, T.INT), T.INT) is None
