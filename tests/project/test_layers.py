"""A reasoning layer is wired in every place it must be (docs/architecture.md, "A new
relational layer"): each check below finds what a new layer would miss, and is shown to
catch a planted layer with each place left out in turn.

The layers are what ``Reasoner.__init__`` builds: each public attribute it sets to an
instance of a class from a module of ``absint/reasoning`` (``self.zones =
DifferenceBounds(self)``). For each of them:

- it is asked: some method of the reasoner other than ``__init__``, ``checkpoint``,
  ``rollback`` and ``commit`` reads it (a layer built and never asked decides nothing);
- what it keeps across questions follows the checkpoints: a layer with ``mark`` has it
  taken by ``checkpoint`` and its ``restore`` called by ``rollback``; one with ``forget``
  (caches it rebuilds) has it called by ``rollback``;
- it imports no other layer's module (layers ask each other through the facade) and reads
  of the facade only what ``facade.Facade`` names;
- docs/architecture.md has its module's line in the layout, and a test module under
  ``tests/`` imports it.

And for the verdicts: every ``Layer`` member (``NONE`` aside) has a cost in
``reasoner._LAYER_COST``, the costs rise in the members' order (``validation/check.py``
ranks layers by that order), and every member is given by some verdict of ``absint``.
A reasoning module no module imports is a layer written and never built.
"""

from __future__ import annotations

import ast
import functools
import re

import pytest
from repo_paths import ROOT

REASONER = "absint/reasoning/reasoner.py"
VERDICT = "absint/reasoning/verdict.py"
FACADE = "absint/reasoning/facade.py"
ARCHITECTURE = "docs/architecture.md"
#: the methods that build a layer or keep it across checkpoints: reading a layer there is not asking it
NOT_ASKING = {"__init__", "checkpoint", "rollback", "commit"}


def read_tree() -> dict[str, str]:
    """The texts the checks read: every module of absint, every test module, the architecture page."""
    paths = [*sorted((ROOT / "absint").rglob("*.py")), *sorted((ROOT / "tests").rglob("*.py")), ROOT / ARCHITECTURE]
    return {str(p.relative_to(ROOT)): p.read_text() for p in paths}


@functools.lru_cache(maxsize=None)
def _parse(text: str) -> ast.Module:
    return ast.parse(text)


def _module_of(path: str) -> str:
    return path[:-len(".py")].replace("/", ".").removesuffix(".__init__")


@functools.lru_cache(maxsize=None)
def _imports(text: str) -> frozenset[str]:
    """Every module (and ``module.name``) an import statement of ``text`` names, anywhere."""
    out: set[str] = set()
    for node in ast.walk(_parse(text)):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return frozenset(out)


def _reasoner_class(tree: dict[str, str]) -> ast.ClassDef:
    return next(n for n in _parse(tree[REASONER]).body if isinstance(n, ast.ClassDef) and n.name == "Reasoner")


def _methods(cls: ast.ClassDef) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}


def _self_reads(node: ast.AST) -> set[str]:
    """The attributes of ``self`` read (or called through) in ``node``."""
    return {n.attr for n in ast.walk(node)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"}


def _layer_calls(node: ast.AST, attribute: str) -> set[str]:
    """The methods called on ``self.<attribute>`` in ``node``."""
    return {n.func.attr for n in ast.walk(node)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and isinstance(n.func.value, ast.Attribute) and n.func.value.attr == attribute
            and isinstance(n.func.value.value, ast.Name) and n.func.value.value.id == "self"}


def layers(tree: dict[str, str]) -> dict[str, tuple[str, str]]:
    """``attribute -> (module path, class)`` of every layer ``Reasoner.__init__`` builds."""
    imported = {}
    for node in _parse(tree[REASONER]).body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("absint.reasoning."):
            for a in node.names:
                imported[a.asname or a.name] = node.module.replace(".", "/") + ".py"
    out = {}
    for node in ast.walk(_methods(_reasoner_class(tree))["__init__"]):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute)):
            continue
        name = node.targets[0].attr
        value = node.value.body if isinstance(node.value, ast.IfExp) else node.value
        if (not name.startswith("_") and isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                and value.func.id in imported):
            out[name] = (imported[value.func.id], value.func.id)
    return out


