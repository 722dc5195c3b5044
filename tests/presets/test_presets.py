"""Presets (absint/presets): facts recognised from the corpus naming, checked at the example
point (a failing one refused with that fact, exit status 2), assumed ahead of the asserts by
analyze / bounds / check / outputs; ``absint presets``: open guards per preset, and every
printed excluded input re-checked here with the evaluator."""

from __future__ import annotations

import json
import os

import pytest

from absint.batch.analyze import analyze_file, analyze_program
from absint.cli import main
from absint.lang import terms as T
from absint.lang.evaluator import truth_at
from absint.lang.kinds import MUL
from absint.presets import explore as E
from absint.presets import facts as F
from absint.readers.smtlib import parse
from benchmarks import generators as G
from benchmarks.generators import PRELUDE_TEXT

POOLED = G.build_pooled_input(2, 0)

#: a transposed (non-contiguous) input: contiguous is refused; y_size1 traced at 1 is static
TRANSPOSED = PRELUDE_TEXT + """
(declare-const y_size0 Int)
(set-info :example-y_size0 4)
(declare-const y_size1 Int)
(set-info :example-y_size1 1)
(declare-const y_size2 Int)
(set-info :example-y_size2 4)
(declare-const y_stride0 Int)
(set-info :example-y_stride0 1)
(declare-const y_stride1 Int)
(set-info :example-y_stride1 4)
(declare-const y_stride2 Int)
(set-info :example-y_stride2 4)
(declare-const z_size0 Int)
(set-info :example-z_size0 0)
(assert (>= y_size0 0))
(assert (not (= y_size0 1)))
(assert (>= y_size2 y_size0))
(define-fun output0_size0 () Int (* y_size0 y_size2))
"""


def program(text: str = POOLED.text, name: str = "p.smt2"):
    return parse(text, name)


# ---------------------------------------------------------------- the facts


def test_tensors_are_recognised_from_the_corpus_naming():
    ts = {t.name: t for t in F.tensors(program())}
    assert set(ts) == {"x", "bias"}
    assert [d for d, _ in ts["x"].sizes] == [0, 1, 2, 3] and ts["x"].offset.name == "x_storage_offset"
    assert ts["bias"].rank == 1


def test_each_preset_builds_its_facts():
    p = program()
    texts = lambda names: [f.text for f in F.preset_facts(p, names)]  # noqa: E731
    layout = ["x_stride0", "x_stride1", "x_stride2", "x_stride3", "x_storage_offset", "bias_stride0"]
    assert texts(("nonneg",)) == [f"{n} >= 0" for n in ("x_size0", "x_size1", "x_size2", "x_size3", "bias_size0")
                                  + tuple(layout)]
    assert texts(("contiguous",)) == ["x_size3 == 1 or numel(x) == 0 or x_stride3 == 1",
                                      "x_size2 == 1 or numel(x) == 0 or x_stride2 == x_size3",
                                      "x_size1 == 1 or numel(x) == 0 or x_stride1 == x_size2*x_size3",
                                      "x_size0 == 1 or numel(x) == 0 or x_stride0 == x_size1*x_size2*x_size3",
                                      "bias_size0 == 1 or numel(bias) == 0 or bias_stride0 == 1"]
    assert texts(("dense",)) == ["x_stride3 == 1", "x_stride2 == max(1, x_size3)",
                                 "x_stride1 == max(1, x_size2)*max(1, x_size3)",
                                 "x_stride0 == max(1, x_size1)*max(1, x_size2)*max(1, x_size3)",
                                 "x_storage_offset == 0", "bias_stride0 == 1"]
    assert texts(("duck",)) == ["bias_size0 == x_size1"]
    # a combination keeps each fact once, in preset order
    assert len(F.preset_facts(p, ("nonneg", "ge1"))) == 16


