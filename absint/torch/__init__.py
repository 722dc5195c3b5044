"""absint inside PyTorch: the only package of absint that imports torch (always lazily).

``install(mode="fallback"|"shadow"|"primary", check=False, unknown="final")``, ``uninstall()``, ``enabled(...)``,
``stats()``, ``disagreements()``, ``record(path)`` (:mod:`.client`); the torch-free
:class:`~absint.torch.bridge.ShapeEnvBridge`; :func:`~absint.torch.trace.replay` of recorded
traces. ``ABSINT_TORCH=fallback python -m absint.torch script.py`` runs a script with it
installed; ``python -m absint.torch diagnose script.py`` finds the ``torch._check`` lines its
export is missing (:mod:`.diagnose`). See ``docs/torch.md``.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "install": "client", "uninstall": "client", "enabled": "client", "installed": "client",
    "stats": "client", "disagreements": "client", "torch_only": "client", "record": "client",
    "ShapeEnvBridge": "bridge", "Answer": "bridge", "replay": "trace", "Recorder": "trace",
    "UnsupportedTorch": "policy", "TESTED_TORCH_VERSIONS": "policy", "Disagreement": "counters",
    "TorchOnly": "counters",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    """Exports are loaded on first use: ``import absint.torch`` stays cheap and torch-free."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'absint.torch' has no attribute {name!r}")
    return getattr(importlib.import_module(f"absint.torch.{module}"), name)