def _unset_layers(cls: ast.ClassDef) -> set[str]:
    """``x`` of every ``self.x.m`` the reasoner reads where ``x`` is neither set by ``__init__``
    nor a member of the class (a layer asked but never built)."""
    read = {n.value.attr for n in ast.walk(cls) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Attribute)
            and isinstance(n.value.value, ast.Name) and n.value.value.id == "self"}
    return read - _members(cls)


def _members(cls: ast.ClassDef) -> set[str]:
    """The reasoner's methods and properties and the attributes its ``__init__`` sets."""
    init = _methods(cls)["__init__"]
    return set(_methods(cls)) | {t.attr for n in ast.walk(init) if isinstance(n, (ast.Assign, ast.AnnAssign))
                                 for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                                 if isinstance(t, ast.Attribute)}


def _class_methods(text: str, cls: str) -> set[str]:
    node = next(n for n in _parse(text).body if isinstance(n, ast.ClassDef) and n.name == cls)
    return set(_methods(node))


def _facade_members(tree: dict[str, str]) -> set[str]:
    facade = next(n for n in _parse(tree[FACADE]).body if isinstance(n, ast.ClassDef) and n.name == "Facade")
    return {n.target.id for n in facade.body if isinstance(n, ast.AnnAssign)} | set(_methods(facade))


def _facade_reads(text: str) -> set[str]:
    """What a layer module reads of its facade: ``facade.m`` and ``self.facade.m``."""
    def is_facade(n: ast.AST) -> bool:
        return (isinstance(n, ast.Name) and n.id == "facade") or (
            isinstance(n, ast.Attribute) and n.attr == "facade"
            and isinstance(n.value, ast.Name) and n.value.id == "self")
    return {n.attr for n in ast.walk(_parse(text)) if isinstance(n, ast.Attribute) and is_facade(n.value)}


def layer_findings(tree: dict[str, str]) -> list[str]:
    """What is missing for each layer (see the module docstring); empty when all is wired."""
    found = layers(tree)
    cls_node = _reasoner_class(tree)
    methods = _methods(cls_node)
    asked = set().union(*(_self_reads(m) for name, m in methods.items() if name not in NOT_ASKING))
    layer_modules = {_module_of(path) for path, _ in found.values()}
    facade = _facade_members(tree)
    tests = [text for path, text in tree.items() if path.startswith("tests/")]
    out = [f"reasoner: self.{a} is asked but __init__ never sets it" for a in sorted(_unset_layers(cls_node))]
    out += [f"facade.Facade names {m}, which the reasoner does not answer" for m in sorted(facade - _members(cls_node))]
    for attribute, (path, cls) in sorted(found.items()):
        if path not in tree:
            out.append(f"{attribute}: no module {path}")
            continue
        own = _class_methods(tree[path], cls)
        module = _module_of(path)
        if attribute not in asked:
            out.append(f"{attribute}: built but never asked by the reasoner")
        if "mark" in own and "mark" not in _layer_calls(methods["checkpoint"], attribute):
            out.append(f"{attribute}: checkpoint does not take its mark()")
        if "restore" in own and "restore" not in _layer_calls(methods["rollback"], attribute):
            out.append(f"{attribute}: rollback does not restore it")
        if "forget" in own and "forget" not in _layer_calls(methods["rollback"], attribute):
            out.append(f"{attribute}: rollback does not make it forget")
        others = {m for m in _imports(tree[path]) if m in layer_modules - {module}}
        if others:
            out.append(f"{attribute}: imports another layer ({', '.join(sorted(others))})")
        unnamed = _facade_reads(tree[path]) - facade
        if unnamed:
            out.append(f"{attribute}: reads what facade.Facade does not name ({', '.join(sorted(unnamed))})")
        if not re.search(rf"^ {{4}}{re.escape(path.rsplit('/', 1)[1])}\b", tree[ARCHITECTURE], re.M):
            out.append(f"{attribute}: no line for {path} in {ARCHITECTURE}")
        if not any(module in _imports(text) or f"absint.reasoning.{cls}" in _imports(text)
                   or f"{module}.{cls}" in _imports(text) for text in tests):
            out.append(f"{attribute}: no test module imports {module}")
    return out