def test_contiguous_is_what_is_contiguous_checks():
    """Against PyTorch's own ``Tensor.is_contiguous`` on every layout of small sizes and
    strides: the preset's facts hold exactly where torch says contiguous (a size-1
    dimension's stride is free, an empty tensor is contiguous); ``dense`` only on the
    layout ``torch.empty`` allocates."""
    torch = pytest.importorskip("torch")
    import itertools

    text = PRELUDE_TEXT + "".join(f"(declare-const t_{k} Int)\n" for k in
                                  ("size0", "size1", "stride0", "stride1", "storage_offset"))
    p = program(text)
    contiguous, dense = F.preset_facts(p, ("contiguous",)), F.preset_facts(p, ("dense",))
    for s0, s1, st0, st1 in itertools.product(range(3), range(3), range(4), range(3)):
        point = {"t_size0": s0, "t_size1": s1, "t_stride0": st0, "t_stride1": st1, "t_storage_offset": 0}
        tensor = torch.empty(64).as_strided((s0, s1), (st0, st1))
        holds = all(truth_at(f.term, point) for f in contiguous)
        assert holds == tensor.is_contiguous(), point
        fresh = torch.empty(s0, s1)
        assert all(truth_at(f.term, point) for f in dense) == ((st0, st1) == fresh.stride()), point


def _followed(p, names, sizes: dict[str, int], declared=()) -> dict[str, int]:
    """The example point with ``sizes`` moved and the preset's followers recomputed."""
    from absint.lang.evaluator import evaluate

    point = {**p.hints(), **sizes}
    for name, value in F.followers(p, names, declared):
        point[name] = evaluate(value, point)
    return point


@pytest.mark.parametrize("names", [("contiguous",), ("dense",), ("duck",), ("ge2", "contiguous", "duck")])
def test_the_symbols_a_preset_determines_follow_into_its_facts(names):
    """At every point of sizes 0..3 (x's four, bias's one), the followers' values satisfy the
    preset's facts: what ``inputs --within`` considers is inside the preset. With x_size1
    declared, duck's bias_size0 follows it (not the other way round)."""
    import itertools

    p = program()
    facts = [f.term for f in F.preset_facts(p, tuple(n for n in names if n != "ge2"))]
    declared = ("x_size1",)
    assert ("bias_size0", p.symbol("x_size1").term) in F.followers(p, names, declared) or "duck" not in names
    for values in itertools.product(range(4), repeat=5):
        sizes = dict(zip(("x_size0", "x_size1", "x_size2", "x_size3", "bias_size0"), values))
        point = _followed(p, names, sizes, declared)
        assert all(truth_at(f, point) is True for f in facts), (names, point)


def test_planted_error_a_stride_following_one_size_too_few_is_caught(monkeypatch):
    """A layout follower without its last factor (``x_stride1 = x_size2``) breaks the facts."""
    real = F.FOLLOWERS["contiguous"]
    monkeypatch.setitem(F.FOLLOWERS, "contiguous", lambda p, declared: [
        (n, v.args[0] if v.kind == MUL else v) for n, v in real(p, declared)])
    with pytest.raises(AssertionError):
        test_the_symbols_a_preset_determines_follow_into_its_facts(("contiguous",))


def test_duck_leaves_out_sizes_traced_at_0_or_1():
    text = PRELUDE_TEXT + "".join(f"(declare-const {n} Int)\n(set-info :example-{n} {v})\n"
                                  for n, v in (("a_size0", 1), ("b_size0", 1), ("c_size0", 5), ("d_size0", 5)))
    assert [f.text for f in F.preset_facts(program(text), ("duck",))] == ["d_size0 == c_size0"]


def test_ge2_leaves_out_sizes_traced_at_0_or_1():
    p = program(TRANSPOSED)
    assert [f.text for f in F.preset_facts(p, ("ge2",))] == ["y_size0 >= 2", "y_size2 >= 2", "y_stride0 >= 0",
                                                             "y_stride1 >= 0", "y_stride2 >= 0"]


def test_parse_orders_names_and_refuses_unknown_ones():
    assert F.parse("duck,ge2") == ("ge2", "duck")
    assert F.parse(["ge2", "contiguous,ge2"]) == ("ge2", "contiguous")
    with pytest.raises(F.PresetError, match="unknown preset 'ge3'"):
        F.parse("ge3")


