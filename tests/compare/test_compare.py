"""``absint compare``: tables, files, and above all the soundness check against Z3."""

from __future__ import annotations

import csv
import json
import sys
import types
from pathlib import Path

import pytest

pytest.importorskip("z3")
pytest.importorskip("matplotlib")

from absint.cli import main  # noqa: E402
from absint.lang.evaluator import evaluate  # noqa: E402
from absint.reasoning.reasoner import Reasoner  # noqa: E402
from absint.readers.smtlib import parse_bytes  # noqa: E402
from absint.reasoning.verdict import Layer, Verdict  # noqa: E402
from absint.compare import registry  # noqa: E402
from absint.compare.oracle import Answers, Case, MissingExtra, Oracle, OracleOutcome  # noqa: E402
from absint.compare.sampling import spread_sample  # noqa: E402
from absint.compare.z3_solver import as_value  # noqa: E402
from benchmarks.generators import jagged_split  # noqa: E402

SMALL = """(declare-const s0 Int)
(set-info :example-s0 8)
(declare-const s1 Int)
(set-info :example-s1 3)
(define-fun ge () Bool (>= s0 0))
(assert ge)
(define-fun ge_1 () Bool (>= s1 0))
(assert ge_1)
(define-fun le () Bool (<= s1 s0))
(assert le)
(define-fun add () Int (+ s0 s1))
(define-fun ge_2 () Bool (>= add 0))
(assert ge_2)
(check-sat)
"""
CONTINGENT = 2  # (<= s1 s0): true at the example point, not implied by s0 >= 0, s1 >= 0

from programs import FERMAT  # noqa: E402  (hard for Z3: cubes)


def claim(monkeypatch, text: str, index: int, verdict: Verdict) -> None:
    """Make absint claim ``verdict`` for assert ``index`` of ``text`` (a deliberate bug)."""
    target = parse_bytes(text.encode(), "x.smt2").facts[index].term  # terms are interned
    real = Reasoner.decide

    def decide(self, guard):
        return verdict if guard is target else real(self, guard)

    monkeypatch.setattr(Reasoner, "decide", decide)


def run_compare(tmp_path: Path, *args: str) -> tuple[int, dict]:
    out = tmp_path / "out"
    rc = main(["compare", *args, "--out", str(out), "--no-cache", "--quiet"])
    summary = json.loads((out / "summary.json").read_text()) if (out / "summary.json").exists() else {}
    return rc, summary


