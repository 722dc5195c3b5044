"""The synthetic programs of benchmarks.generators: they parse, hold at the example
point (plus the witness for unbacked symbols), and their T/? claims agree with Z3."""

from __future__ import annotations

import os

import pytest

from absint.lang.evaluator import evaluate
from absint.readers.smtlib import parse
from benchmarks import generators as G
from repo_paths import EXAMPLES

CASES = [
    ("jagged", 1, 0), ("jagged", 3, 1), ("jagged", 8, 0), ("jagged", 8, 7),
    ("jagged_links", 1, 0), ("jagged_links", 8, 7), ("jagged_chain", 1, 0), ("jagged_chain", 8, 7),
    ("chain", 1, 0), ("chain", 2, 3), ("chain", 16, 0), ("chain", 16, 5),
    ("reshape", 0, 0), ("reshape", 1, 2), ("reshape", 3, 0), ("reshape", 5, 4),
    ("conv", 0, 0), ("conv", 1, 1), ("conv", 4, 0), ("conv", 6, 3), ("conv", 9, 11),
    ("attention", 1, 0), ("attention", 1, 6), ("attention", 2, 1),
    ("pool_skip", 1, 0), ("pool_skip", 2, 1), ("pool_skip", 3, 0), ("pool_skip", 4, 2),
]
LARGE = [("jagged", 500, 1), ("jagged_links", 300, 1), ("jagged_chain", 300, 1), ("chain", 2000, 2), ("reshape", 60, 3), ("conv", 40, 4), ("attention", 12, 5)]


def _holds_everywhere(g: G.Generated) -> None:
    program = parse(g.text, f"{g.kind}.smt2")
    assert program.hints() == g.hints
    assert {s.name for s in program.unbacked} == set(g.witness)
    assert len(program.facts) == len(g.claims)
    point, memo = g.point, {}
    for fact in program.facts:
        assert evaluate(fact.term, point, memo) is True, f"{g.kind}: assert {fact.index} {fact.term!r} fails"


@pytest.mark.parametrize("kind,n,seed", CASES + LARGE)
def test_parses_and_holds_at_example_plus_witness(kind, n, seed):
    _holds_everywhere(G.build(kind, n, seed))


@pytest.mark.parametrize("kind,n,seed", CASES)
def test_deterministic_and_text_functions_agree(kind, n, seed):
    g = G.build(kind, n, seed)
    assert G.build(kind, n, seed).text == g.text
    text = {
        "jagged": lambda: G.jagged_split(n, seed),
        "jagged_links": lambda: G.build_jagged_split(n, seed, total="links").text,
        "jagged_chain": lambda: G.build_jagged_split(n, seed, total="chain").text,
        "chain": lambda: G.le_chain(n, seed),
        "reshape": lambda: G.reshape_chain(n, seed),
        "conv": lambda: G.conv_stack(n, seed),
        "attention": lambda: G.attention_block(seed, n),
        "pool_skip": lambda: G.pool_skip(n, seed),
    }[kind]()
    assert text == g.text
    lines = g.text.splitlines()
    assert tuple(lines[: len(G.PRELUDE) - 1]) == G.PRELUDE[:-1]
    assert lines[-1] == "(check-sat)"
    # comments after each assert carry the claims
    assert [ln.rsplit("; ", 1)[1] for ln in lines if ln.startswith("(assert ")] == g.claims


def test_jagged_witness_and_int64():
    w = G.jagged_split_witness(8, 0)
    g = G.build_jagged_split(8, 0)
    assert w == g.witness and sorted(w) == sorted(f"u{i}" for i in range(8))
    assert g.hints == {"values_size0": sum(w.values())}
    big = G.build_jagged_split(5000, 9)
    assert 0 < big.hints["values_size0"] <= G.INT64_MAX
    assert g.claims.count(G.IMPLIED) == 3 * 8


def test_le_chain_witness():
    w = G.le_chain_witness(20, 1)
    values = [w[f"u{i}"] for i in range(20)]
    assert values == sorted(values) and values[0] >= 0


def test_each_kind_has_real_and_implied_guards():
    for kind in G.BUILDERS:
        claims = G.build(kind, None, 0).claims
        assert G.IMPLIED in claims and G.REAL in claims, kind
    # the reshape and conv generators add real guards after the implied ones
    for kind in ("reshape", "conv"):
        claims = G.build(kind, None, 0).claims
        assert G.REAL in claims[claims.index(G.IMPLIED):], kind


# ---------------------------------------------------------------- Z3 confirms the claims


def _z3_verdicts(text: str, timeout_ms: int = 5000) -> str:
    """For each assert: T if Z3 proves it from the asserts before it, ? if it finds a
    counterexample, u if it gives up. A fresh solver per query: the incremental one
    gives up on the nonlinear ``mod`` guards."""
    z3 = pytest.importorskip("z3")
    asserts = list(z3.parse_smt2_string(text))
    out = []
    for i, a in enumerate(asserts):
        s = z3.Solver()
        s.set("timeout", timeout_ms)
        s.add(*asserts[:i])
        s.add(z3.Not(a))
        r = s.check()
        out.append("T" if r == z3.unsat else "?" if r == z3.sat else "u")
    return "".join(out)


@pytest.mark.parametrize("kind,n,seed", CASES)
def test_z3_agrees_with_claims(kind, n, seed):
    g = G.build(kind, n, seed)
    assert _z3_verdicts(g.text) == "".join(g.claims)


# ---------------------------------------------------------------- command line


def test_cli_writes_file_and_stdout(tmp_path, capsys):
    out = tmp_path / "j.smt2"
    assert G.main(["jagged", "--n", "4", "--seed", "2", "--out", str(out)]) == 0
    assert out.read_text() == G.jagged_split(4, 2)
    assert G.main(["conv", "--n", "2"]) == 0
    assert capsys.readouterr().out == G.conv_stack(2, 0)


def test_cli_help_lists_kinds(capsys):
    with pytest.raises(SystemExit) as e:
        G.main(["--help"])
    assert e.value.code == 0
    text = capsys.readouterr().out
    for kind in ("jagged", "chain", "reshape", "conv", "attention", "pool_skip", "examples"):
        assert kind in text


def test_examples_mode_matches_checked_in_examples(tmp_path):
    written = G.write_examples(str(tmp_path))
    assert sorted(os.path.basename(p) for p in written) == sorted(G.EXAMPLES)
    for path in written:
        mine = os.path.join(EXAMPLES, os.path.basename(path))
        if os.path.exists(mine):  # the checked-in copies are regenerated, not edited
            with open(mine) as f, open(path) as g:
                assert f.read() == g.read(), f"{mine} is stale: python -m benchmarks.generators examples"