def test_a_fact_false_at_the_example_point_is_refused_with_that_fact():
    p = program(TRANSPOSED)
    with pytest.raises(F.PresetRefused, match=r"preset contiguous refused: y_size2 == 1 or numel\(y\) == 0 or "
                                              r"y_stride2 == 1 is false at the example point"):
        F.checked_facts(p, ("contiguous",))
    with pytest.raises(F.PresetRefused, match="preset ge1 refused: z_size0 >= 1"):
        F.checked_facts(p, ("ge1",))


@pytest.mark.parametrize("name", list(G.EXAMPLES))
def test_accepted_preset_facts_hold_at_the_example_point(name):
    g = G.build(*G.EXAMPLES[name])
    p = program(g.text, name)
    for preset in F.PRESETS:
        facts = F.preset_facts(p, (preset,))
        if F.refused_fact(p, facts) is None:
            assert all(truth_at(f.term, p.hints()) is True for f in facts if not set(
                v.data for v in T.free_vars(f.term)) - set(p.hints()))


# ---------------------------------------------------------------- assumed by the commands


def test_presets_close_guards_and_no_verdict_is_contradicted_at_the_example_point():
    p = program()
    base = analyze_program(p)
    with_presets = analyze_program(p, presets=("ge2", "contiguous", "duck"))
    assert with_presets.letters.count("?") < base.letters.count("?")
    assert with_presets.example_violations == () and "F" not in with_presets.letters


def test_analyze_records_the_presets_and_a_refusal(write_program):
    path = write_program("t.smt2", TRANSPOSED)
    record = analyze_file(path, presets=("ge2",)).to_json()
    assert record["presets"] == ["ge2"] and record["error"] is None
    refused = analyze_file(path, presets=("contiguous",)).to_json()
    assert refused["preset_refused"] is True and "y_stride2 == 1" in refused["error"]


@pytest.mark.parametrize("command", ["analyze", "bounds", "check", "outputs"])
def test_a_refused_preset_exits_with_2_and_names_the_fact(write_program, capsys, command):
    path = write_program("t.smt2", TRANSPOSED)
    extra = ["--jobs", "1", "-q"] if command == "analyze" else []
    code = main([command, *extra, "--preset", "contiguous", path])
    out, err = capsys.readouterr()
    assert code == 2 and "y_stride2 == 1 is false at the example point" in out + err
    assert main([command, *extra, "--preset", "ge2", path]) == 0
    capsys.readouterr()


def test_analyze_resume_keeps_only_records_of_the_same_presets(write_program, tmp_path, capsys):
    path = write_program("p.smt2", POOLED.text)
    out = str(tmp_path / "out.jsonl")
    assert main(["analyze", "-q", "--jobs", "1", "--jsonl", out, path]) == 0
    assert main(["analyze", "-q", "--jobs", "1", "--jsonl", out, "--resume", "--preset", "ge2", path]) == 0
    records = [json.loads(line) for line in open(out)]
    assert [r.get("presets") for r in records] == [["ge2"]]
    capsys.readouterr()


def test_bounds_with_a_preset_knows_more(write_program, capsys):
    path = write_program("p.smt2", POOLED.text)
    main(["bounds", "--json", "--symbol", "x_size0", path])
    plain = json.loads(capsys.readouterr()[0])["symbols"][0]
    main(["bounds", "--json", "--symbol", "x_size0", "--preset", "ge2", path])
    assumed = json.loads(capsys.readouterr()[0])["symbols"][0]
    assert (plain["lo"], assumed["lo"]) == (0, 2)


# ---------------------------------------------------------------- absint presets


def _witnesses_hold(p, rows) -> int:
    """Every excluded input printed: each assert holds there and its fact does not."""
    checked = 0
    for row in rows:
        for f in row.facts:
            if f.witness is not None:
                point = {**p.hints(), **f.witness}
                assert all(truth_at(a.term, point) is True for a in p.facts)
                assert truth_at(f.fact.term, point) is False
                checked += 1
    return checked


def test_explore_counts_open_guards_and_checks_every_excluded_input():
    p = program()
    rows = {r.label: r for r in E.explore(p)}
    assert len(rows["ge2,contiguous,duck"].open) < len(rows["ge2"].open) < len(rows["none"].open)
    assert rows["none"].open == E.open_asserts(p)
    assert not any(f.implied for f in rows["ge1"].facts if f.fact.text == "x_size0 >= 1")
    assert _witnesses_hold(p, rows.values()) >= 3