def _layer_members(tree: dict[str, str]) -> list[str]:
    layer = next(n for n in _parse(tree[VERDICT]).body if isinstance(n, ast.ClassDef) and n.name == "Layer")
    return [t.id for n in layer.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)]


def _costs(tree: dict[str, str]) -> ast.Dict:
    for node in _parse(tree[REASONER]).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if isinstance(target, ast.Name) and target.id == "_LAYER_COST":
                return node.value
    return ast.Dict(keys=[], values=[])


def verdict_findings(tree: dict[str, str]) -> list[str]:
    """Every Layer member costed in order and given by some verdict; every reasoning module imported."""
    members = _layer_members(tree)
    table = _costs(tree)
    costs = {k.attr: ast.literal_eval(v) for k, v in zip(table.keys, table.values)}
    keys = {id(k) for k in table.keys}
    used = {n.attr for path, text in tree.items() if path.startswith("absint/") and path != VERDICT
            for n in ast.walk(_parse(text))
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "Layer"
            and id(n) not in keys}
    out = [f"Layer.{m}: no cost in reasoner._LAYER_COST" for m in members if m != "NONE" and m not in costs]
    ranked = [costs[m] for m in members if m != "NONE" and m in costs]
    if ranked != sorted(set(ranked)):
        out.append("reasoner._LAYER_COST: the costs do not rise in the order of the Layer members")
    out += [f"Layer.{m}: no verdict gives it" for m in members if m not in used]
    out += [f"Layer.{m}: not a member of verdict.Layer" for m in sorted((used | set(costs)) - set(members))]
    imported = set().union(*(_imports(text) for path, text in tree.items() if path.startswith("absint/")))
    for path in tree:
        if (path.startswith("absint/reasoning/") and not path.endswith("__init__.py")
                and _module_of(path) not in imported):
            out.append(f"{path}: no module imports it")
    return out


# ---------------------------------------------------------------- the tree as it is

def test_every_layer_is_wired():
    tree = read_tree()
    assert {a for a in layers(tree)} >= {"network", "normal_form", "entailment", "products", "zones", "polyhedral",
                                        "witnesses"}
    assert layer_findings(tree) == []


def test_every_layer_member_is_costed_in_order_and_given():
    assert verdict_findings(read_tree()) == []


# ---------------------------------------------------------------- a planted layer, each place left out in turn

PLANTED_MODULE = '''"""A planted layer: bounds on sums of squares."""

from absint.reasoning.facade import Facade


class SquareBounds:
    def __init__(self, facade: Facade):
        self.facade = facade
        self.cache = {}

    def decide(self, g):
        return None if self.facade.truth(g) is None else None

    def forget(self):
        self.cache.clear()
'''

#: each place a new layer touches, by the recipe's name for it: (path, text before, text after;
#: None before: a new file)
PLACES = {
    "module": ("absint/reasoning/squares.py", None, PLANTED_MODULE),
    "import": (REASONER, "from absint.reasoning.zones import DifferenceBounds\n",
               "from absint.reasoning.zones import DifferenceBounds\n"
               "from absint.reasoning.squares import SquareBounds\n"),
    "built": (REASONER, "        self.zones = DifferenceBounds(self)\n",
              "        self.zones = DifferenceBounds(self)\n        self.squares = SquareBounds(self)\n"),
    "asked": (REASONER, "        r = self._through_definitions(g)\n",
              "        r = self.squares.decide(g)\n        if r is not None:\n"
              "            return Verdict(Truth.TRUE if r else Truth.FALSE, Layer.SQUARES)\n"
              "        r = self._through_definitions(g)\n"),
    "rollback": (REASONER, "        self.zones.forget()\n",
                 "        self.zones.forget()\n        self.squares.forget()\n"),
    "member": (VERDICT, '    CASE_SPLIT = "case-split"\n', '    CASE_SPLIT = "case-split"\n    SQUARES = "squares"\n'),
    "cost": (REASONER, "Layer.CASE_SPLIT: 4, Layer.CONTRADICTION: 5", "Layer.CASE_SPLIT: 4, Layer.SQUARES: 4.5, "
             "Layer.CONTRADICTION: 5"),
    "docs": (ARCHITECTURE, "    zones.py ", "    squares.py           a planted layer\n    zones.py "),
    "test": ("tests/reasoning/test_squares.py", None, "from absint.reasoning import squares\n"),
}


