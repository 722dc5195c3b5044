"""``python -m absint.torch diagnose``: the project's data-dependent programs with their
``torch._check`` lines removed (:mod:`torch_unchecked`), and loops over many unbacked lengths.

For each: the suggested lines, pasted before the reported lines, let the script export with
absint off (checked here independently: a plain ``torch.export.export``, no real-tensor
propagation), they are no more lines than the checks removed (a loop once), they hold at
the example (the patched function runs eagerly on it), and the diagnosis says verified. A
planted suggestion too weak is caught by the verification, and one the example violates
is caught and replaced. The command's JSON, help and bad input (its own error, nothing
exported, invalid Python, a time limit) are checked through a child process.
"""

from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch", reason="absint.torch tests need torch (pip install torch==2.13.0+cpu)")

import torch_unchecked as tu  # noqa: E402

from absint.torch import client  # noqa: E402
from absint.torch.diagnose import cover, pipeline, report, runner, source  # noqa: E402
from absint.torch.diagnose.model import Suggestion  # noqa: E402

pytestmark = pytest.mark.torch

SCRIPTS = tu.unchecked_programs() + [tu.loop_program(name, 4) for name in tu.LOOP_SOURCES]


@pytest.fixture(autouse=True)
def _clean():
    yield
    client.uninstall()


def _write(tmp_path, script) -> str:
    path = tmp_path / f"{script.name}.py"
    path.write_text(script.text)
    return str(path)


def _pasted_text(path: str, checks) -> str:
    found = runner.pasted_sources(checks).get(source.real(path))
    return found[0] if found else open(path).read()


def exports_plainly(text: str, tmp_path, name: str = "patched.py") -> dict:
    """Run the script text as a file with absint off and no real-tensor propagation: its
    ``torch.export.export`` must go through; its globals (EXAMPLE, Wrapper) are returned."""
    path = tmp_path / name
    path.write_text(text)
    assert client.installed() is None
    return runpy.run_path(str(path), run_name="__main__")


def _data_dependent_failure(text: str, tmp_path) -> bool:
    try:
        exports_plainly(text, tmp_path, "unpatched.py")
    except Exception as e:  # noqa: BLE001 - the outcome is what is checked
        return runner.is_data_dependent(e)
    return False


_DIAGNOSED: dict = {}


@pytest.fixture(scope="module")
def diagnosed(tmp_path_factory):
    """Each script's path and diagnosis, made once for the module's tests."""
    def get(script):
        if script.name not in _DIAGNOSED:
            path = _write(tmp_path_factory.mktemp(script.name), script)
            _DIAGNOSED[script.name] = (path, pipeline.diagnose(path))
        return _DIAGNOSED[script.name]
    return get


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_suggested_lines_let_the_check_free_program_export_without_absint(script, tmp_path, diagnosed):
    path, d = diagnosed(script)
    checks = [s.check for s in d.suggestions]
    assert d.runs[0].status == "finished" and d.runs[0].traced >= 1
    assert all(c.pasteable for c in checks), [c.fact for c in checks]
    assert cover.lines(checks) <= script.removed, [c.statement for c in checks]
    assert d.verified is True and d.verified_without_absint is True
    if checks:  # something was missing: without the lines PyTorch stops at a data-dependent error
        assert _data_dependent_failure(script.text, tmp_path)
    g = exports_plainly(_pasted_text(path, checks), tmp_path)
    g["Wrapper"]()(*g["EXAMPLE"])  # eagerly on the example: every pasted check holds there
    out = report.to_json(d)
    for q in out["questions"]:
        assert {"file", "line", "question", "suggestion", "verified"} <= set(q)
        assert q["suggestion"] and q["verified"] is True


def test_some_check_free_programs_need_lines_and_get_one_each(diagnosed):
    """The counts: which programs needed lines (PyTorch alone stops without them)."""
    needing = {}
    for script in SCRIPTS:
        d = diagnosed(script)[1]
        if d.suggestions:
            needing[script.name] = cover.lines([s.check for s in d.suggestions])
    assert len(needing) >= 14 and set(needing.values()) == {1}, needing


