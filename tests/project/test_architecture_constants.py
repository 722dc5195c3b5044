"""The limits docs/architecture.md quotes are the code's: every ``NAME = value`` on the page
names a module-level constant of ``absint``, ``domains`` or the project tests with that value
(the page had kept zones' ``MAX_CACHED = 4`` after the code moved to 8)."""

from __future__ import annotations

import ast
import re

from repo_paths import ROOT

QUOTED = re.compile(r"`([A-Z][A-Z0-9_]{2,}) = ([^`]+)`")


def _value(text: str) -> object:
    """A quoted value: a number, possibly written ``2**20``, ``1 << 17`` or ``10**5``."""
    node = ast.parse(text.strip(), mode="eval").body
    return eval(compile(ast.Expression(node), "<docs>", "eval"), {"__builtins__": {}})  # numbers and operators only


def code_constants() -> dict[str, list[object]]:
    out: dict[str, list[object]] = {}
    paths = [*(ROOT / "absint").rglob("*.py"), *(ROOT / "domains").rglob("*.py"),
             *(ROOT / "tests" / "project").glob("*.py")]
    for path in paths:
        for node in ast.parse(path.read_text()).body:
            target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else \
                node.target if isinstance(node, ast.AnnAssign) else None
            if isinstance(target, ast.Name) and node.value is not None:
                try:
                    value = _value(ast.unparse(node.value))
                except Exception:  # noqa: BLE001 - not a plain number: not a quotable limit
                    continue
                out.setdefault(target.id, []).append(value)
    return out


def drift(page: str, constants: dict[str, list[object]]) -> list[str]:
    out = []
    for name, quoted in QUOTED.findall(page):
        if name not in constants:
            out.append(f"{name}: the page quotes it, no module defines it")
        elif _value(quoted) not in constants[name]:
            out.append(f"{name}: the page says {quoted.strip()}, the code {constants[name]}")
    return out


def test_every_quoted_limit_is_the_code_s():
    assert drift((ROOT / "docs" / "architecture.md").read_text(), code_constants()) == []


def test_a_planted_drift_and_a_renamed_constant_are_caught():
    page = "Up to `MAX_CACHED = 4` searches; `KEPT_SLICE = 64` slices; `MAX_SLICE = 36`."
    assert drift(page, code_constants()) == ["MAX_CACHED: the page says 4, the code [8]",
                                             "KEPT_SLICE: the page quotes it, no module defines it"]