def planted(tree: dict[str, str], leave_out: str | None = None) -> dict[str, str]:
    """``tree`` with the planted layer wired in every place but ``leave_out``."""
    out = dict(tree)
    for place, (path, before, after) in PLACES.items():
        if place == leave_out:
            continue
        if before is None:
            out[path] = after
        else:
            assert out[path].count(before) == 1, (place, before)
            out[path] = out[path].replace(before, after)
    return out


def findings(tree: dict[str, str]) -> list[str]:
    return layer_findings(tree) + verdict_findings(tree)


@pytest.fixture(scope="module")
def tree() -> dict[str, str]:
    return read_tree()


def test_the_planted_layer_wired_everywhere_passes(tree):
    assert "squares" in layers(planted(tree))
    assert findings(planted(tree)) == []


@pytest.mark.parametrize("place,expected", [
    ("module", "squares: no module absint/reasoning/squares.py"),
    ("import", "absint/reasoning/squares.py: no module imports it"),
    ("built", "reasoner: self.squares is asked but __init__ never sets it"),
    ("asked", "squares: built but never asked by the reasoner\nLayer.SQUARES: no verdict gives it"),
    ("rollback", "squares: rollback does not make it forget"),
    ("member", "Layer.SQUARES: not a member of verdict.Layer"),
    ("cost", "Layer.SQUARES: no cost in reasoner._LAYER_COST"),
    ("docs", "squares: no line for absint/reasoning/squares.py in docs/architecture.md"),
    ("test", "squares: no test module imports absint.reasoning.squares"),
])
def test_each_place_left_out_is_caught(tree, place, expected):
    assert findings(planted(tree, place)) == expected.split("\n")


def test_a_member_no_verdict_gives_and_a_cost_out_of_order_are_caught(tree):
    unused = planted(tree)
    unused[REASONER] = unused[REASONER].replace("Layer.SQUARES)\n", "Layer.CASE_SPLIT)\n")
    assert findings(unused) == ["Layer.SQUARES: no verdict gives it"]
    disordered = planted(tree)
    disordered[REASONER] = disordered[REASONER].replace("Layer.SQUARES: 4.5", "Layer.SQUARES: 9")
    assert findings(disordered) == ["reasoner._LAYER_COST: the costs do not rise in the order of the Layer members"]


def test_a_restore_left_out_an_import_of_another_layer_and_an_unnamed_facade_read_are_caught(tree):
    no_restore = dict(tree)
    no_restore[REASONER] = tree[REASONER].replace("            self.polyhedral.restore(polyhedral_mark)\n",
                                                  "            pass\n")
    assert findings(no_restore) == ["polyhedral: rollback does not restore it"]
    crossing = planted(tree)
    crossing["absint/reasoning/squares.py"] = PLANTED_MODULE.replace(
        "from absint.reasoning.facade import Facade\n",
        "from absint.reasoning.facade import Facade\nfrom absint.reasoning.zones import DifferenceBounds\n").replace(
        "self.facade.truth(g)", "self.facade.zones.decide(g)")
    assert findings(crossing) == ["squares: imports another layer (absint.reasoning.zones)",
                                  "squares: reads what facade.Facade does not name (zones)"]
    unanswered = planted(tree)
    unanswered[FACADE] = tree[FACADE].replace("class Facade(Protocol):\n    network: Network\n",
                                              "class Facade(Protocol):\n    network: Network\n\n"
                                              "    def square_bound(self, t: Term) -> object | None:\n        ...\n")
    assert findings(unanswered) == ["facade.Facade names square_bound, which the reasoner does not answer"]