@pytest.mark.parametrize("name", ["split_if_fits", "prefix_ends"])
@pytest.mark.parametrize("n", [6, 16])
def test_a_split_over_n_lengths_gets_at_most_two_lines_whatever_n(name, n, tmp_path):
    script = tu.loop_program(name, n)
    path = _write(tmp_path, script)
    d = pipeline.diagnose(path)
    checks = [s.check for s in d.suggestions]
    questions = sum(len(r.questions) for r in d.runs)
    assert questions >= n  # one question per length (with absint or without it)
    assert 1 <= cover.lines(checks) <= 2 and d.verified and d.verified_without_absint
    exports_plainly(_pasted_text(path, checks), tmp_path)
    (tmp_path / "checked.py").write_text(tu.checked_loop_program(name, n))
    with client.enabled("fallback"):  # the program with its checks exports (absint decides the rest)
        runpy.run_path(str(tmp_path / "checked.py"), run_name="__main__")


def _weakened(check, old: str, new: str):
    import attrs

    assert old in check.statement
    return attrs.evolve(check, key=f"planted:{new}", statement=check.statement.replace(old, new))


def test_a_planted_suggestion_too_weak_is_caught_by_the_verification(diagnosed):
    path, d = diagnosed(next(s for s in SCRIPTS if s.name == "prefix_ends"))
    (s,) = d.suggestions
    assert s.check.statement == "torch._check(end <= values.size(0))"
    weak = _weakened(s.check, "values.size(0))", "values.size(0) + 1)")
    for absint in (True, False):
        r = runner.run_once(path, [], [weak], absint)
        assert not r.clean and r.status == "finished" and len(r.questions) == 4
        assert {q.line for q in r.questions} == {s.check.line}  # the reported line (the original's numbering)
    r = runner.run_once(path, [], [s.check], False)
    assert r.clean


def test_a_planted_suggestion_the_example_violates_is_caught_and_replaced(diagnosed):
    path, d = diagnosed(next(s for s in SCRIPTS if s.name == "offsets_in_comprehension"))
    (s,) = d.suggestions
    assert s.check.statement.startswith("for (a, b) in zip(o, o[1:]): torch._check(b <= values.size(0))")
    bad = _weakened(s.check, "b <= values.size(0)", "b <= 3")  # true at the first pass only
    r = runner.run_once(path, [], [bad], False)
    assert r.status == "error" and r.culprit == bad.key
    runs = [d.runs[0]]
    chosen, last = pipeline._settle(path, [], [Suggestion(bad, s.covers, 0)], False, None, None, runs, 3)
    assert [c.check.key for c in chosen] == [s.check.key] and last.clean


UNROLLED = '''import torch


class M(torch.nn.Module):
    def forward(self, n_t, v):
        n = n_t.item()
        a = v[:1] if n != 0 else v[:2]
        b = v[:1] if n >= 1 else v[:2]
        c = v[:1] if n > 2 else v[:2]
        return a + b + c


torch.export.export(M(), (torch.tensor(5), torch.ones(4)))
'''


def test_one_fact_deciding_many_questions_is_preferred_to_one_line_each(tmp_path):
    """Three questions on three lines: the bound found at the last, tried again at every
    question (the probe run), decides all three from before the first."""
    path = tmp_path / "unrolled.py"
    path.write_text(UNROLLED)
    d = pipeline.diagnose(str(path))
    assert [q.text for q in d.runs[0].questions] == ["n != 0", "n >= 1", "n >= 3"]
    assert [(s.check.line, s.check.statement, s.covers) for s in d.suggestions] == \
        [(7, "torch._check(n >= 3)", (0, 1, 2))]
    assert d.verified and d.verified_without_absint
    exports_plainly(_pasted_text(str(path), [s.check for s in d.suggestions]), tmp_path)


COMPILED = '''
import torch
import torch._dynamo.config

torch._dynamo.config.capture_scalar_outputs = True


def f(abc, v):
    a, b, c = abc.tolist()
    if a <= c:
        return v[: v.size(0) - 1].sum() + a
    return v.sum()


g = torch.compile(f, fullgraph=True, dynamic=True, backend="eager")
g(torch.tensor([1, 2, 3]), torch.ones(5))
'''


def test_a_compiled_function_is_diagnosed_in_its_own_variables(tmp_path):
    path = tmp_path / "compiled.py"
    path.write_text(COMPILED)
    d = pipeline.diagnose(str(path))
    (q,) = d.runs[0].questions
    assert (q.line, q.function, q.text, q.needed) == (10, "f", "a <= c", "u0 <= u2")
    assert [s.check.statement for s in d.suggestions] == ["torch._check(a <= c)"]
    assert d.verified and d.verified_without_absint


