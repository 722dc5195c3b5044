"""PyTorch's own dynamic-shape tests with absint.torch installed: off, shadow and primary.

    python -m benchmarks.pytorch_tests run TESTS_DIR OUT_DIR [--modes off,shadow,primary] [--record DIR]
    python -m benchmarks.pytorch_tests summary OUT_DIR [--json]

The harness and the list of 484 tests are ``../shared/pytorch_tests/`` (its README says how
to rebuild the three PyTorch test files into ``TESTS_DIR``; they are PyTorch's code and are
not kept here). ``run`` drives that harness's ``run_suite.py`` unchanged, with one mode
added: ``primary`` (absint answers first, ``check=True``), and with the plugin below loaded
into each pytest process, which writes, per group, ``<group>.absint.json``: every question
PyTorch decided and absint left UNKNOWN (``torch_only``) with the test that asked it.
``summary`` prints, per mode: outcomes, absint's counters, disagreements, ``torch_only``
(each listed), and the tests whose outcome differs from ``off``.

Needs torch, pytest-timeout, expecttest and hypothesis beside absint (``pip install
pytest-timeout expecttest hypothesis``); a run of the three modes takes about 10 minutes.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HARNESS = ROOT.parent / "shared" / "pytorch_tests"
PLUGIN = "benchmarks.pytorch_tests"
GROUPS = ("dynamic_shapes", "export")


# ---------------------------------------------------------------- the pytest plugin

_torch_only: list[dict] = []


def _record_per_group() -> None:
    """``run --record DIR``: each group's trace to ``DIR/<mode>_<group>.jsonl`` (the harness reads
    one path, ``ABSINT_PT_RECORD``, which the second group would overwrite). Done when pytest
    loads this plugin, before the harness's conftest installs absint."""
    folder, out = os.environ.get("ABSINT_PT_RECORD_DIR"), os.environ.get("ABSINT_PT_OUT")
    if folder and out:
        out = Path(out)
        os.environ["ABSINT_PT_RECORD"] = str(Path(folder) / f"{out.parent.name}_{out.stem}.jsonl")


_record_per_group()


def pytest_runtest_protocol(item, nextitem):  # noqa: ARG001 - pytest's hook signature
    """Before each test: remember how many torch_only questions there were."""
    item._absint_seen = _count()


def pytest_runtest_teardown(item, nextitem):  # noqa: ARG001
    if os.environ.get("ABSINT_PT_MODE", "off") == "off":
        return
    import absint.torch

    for t in absint.torch.torch_only()[getattr(item, "_absint_seen", 0):]:
        _torch_only.append({"test": item.nodeid, "expr": t.expr, "torch": t.torch, "route": t.route})


def pytest_sessionfinish(session, exitstatus):  # noqa: ARG001
    out = os.environ.get("ABSINT_PT_OUT")
    if out:
        Path(out).with_suffix(".absint.json").write_text(json.dumps({"torch_only": _torch_only}, indent=1))


def _count() -> int:
    if os.environ.get("ABSINT_PT_MODE", "off") == "off":
        return 0
    import absint.torch

    return len(absint.torch.torch_only())


# ---------------------------------------------------------------- run and summary


def run(tests_dir: str, out_dir: str, modes: list[str], record: str | None = None) -> int:
    """The shared ``run_suite.main`` with ``primary`` added and this plugin loaded; ``record``:
    a folder for every group's trace of absint's questions (``benchmarks.torch_trace_z3``)."""
    if not (HARNESS / "run_suite.py").exists():
        print(f"error: the harness {HARNESS} is absent (../shared beside the repository)", file=sys.stderr)
        return 2
    missing = [f for f in ("test_dynamic_shapes.py", "test_draft_export.py", "test_export_subset.py")
               if not (Path(tests_dir) / f).exists()]
    if missing:
        print(f"error: {tests_dir} lacks {', '.join(missing)}: rebuild them as {HARNESS / 'README.md'} says",
              file=sys.stderr)
        return 2
    spec = importlib.util.spec_from_file_location("run_suite", HARNESS / "run_suite.py")
    suite = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(suite)
    suite.MODES["primary"] = ("primary", "1")
    os.environ.update(PT_TESTS_DIR=tests_dir, OUT_DIR=out_dir, PYTEST_PLUGINS=PLUGIN,
                      PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    if record:
        Path(record).mkdir(parents=True, exist_ok=True)
        os.environ["ABSINT_PT_RECORD_DIR"] = str(Path(record).resolve())
    sys.argv = ["run_suite.py", *modes]
    suite.main()
    return 0


def summarize(out_dir: str) -> dict:
    """Per mode: outcomes, absint's counters summed over the groups, torch_only listed."""
    report = {}
    for mode in sorted(p.name for p in Path(out_dir).iterdir() if (p / "dynamic_shapes.json").exists()):
        outcomes, counters, torch_only, disagreements, tests = collections.Counter(), collections.Counter(), [], [], {}
        for group in GROUPS:
            path = Path(out_dir) / mode / f"{group}.json"
            if not path.exists():
                continue
            data = json.loads(path.read_text())
            tests.update({k: v.get("outcome") for k, v in data["tests"].items()})
            outcomes.update(v.get("outcome") for v in data["tests"].values())
            disagreements += data.get("disagreements", [])
            stats = data.get("stats") or {}
            counters.update({k: v for k, v in stats.items() if isinstance(v, (int, float)) and k != "torch_only"})
            extra = path.with_suffix(".absint.json")
            if extra.exists():
                torch_only += json.loads(extra.read_text())["torch_only"]
        report[mode] = {"outcomes": dict(outcomes), "counters": dict(counters), "disagreements": disagreements,
                        "torch_only": torch_only, "tests": tests}
    return report


def print_summary(report: dict) -> None:
    base = report.get("off", {}).get("tests", {})
    for mode, r in report.items():
        c = r["counters"]
        print(f"== {mode}: {r['outcomes']}")
        if c:
            print(f"   asked {c.get('asked', 0)}, answered {c.get('answered', 0)}, PyTorch decided "
                  f"{c.get('torch_decided', 0)}, passed through {c.get('passed_through', 0)}, check failures "
                  f"{c.get('check_failures', 0)}, absint seconds {c.get('sync_seconds', 0) + c.get('decide_seconds', 0):.1f}")
            print(f"   disagreements {len(r['disagreements'])}, torch_only {len(r['torch_only'])}")
        for t in r["torch_only"]:
            print(f"     {t['test'].split('::')[-1]}: {t['expr']} (PyTorch {t['torch']}, {t['route']})")
        changed = sorted(k for k, v in r["tests"].items() if base and base.get(k) != v)
        for k in changed:
            print(f"   outcome differs from off: {k}: {base.get(k)} -> {r['tests'][k]}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run the modes (about 10 minutes for three)")
    r.add_argument("tests_dir")
    r.add_argument("out_dir")
    r.add_argument("--modes", default="off,shadow,primary")
    r.add_argument("--record", metavar="DIR", help="write each group's trace of absint's questions here")
    s = sub.add_parser("summary", help="outcomes, counters and torch_only per mode")
    s.add_argument("out_dir")
    s.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.command == "run":
        return run(args.tests_dir, args.out_dir, args.modes.split(","), args.record)
    report = summarize(args.out_dir)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print_summary(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