def test_a_refused_combination_has_no_open_count(tmp_path):
    rows = {r.label: r for r in E.explore(program(TRANSPOSED))}
    assert rows["contiguous"].refused is not None and rows["ge2,contiguous"].refused is not None
    assert rows["ge2"].refused is None


def test_presets_command_table_and_json(write_program, capsys):
    path = write_program("p.smt2", POOLED.text)
    assert main(["presets", path]) == 0
    out = capsys.readouterr()[0]
    assert "ge2,contiguous,duck" in out and "x_size0 >= 1    x_size0 = 0" in out
    assert main(["presets", "--json", "--preset", "none", "--preset", "ge2,duck", path]) == 0
    record = json.loads(capsys.readouterr()[0])
    assert set(record) == {"file", "asserts", "rows", "error"}
    assert [r["presets"] for r in record["rows"]] == ["none", "ge2,duck"]
    assert set(record["rows"][1]["facts"][0]) == {"preset", "fact", "text", "implied", "witness", "found_by",
                                                  "points"}


def test_presets_verbose_says_how_each_witness_was_found(write_program, capsys):
    path = write_program("p.smt2", POOLED.text)
    assert main(["presets", "--preset", "ge1", "--json", path]) == 0
    facts = [f for r in json.loads(capsys.readouterr()[0])["rows"] for f in r["facts"] if not f["implied"]]
    assert facts and all(f["found_by"] in E.engine.STRATEGIES and f["points"] >= 1 for f in facts)
    assert main(["presets", "--preset", "ge1", "-v", path]) == 0
    out = capsys.readouterr()[0]
    for f in facts:
        assert f"[{f['found_by']}, {f['points']} point(s) checked]" in out
    assert out.rstrip().endswith("s of CPU")


def test_presets_command_refuses_an_unknown_preset(write_program, capsys):
    assert main(["presets", "--preset", "ge9", write_program("p.smt2", POOLED.text)]) == 2
    assert "unknown preset 'ge9'" in capsys.readouterr()[1]


@pytest.mark.corpus
def test_on_corpus_files_every_excluded_input_is_accepted_and_excluded(corpus):
    names = sorted(os.listdir(corpus))[::150]
    checked = 0
    for name in names:
        with T.fresh_table():
            p = parse((corpus / name).read_text(), name)
            rows = E.explore(p, [("ge2", "contiguous", "duck")])
            checked += _witnesses_hold(p, rows)
    assert checked > 0


def test_the_table_benchmark_runs_on_the_examples(tmp_path, capsys):
    from benchmarks import presets_table

    out = tmp_path / "table.md"
    assert presets_table.main(["examples", "--jobs", "1", "--out", str(out)]) == 0
    text = out.read_text()
    # pooled_input.smt2 goes from 17 open to 4; jagged_split.smt2's values_size0 >= 1 is not implied:
    # the search engine finds values_size0 = 0 with every unbacked length 0 (no example value, so
    # the example strategy starts them at 0); the validate/sample
    # examples (specs/, validate_pairs.smt2, conv_stack_simplified.smt2) name no tensor sizes, so no
    # preset changes them (68 open guards with and without); pool_skip.smt2 names its sizes B, C, H,
    # W and its stride x_stride0: a tensor x without size symbols, whose layout contiguous cannot
    # state (it was refused when contiguous read stride[last] = 1 there); ge2 gives x_stride0 >= 0
    assert "| ge2,contiguous,duck | 16 | 0 | 157 | 144 | 19 | 9 | 9 |" in text
    assert "16 file(s)" in text
    capsys.readouterr()