def test_jagged_programs_produce_every_output(write_program, tmp_path, capsys):
    paths = [write_program(f"jagged_{n}_{seed}.smt2", jagged_split(n, seed)) for n, seed in ((4, 0), (16, 1))]
    rc, summary = run_compare(tmp_path, *paths)
    text = capsys.readouterr().out
    assert rc == 0
    assert "unsound verdicts: none" in text and "total: 2 file(s)" in text
    out = tmp_path / "out"
    n = sum(len(parse_bytes(Path(p).read_bytes(), p).facts) for p in paths)
    assert summary["totals"]["absint"]["asserts"] == summary["totals"]["z3"]["asserts"] == n
    assert summary["unsound_count"] == 0 and summary["problem_count"] == 0
    conf = summary["confusion_absint_x_z3"]
    assert sum(sum(r.values()) for r in conf.values()) == n
    with open(out / "asserts.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == n
    assert set(rows[0]) >= {"file", "index", "line", "assert", "absint", "layer", "z3", "absint_seconds", "z3_seconds"}
    assert all(r["absint"] in "TF?" and r["z3"] in "TF?ux" for r in rows)
    png = (out / "cactus.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    assert [f["file"] for f in summary["files"]] == ["jagged_4_0.smt2", "jagged_16_1.smt2"]  # as given


def test_a_wrong_true_is_caught_with_a_counterexample(write_program, tmp_path, monkeypatch, capsys):
    claim(monkeypatch, SMALL, CONTINGENT, Verdict.true(Layer.INTERVAL))
    rc, summary = run_compare(tmp_path, write_program("small.smt2", SMALL))
    assert rc == 1
    assert "UNSOUND" in capsys.readouterr().out
    [u] = summary["unsound"]
    assert (u["file"], u["index"], u["absint"], u["z3"], u["kind"]) == ("small.smt2", CONTINGENT, "T", "?",
                                                                         "counterexample")
    assert u["line"] == 10 and "s1" in u["assert"]
    assert u["evaluator"] == "confirmed by absint's evaluator"
    # the counterexample really falsifies the assert and satisfies the ones before it
    program = parse_bytes(SMALL.encode(), "small.smt2")
    point = {k: as_value(v) for k, v in u["model"].items()}
    assert all(evaluate(f.term, point) is True for f in program.facts[:CONTINGENT])
    assert evaluate(program.facts[CONTINGENT].term, point) is False
    assert set(u["model_of_assert"]) == {"s0", "s1"}


def test_a_wrong_false_is_caught_with_a_witness(write_program, tmp_path, monkeypatch):
    claim(monkeypatch, SMALL, 1, Verdict.false(Layer.INTERVAL))
    rc, summary = run_compare(tmp_path, write_program("small.smt2", SMALL))
    assert rc == 1
    [u] = summary["unsound"]
    assert (u["index"], u["absint"], u["kind"]) == (1, "F", "witness")
    point = {k: as_value(v) for k, v in u["model"].items()}
    program = parse_bytes(SMALL.encode(), "small.smt2")
    assert all(evaluate(f.term, point) is True for f in program.facts[:2])


def test_z3_timeouts_are_not_disagreements(write_program, tmp_path, monkeypatch, capsys):
    claim(monkeypatch, FERMAT, 3, Verdict.true(Layer.INTERVAL))
    rc, summary = run_compare(tmp_path, write_program("fermat.smt2", FERMAT), "--timeout-ms", "50")
    assert rc == 0
    assert summary["unsound_count"] == 0
    assert summary["totals"]["z3"]["gave up"] == 1
    [g] = summary["gave_up"]
    assert (g["index"], g["absint"], g["z3"]) == (3, "T", "u")
    assert summary["confusion_absint_x_z3"]["T"]["u"] == 1
    assert "Z3 gave up on" in capsys.readouterr().out


def test_reference_file_mode(write_program, tmp_path, monkeypatch):
    path = write_program("small.smt2", SMALL)
    ref = tmp_path / "ref.txt"
    # a reference that says '?' where Z3 can prove T is corrected by a real query, not reported
    ref.write_text("small.smt2 ???? 0.250\n")
    rc, summary = run_compare(tmp_path, path, "--z3-reference", str(ref))
    assert rc == 0, summary["unsound"]
    [f] = summary["files"]
    assert f["z3"]["source"] == "reference" and f["z3"]["seconds"] == 0.25
    assert f["z3"]["letters"] == "???T"
    # a wrong T where the reference says '?' gets a counterexample from a real Z3 query
    claim(monkeypatch, SMALL, CONTINGENT, Verdict.true(Layer.INTERVAL))
    rc, summary = run_compare(tmp_path, path, "--z3-reference", str(ref))
    assert rc == 1 and summary["unsound"][0]["index"] == CONTINGENT and "model" in summary["unsound"][0]
    # a reference that read a different number of asserts is a problem of the file
    ref.write_text("small.smt2 ??? 0.250\n")
    monkeypatch.setattr(Reasoner, "decide", Reasoner.decide)
    rc, summary = run_compare(tmp_path, path, "--z3-reference", str(ref))
    assert rc == 1 and "assert count differs" in summary["problems"][0]["problem"]


def test_markdown_table_names_its_command(write_program, tmp_path):
    paths = [write_program("A___0.smt2", SMALL), write_program("A___1.smt2", jagged_split(3, 0)),
             write_program("B___0.smt2", FERMAT)]
    md = tmp_path / "precision.md"
    rc = main(["compare", *paths, "--out", str(tmp_path / "o"), "--no-cache", "-q", "--markdown", str(md)])
    assert rc == 0
    text = md.read_text()
    assert "absint compare" in text.splitlines()[4] and "--markdown" in text.splitlines()[4]
    assert "| A | 2 |" in text and "| B | 1 |" in text and "| **total** | 3 |" in text
    assert "Unsound verdicts: **0**" in text


def test_missing_z3_is_a_clear_usage_error(write_program, tmp_path, monkeypatch, capsys):
    from absint.compare import z3_solver

    def missing():
        raise MissingExtra(z3_solver.INSTALL_HINT)

    monkeypatch.setattr(z3_solver, "require_z3", missing)
    rc = main(["compare", write_program("s.smt2", SMALL), "--out", str(tmp_path / "o"), "-q"])
    assert rc == 2
    assert "pip install 'absint[z3]'" in capsys.readouterr().err


def test_missing_torch_is_a_clear_usage_error(write_program, tmp_path, monkeypatch, capsys):
    from absint.compare import shapeenv_oracle

    def missing():
        raise MissingExtra(shapeenv_oracle.INSTALL_HINT)

    monkeypatch.setattr(shapeenv_oracle, "require_torch", missing)
    rc = main(["compare", write_program("s.smt2", SMALL), "--against", "z3", "--against", "shapeenv",
               "--out", str(tmp_path / "o"), "-q", "--no-cache"])
    assert rc == 2
    assert "pip install 'absint[shapeenv]' (torch==2.13.0)" in capsys.readouterr().err


def test_spread_sample_takes_both_ends(write_program):
    files = [write_program(f"f{i}.smt2", "x" * (i + 1)) for i in range(10)]
    picked = spread_sample(files, 3)
    assert picked == [files[0], files[4], files[9]] or picked == [files[0], files[5], files[9]]
    assert spread_sample(files, None) == files


DIV_MOD = """(define-fun ceil ((x Real)) Int (ite (= (to_int x) x) (to_int x) (+ (to_int x) 1)))
(declare-const s0 Int)
(set-info :example-s0 12)
(declare-const s1 Int)
(set-info :example-s1 4)
(declare-const u0 Int)
(assert (>= s0 0))
(assert (> s1 0))
(assert (= (mod s0 4) 0))
(assert (= (* (div s0 4) 4) s0))
(assert (= (mod s0 s1) 0))
(assert (>= (div s0 (- 2)) (- 6)))
(assert (<= (ceil (/ s0 2)) s0))
(assert (>= u0 0))
(assert (>= (+ u0 1) 1))
(assert (< s0 s0))
"""


def test_shapeenv_runs_the_compilers_way(tmp_path):
    pytest.importorskip("torch")
    from absint.compare import shapeenv_oracle

    r = shapeenv_oracle.run_file(DIV_MOD.encode())
    assert r.error is None and len(r.letters) == 10
    assert set(r.letters) <= set("TF?ne")
    # no sign assumption: s0 >= 0 is a real guard, and so is u0 >= 0
    assert r.letters[0] == "?" and r.letters[7] == "?"
    assert r.letters[8] == "T"  # u0 + 1 >= 1 from the runtime assert u0 >= 0
    assert r.letters[9] == "F"  # sympy folds s0 < s0 to false
    assert r.positive_divisor_reading == 1  # (mod s0 s1) read as PythonMod with s1 > 0 at the example


def test_compare_with_shapeenv(write_program, tmp_path):
    pytest.importorskip("torch")
    rc, summary = run_compare(tmp_path, write_program("s.smt2", SMALL), "--against", "z3", "--against", "shapeenv")
    assert rc == 0
    assert summary["totals"]["shapeenv"]["asserts"] == 4
    conf = summary["confusion_shapeenv_x_z3"]
    assert conf["T"].get("?", 0) == 0


class EchoOracle(Oracle):
    """A test-only third oracle: repeats absint's letters, in no time."""

    name = "echo"
    title = "Echo"
    full_title = "an echo of absint"
    line_style = ("tab:purple", ":")
    version_label = "Echo"

    def version(self) -> str:
        return "1.0"

    def run(self, case: Case) -> OracleOutcome:
        letters = case.absint.letters
        return OracleOutcome(Answers(letters, (0.0,) * len(letters), 0.0, {"echoed": len(letters)}))

    def totals(self, answers: list[Answers]) -> dict:
        return {"echoed": sum(a.details["echoed"] for a in answers)}

    def notes(self, totals) -> list[str]:
        return [f"Echo repeated {totals['echoed']} letters"]


def test_a_third_oracle_is_one_module_and_one_registry_row(write_program, tmp_path, monkeypatch, capsys):
    module = types.ModuleType("echo_oracle")  # the one new module...
    module.from_args = lambda args: EchoOracle()
    monkeypatch.setitem(sys.modules, "echo_oracle", module)
    monkeypatch.setitem(registry.ORACLES, "echo", "echo_oracle")  # ...and the one registry row
    md = tmp_path / "precision.md"
    rc, summary = run_compare(tmp_path, write_program("small.smt2", SMALL), "--against", "z3", "--against", "echo",
                              "--markdown", str(md))
    text = capsys.readouterr().out
    assert rc == 0
    assert summary["reasoners"] == ["absint", "z3", "echo"]
    assert summary["versions"]["echo"] == "1.0"
    assert summary["totals"]["echo"]["asserts"] == 4 and summary["totals"]["echo"]["echoed"] == 4
    assert summary["totals"]["echo"]["T"] == summary["totals"]["absint"]["T"]
    assert summary["ratios"]["echo/absint CPU"] == 0
    echo_x_absint = summary["confusion_absint_x_echo"]
    assert all(n == 0 for x, row in echo_x_absint.items() for y, n in row.items() if x != y)
    assert summary["echo_sample"]["echo"]["asserts"] == 4
    assert summary["files"][0]["echo"]["letters"] == summary["files"][0]["absint"]["letters"]
    assert "  Echo " in text and "Echo (rows) x Z3 (columns)" in text and "Echo repeated 4 letters" in text
    with open(tmp_path / "out" / "asserts.csv", newline="") as fh:
        head = next(csv.reader(fh))
    assert head[-4:] == ["echo", "absint_seconds", "z3_seconds", "echo_seconds"]
    doc = md.read_text()
    assert doc.startswith("# Precision and speed: absint against Z3 and an echo of absint")
    assert "## Echo, on 1 file(s)" in doc and "| Echo | 1 | 4 |" in doc
    assert "--against echo" in doc.splitlines()[4]


def test_against_offers_the_registered_oracles_but_not_absint(capsys):
    assert registry.against_choices() == ("z3", "shapeenv")
    with pytest.raises(SystemExit):
        main(["compare", "x.smt2", "--against", "absint"])
    assert "invalid choice" in capsys.readouterr().err


def test_json_prints_summary_json_on_stdout_instead_of_the_table(write_program, tmp_path, capsys):
    path = write_program("jagged.smt2", jagged_split(4, 0))
    rc = main(["compare", path, "--out", str(tmp_path / "out"), "--no-cache", "--quiet", "--json"])
    printed = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert printed == json.loads((tmp_path / "out" / "summary.json").read_text())
    assert [f["file"] for f in printed["files"]] == ["jagged.smt2"] and printed["unsound_count"] == 0


def test_absint_is_timed_by_a_wrapper_with_the_same_verdicts():
    """The absint oracle times each assert by wrapping a reasoner, not by subclassing it: the
    wrapped reasoner gives the verdicts a plain one gives, with one time per assert."""
    from absint.analysis import analyze_program
    from absint.compare.absint_oracle import TimedReasoner
    from absint.readers.smtlib import parse

    program = parse(jagged_split(6, seed=3), "j.smt2")
    inner = Reasoner()
    timed = TimedReasoner(inner)
    assert not isinstance(timed, Reasoner)
    letters = analyze_program(program, reasoner=timed).letters
    assert letters == analyze_program(program).letters and "T" in letters
    assert len(timed.times) == len(program.facts) and all(t >= 0 for t in timed.times)
    assert timed.contradiction is inner.contradiction is False