def _blocks_of(page: str) -> list[str]:
    from repo_paths import ROOT

    text = (ROOT / page).read_text()
    return [b.split("\n", 1)[1] for b in text.split("```")[1::2]]


def test_the_worked_example_of_docs_torch_md_is_the_command_s_report(tmp_path):
    blocks = _blocks_of("docs/torch.md")
    script = next(b for b in blocks if b.startswith("import torch\n\n\nclass Pieces"))
    shown = next(b for b in blocks if b.startswith("absint.torch diagnose jagged.py\n"))
    (tmp_path / "jagged.py").write_text(script)
    d = pipeline.diagnose(str(tmp_path / "jagged.py"))
    assert report.text(d) == shown


def _cli(args, cwd, timeout=300):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (os.getcwd(), env.get("PYTHONPATH")) if p)
    return subprocess.run([sys.executable, "-m", "absint.torch", "diagnose", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env=env)


CHAIN = '''import torch


class M(torch.nn.Module):
    def forward(self, abc):
        a, b, c = abc.tolist()
        return torch.ones(3) if a <= c else torch.zeros(3)


torch.export.export(M(), (torch.tensor([1, 2, 3]),))
'''


def test_the_command_gives_json_with_file_line_question_suggestion_and_verified(tmp_path):
    (tmp_path / "chain.py").write_text(CHAIN)
    p = _cli(["chain.py", "--json"], tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    out = json.loads(p.stdout)
    assert out["verified"] is True and out["verified_without_absint"] is True
    (q,) = out["questions"]
    assert (q["file"].endswith("chain.py"), q["line"], q["question"], q["suggestion"], q["verified"]) == \
        (True, 7, "a <= c", ["torch._check(a <= c)"], True)
    (s,) = out["suggestions"]
    assert (s["line"], s["statement"]) == (7, "torch._check(a <= c)")
    text = _cli(["chain.py"], tmp_path)
    assert "paste before chain.py:7:\n      torch._check(a <= c)" in text.stdout
    assert "Traceback" not in text.stdout + text.stderr


def test_help_describes_the_command(capsys):
    from absint.torch.diagnose import cli

    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "torch._check" in out and "--timeout" in out and "verified" in out
    assert cli.main(["--timeout", "x", "s.py"]) == 2


BAD = {
    "raises.py": CHAIN + 'raise ValueError("my own error")\n',
    "nothing.py": "print(1 + 1)\n",
    "invalid.py": "def f(:\n",
}


def test_bad_scripts_get_a_clear_message_what_was_found_and_no_traceback(tmp_path):
    for name, text in BAD.items():
        (tmp_path / name).write_text(text)
    runs = {name: _cli([name], tmp_path) for name in [*BAD, "missing.py"]}
    p = runs["raises.py"]
    assert p.returncode == 1 and "the script failed: ValueError: my own error (at" in p.stdout
    assert "torch._check(a <= c)" in p.stdout  # what was found before the error
    p = runs["nothing.py"]
    assert p.returncode == 1 and "exported or compiled nothing" in p.stdout
    p = runs["invalid.py"]
    assert p.returncode == 1 and "invalid.py:1: invalid Python" in p.stdout
    p = runs["missing.py"]
    assert p.returncode == 2 and "no such file" in p.stderr
    for p in runs.values():
        assert "Traceback" not in p.stdout + p.stderr


HANGS = CHAIN + '''
import os

marker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ran-once")
if os.path.exists(marker):
    while True:  # the second run never finishes
        pass
open(marker, "w").close()
'''


def test_a_script_that_never_finishes_is_stopped_and_what_was_found_is_reported(tmp_path):
    (tmp_path / "hangs.py").write_text(HANGS)
    p = _cli(["hangs.py", "--timeout", "60", "--json"], tmp_path, timeout=600)
    assert p.returncode == 1
    out = json.loads(p.stdout)
    assert "did not finish within 60 s" in out["note"]
    assert [q["question"] for q in out["questions"]] == ["a <= c"]
    assert [s["statement"] for s in out["suggestions"]] == ["torch._check(a <= c)"]
    assert out["verified"] is None
    assert "Traceback" not in p.stdout + p.stderr
