"""Z3's results on disk, so that a rerun of ``absint compare`` on the same files costs nothing.

One JSON file per (content, settings): keyed by the file's content digest, the timeout,
the budget, ``refute_all``, the protocol version and Z3's version. A cached result keeps the
CPU seconds of the run that filled it; requests it has not answered yet are answered by a
run of only those queries (:func:`absint.compare.z3_solver.complete`) and cached again.
"""

from __future__ import annotations

import json
import os

import attrs

from absint.compare import z3_solver
from absint.compare.z3_solver import PROTOCOL, Requests, Z3FileResult, complete, z3_version
from absint.readers.files import content_digest


def default_cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "absint", "z3")


@attrs.frozen(slots=True)
class Z3Cache:
    """One JSON file per (content, settings) under ``directory``; ``None`` disables it."""

    directory: str | None = None

    def key(self, data: bytes, timeout_ms: int, budget_s: float, refute_all: bool) -> str:
        settings = f"{PROTOCOL}|z3 {z3_version()}|{timeout_ms}ms|{budget_s}s|refute_all={refute_all}"
        tag = content_digest(settings.encode())[:12]
        return f"{content_digest(data)}-{timeout_ms}ms-{tag}"

    def get(self, key: str) -> Z3FileResult | None:
        if self.directory is None:
            return None
        try:
            with open(os.path.join(self.directory, key + ".json"), encoding="utf-8") as fh:
                return Z3FileResult.from_json(json.load(fh), source="cache")
        except (OSError, ValueError, KeyError):
            return None

    def put(self, key: str, result: Z3FileResult) -> None:
        if self.directory is None or result.error is not None:
            return
        os.makedirs(self.directory, exist_ok=True)
        path = os.path.join(self.directory, key + ".json")
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(result.to_json(), fh, separators=(",", ":"))
        os.replace(tmp, path)


def check_file(data: bytes, *, timeout_ms: int = 1000, budget_s: float = 300.0, refute_all: bool = False,
               requests: Requests | None = None, cache: Z3Cache | None = None) -> Z3FileResult:
    """The protocol's result for one file, from the cache when possible, requests answered."""
    requests = requests or {}
    cache = cache or Z3Cache()
    key = cache.key(data, timeout_ms, budget_s, refute_all) if cache.directory else ""
    result = cache.get(key) if key else None
    if result is None:
        result = z3_solver.run_file(data, timeout_ms=timeout_ms, budget_s=budget_s, refute_all=refute_all, requests=requests)
        if key:
            cache.put(key, result)
    elif complete(result, data, requests, timeout_ms=timeout_ms):
        cache.put(key, result)
    return result