def test_the_table_benchmark_holds_absint_to_z3_under_the_same_facts(tmp_path, capsys):
    """With --z3, Z3 answers each assert with the preset's facts asserted first: on the
    examples absint proves every assert Z3 proves (pooled_input's layout guards under
    ge2,contiguous among them), none wrongly."""
    pytest.importorskip("z3")
    from benchmarks import presets_table

    out, missed = tmp_path / "table.md", tmp_path / "missed.jsonl"
    argv = ["examples", "--jobs", "1", "--preset", "ge2,contiguous", "--z3", "--out", str(out), "--missed", str(missed)]
    assert presets_table.main(argv) == 0
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ") for line in out.read_text().splitlines()[2:4]}
    assert set(rows) == {"none", "ge2,contiguous"}
    z3_proves, absint_proves, recall, wrong = rows["ge2,contiguous"][8:12]
    assert int(z3_proves) == int(absint_proves) == 144 and recall == "1.0000" and wrong == "0"
    assert missed.read_text() == ""
    capsys.readouterr()


def test_planted_error_a_wrong_proof_is_counted_by_the_table_benchmark(tmp_path, monkeypatch, capsys):
    """absint's letters with every ``?`` made ``T``: Z3's counterexamples count them wrong."""
    pytest.importorskip("z3")
    from benchmarks import presets_table

    real = E.verdict_letters
    monkeypatch.setattr(E, "verdict_letters", lambda program, presets=(): real(program, presets).replace("?", "T"))
    path = tmp_path / "pooled.smt2"
    path.write_text(POOLED.text)
    assert presets_table.main([str(path), "--preset", "ge2", "--z3", "--missed", str(tmp_path / "m.jsonl")]) == 1
    assert json.loads((tmp_path / "m.jsonl").read_text().splitlines()[0])["wrong"]
    capsys.readouterr()


def test_presets_work_with_the_budgets_and_records_made_by_the_parent_keep_them(write_program, tmp_path, monkeypatch, capsys):
    from absint.batch.executors import FAULT_ENV

    monkeypatch.setenv(FAULT_ENV, "sleep:a_slow.smt2")
    write_program("a_slow.smt2", POOLED.text)
    write_program("p.smt2", POOLED.text)
    out = str(tmp_path / "out.jsonl")
    argv = ["analyze", "-q", "--jobs", "1", "--timeout", "2", "--jsonl", out, "--preset", "ge2", str(tmp_path)]
    assert main(argv) == 1
    records = {os.path.basename(r["file"]): r for r in map(json.loads, open(out))}
    assert records["a_slow.smt2"]["error"] == "timeout: exceeded 2 s"
    assert [r["presets"] for r in records.values()] == [["ge2"], ["ge2"]]
    # resumed under the same presets: both kept; under none: both run again, without the key
    monkeypatch.delenv(FAULT_ENV)
    assert main(argv[:-1] + ["--resume", str(tmp_path)]) == 1
    assert main(["analyze", "-q", "--jobs", "1", "--jsonl", out, "--resume", str(tmp_path)]) == 0
    assert all("presets" not in r for r in map(json.loads, open(out)))
    for command in ("check", "bounds"):
        monkeypatch.setenv(FAULT_ENV, "sleep:a_slow.smt2")
        assert main([command, "--timeout", "2", "--preset", "ge2", str(tmp_path)]) == 1
        _, err = capsys.readouterr()
        assert "a_slow.smt2: timeout after 2 s" in err
    capsys.readouterr()


def test_planted_error_contiguous_as_the_strict_layout_is_caught(monkeypatch):
    """The strict layout (a size-1 dimension's stride fixed too: what ``contiguous`` meant
    before) disagrees with ``is_contiguous``; the comparison above catches it."""
    pytest.importorskip("torch")
    monkeypatch.setitem(F.PRESETS, "contiguous", ("strict", F._dense))
    with pytest.raises(AssertionError):
        test_contiguous_is_what_is_contiguous_checks()


def test_shares_count_the_asserts_of_analysed_files_only(write_program):
    """A refused file's asserts were not decided: the T/F/? shares leave them out."""
    from absint.cli.analyze import summarize

    refused = analyze_file(write_program("t.smt2", TRANSPOSED), presets=("contiguous",))
    analysed = analyze_file(write_program("u.smt2", TRANSPOSED), presets=("ge2",))
    s = summarize([refused, analysed])
    assert s["asserts"] == 2 * len(program(TRANSPOSED).facts) and s["decided_over"] == len(analysed.verdicts)
    assert s["implied"] + s["refuted"] + s["open"] == s["decided_over"]
