"""The layout's rules, checked on the source: no import circle, ``domains`` free of ``absint``,
torch only in ``absint.torch``, functions short enough to read at once.

Every import statement counts, wherever it stands (module level, inside a function,
under ``TYPE_CHECKING``): a circle hidden in a function is still a circle a reader
has to untangle.
"""

from __future__ import annotations

import ast
import os
import pathlib

import pytest
from repo_paths import ROOT
from absint.reasoning.zones import strongly_connected_order

PACKAGES = ("absint", "domains")
MAX_FUNCTION_LINES = 60


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, pathlib.Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            out[_module_name(path)] = path
    return out


SOURCES = _sources()


def _imported(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """The project modules ``module`` imports (any import statement anywhere in it)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".") if is_package else module.split(".")[:-1]
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in SOURCES else base for a in node.names]
        else:
            continue
        out.update(n for n in names if n.split(".")[0] in PACKAGES and n in SOURCES)
    out.discard(module)
    return out


def import_graph() -> dict[str, set[str]]:
    graph = {}
    for module, path in SOURCES.items():
        graph[module] = _imported(ast.parse(path.read_text()), module, path.name == "__init__.py")
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (the zones' Tarjan)."""
    groups: dict[int, list[str]] = {}
    for module, component in strongly_connected_order(graph, lambda m: sorted(graph.get(m, ()))).items():
        groups.setdefault(component, []).append(module)
    return [sorted(g) for g in groups.values() if len(g) > 1]


def test_no_import_circle_between_modules():
    found = circles(import_graph())
    assert not found, "import circles: " + "; ".join(" <-> ".join(c) for c in found)


def test_circle_finder_finds_a_planted_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]


def two_way_pairs(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Pairs of subpackages of ``absint`` (or its top-level modules) that import each other,
    module by module (a lazy import inside a function counts)."""
    def part(module: str) -> str | None:
        pieces = module.split(".")
        return pieces[1] if pieces[0] == "absint" and len(pieces) > 1 else None

    uses: dict[str, set[str]] = {}
    for module, deps in graph.items():
        a = part(module)
        for dep in deps:
            b = part(dep)
            if a and b and a != b:
                uses.setdefault(a, set()).add(b)
    return sorted((a, b) for a in uses for b in uses[a] if a < b and a in uses.get(b, ()))


def test_no_two_subpackages_import_each_other():
    assert two_way_pairs(import_graph()) == []


def test_the_pair_finder_finds_a_planted_pair():
    graph = {"absint.batch.analyze": {"absint.presets.facts"}, "absint.presets.explore": {"absint.batch.analyze"},
             "absint.lang.terms": set()}
    assert two_way_pairs(graph) == [("batch", "presets")]


def test_domains_import_nothing_from_absint():
    graph = import_graph()
    offending = {m: sorted(x for x in deps if x.split(".")[0] == "absint")
                 for m, deps in graph.items() if m.split(".")[0] == "domains"}
    assert not {m: d for m, d in offending.items() if d}


def test_torch_is_imported_only_by_the_torch_client_and_the_shapeenv_oracle():
    allowed = ("absint.torch", "absint.compare.shapeenv")
    for module, path in SOURCES.items():
        if module.startswith(allowed):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(n == "torch" or n.startswith("torch.") for n in names), \
                f"{module} imports torch (only absint.torch may)"


def _long_functions(path: pathlib.Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = node.end_lineno - node.lineno + 1
            if lines > MAX_FUNCTION_LINES:
                out.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines} lines)")
    return out


@pytest.mark.parametrize("module", sorted(m for m in SOURCES if m.startswith("absint")))
def test_functions_are_short_enough_to_read_at_once(module):
    assert not _long_functions(SOURCES[module])


def test_every_package_directory_is_a_package():
    for package in PACKAGES:
        for d in (ROOT / package).rglob("*"):
            if d.is_dir() and d.name != "__pycache__" and any(d.glob("*.py")):
                assert (d / "__init__.py").exists(), f"{d} has modules but no __init__.py"
    assert os.path.isdir(ROOT / "domains")


def network_writes(tree: ast.AST) -> list[int]:
    """Lines that assign a field of a value network (``x.network.f = ...``, ``network.f += ...``)."""
    out = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            if isinstance(t, ast.Attribute):
                owner = t.value
                name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", None)
                if name == "network":
                    out.append(node.lineno)
    return out


def test_only_the_network_writes_its_own_fields():
    """The facade is closed: layers ask the network (``contradict``, ``values_changed``,
    ``budget_at_most``), never write its fields; the check finds a planted write."""
    found = {name: network_writes(ast.parse(path.read_text())) for name, path in _sources().items()
             if name != "absint.reasoning.network"}
    assert {k: v for k, v in found.items() if v} == {}
    planted = "def f(self):\n    self.network.budget = 3\n    network.epoch += 1\n"
    assert network_writes(ast.parse(planted)) == [2, 3]


#: who may use the value network beyond its protocol: the network itself, its owner (the
#: reasoner builds it, marks and restores it at checkpoints) and the fact intake (which narrows it)
NETWORK_OWNERS = {"absint.reasoning.network", "absint.reasoning.reasoner", "absint.reasoning.facts"}


def network_reads(tree: ast.AST) -> tuple[set[str], list[int]]:
    """The members read of a value network (``x.network.m``, ``network.m``), and the lines that
    bind a network to another name (``n = self.network``: its reads would go unseen)."""
    reads: set[str] = set()
    aliases = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            owner = node.value
            name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", None)
            if name == "network":
                reads.add(node.attr)
        elif isinstance(node, ast.Assign):
            value = node.value
            bound = value.attr if isinstance(value, ast.Attribute) else getattr(value, "id", None)
            names = [t.attr if isinstance(t, ast.Attribute) else getattr(t, "id", None) for t in node.targets]
            if bound == "network" and any(n != "network" for n in names):
                aliases.append(node.lineno)
    return reads, aliases


def protocol_members() -> set[str]:
    from absint.reasoning.facade import Network

    return set(Network.__annotations__) | {n for n in vars(Network) if not n.startswith("_")}


def test_the_network_is_read_through_its_protocol():
    """Every member of the value network a layer (or a search) reads is named in
    ``facade.Network``, and the network has every member the protocol names."""
    from absint.reasoning.reasoner import Reasoner

    named = protocol_members()
    unnamed, aliased = {}, {}
    for module, path in SOURCES.items():
        if module in NETWORK_OWNERS or not module.startswith("absint"):
            continue
        reads, aliases = network_reads(ast.parse(path.read_text()))
        if reads - named:
            unnamed[module] = sorted(reads - named)
        if aliases:
            aliased[module] = aliases
    assert (unnamed, aliased) == ({}, {})
    network = Reasoner().network
    assert {m for m in named if not hasattr(network, m)} == set()


def test_the_read_check_finds_a_planted_read_and_an_alias():
    planted = "def f(self):\n    self.network._val.clear()\n    n = self.network\n    return n.key_value(1)\n"
    reads, aliases = network_reads(ast.parse(planted))
    assert reads - protocol_members() == {"_val"} and aliases == [3]
