"""Z3 as the independent oracle of ``absint compare``: protocol, models, cache, reference file."""

from __future__ import annotations

import json
import os

import pytest

z3 = pytest.importorskip("z3")

from absint.compare import z3_solver as Z  # noqa: E402
from absint.compare.oracle import MissingExtra  # noqa: E402
from absint.compare.z3_cache import Z3Cache, check_file, default_cache_dir  # noqa: E402
from absint.compare.z3_reference import from_reference, read_reference  # noqa: E402
from absint.lang.evaluator import evaluate  # noqa: E402
from absint.readers.smtlib import parse_bytes  # noqa: E402

from benchmarks.generators import PRELUDE_TEXT as PRELUDE  # noqa: E402
from programs import FERMAT  # noqa: E402

#: the corpus dialect's corners: `-1` literals, a 0-ary define named `ceil` after the macro
#: of that name, the macro still applied afterwards, Real division, div/mod by a symbol
DIALECT = PRELUDE + """(declare-const s0 Int)
(set-info :example-s0 6)
(declare-const s1 Int)
(set-info :example-s1 3)
(define-fun ge () Bool (>= s0 -1))
(assert ge)
(define-fun gt () Bool (> s1 0))
(assert gt)
(define-fun truediv () Real (/ s0 2))
(define-fun ceil () Int (ceil truediv))
(define-fun eq () Bool (= (* ceil 2) s0))
(assert eq)
(define-fun ceil_1 () Int (ceil (/ s0 4)))
(define-fun le () Bool (<= ceil_1 ceil))
(assert le)
(define-fun mod () Int (mod s0 s1))
(define-fun eq_1 () Bool (= mod 0))
(assert eq_1)
(define-fun fd () Int (div s0 s1))
(define-fun eq_2 () Bool (= (* fd s1) s0))
(assert eq_2)
(define-fun lt () Bool (< s1 s1))
(define-fun not_ () Bool (not lt))
(assert not_)
(define-fun ge_1 () Bool (>= s0 2))
(assert ge_1)
(check-sat)
(get-value (s0 s1))
"""
#: by hand: 0 ? (first), 1 ?, 2 ? (s0 even), 3 T (ceil(s0/4) <= ceil(s0/2) for s0 >= 0), 4 ?,
#: 5 T (s1 | s0), 6 T (trivial), 7 ? (s0 = 0 is allowed)
DIALECT_LETTERS = "???T?TT?"

TIMEOUT = PRELUDE + FERMAT


def test_z3_reads_the_dialect_like_absint():
    data = DIALECT.encode()
    f = Z._File(DIALECT)
    assert len(f.asserts) == len(parse_bytes(data, "d.smt2").facts) == len(DIALECT_LETTERS)
    assert [n for n, _ in f.symbols] == ["s0", "s1"]
    # every assert holds at the example point in Z3's reading too
    s = z3.Solver(ctx=f.ctx)
    for n, c in f.symbols:
        s.add(c == {"s0": 6, "s1": 3}[n])
    for a in f.asserts:
        assert s.check(z3.Not(a)) == z3.unsat


def test_letters_follow_the_reference_protocol():
    r = Z.run_file(DIALECT.encode())
    assert r.error is None
    assert r.letters == DIALECT_LETTERS
    assert len(r.seconds) == len(DIALECT_LETTERS)
    assert all(s >= 0 for s in r.seconds)
    assert r.total_seconds >= r.parse_seconds >= 0


def test_counterexample_falsifies_the_assert_and_satisfies_the_facts():
    data = DIALECT.encode()
    r = Z.run_file(data, requests={7: {"cx"}, 3: {"cx"}})
    assert 3 not in r.extra  # implied: no counterexample to take
    cx = r.extra[7]["cx"]
    assert cx["result"] == "sat"
    model = cx["model"]
    assert set(model) == {"s0", "s1"}  # restricted to the declared symbols
    program = parse_bytes(data, "d.smt2")
    point = {k: Z.as_value(v) for k, v in model.items()}
    assert all(evaluate(f.term, point) is True for f in program.facts[:7])
    assert evaluate(program.facts[7].term, point) is False


def test_refutation_is_asked_only_when_requested():
    text = PRELUDE + """(declare-const x Int)
(set-info :example-x 7)
(assert (>= x 5))
(assert (> x 6))
(assert (< x 3))
"""
    r = Z.run_file(text.encode())
    assert r.letters == "???" and r.final_letters() == "???"
    r = Z.run_file(text.encode(), requests={1: {"refute"}, 2: {"refute"}})
    assert r.extra[2]["refute"]["result"] == "unsat"
    assert r.final_letters() == "??F"
    assert r.extra[1]["refute"]["result"] == "sat"
    assert r.extra[1]["refute"]["model"]["x"] > 6  # a witness for x > 6 given x >= 5
    assert Z.run_file(text.encode(), refute_all=True).final_letters() == "??F"


def test_facts_assumed_ahead_are_asserted_before_the_first_assert():
    """A preset's facts, read over the file's symbols: ``x >= 5`` then implies ``x > 3`` and
    refutes ``x < 5``; the letters stay one per assert of the file."""
    text = PRELUDE + """(declare-const x Int)
(set-info :example-x 7)
(assert (> x 3))
(assert (< x 5))
"""
    assert Z.run_file(text.encode(), refute_all=True).final_letters() == "??"
    assert Z.run_file(text.encode(), refute_all=True, assumed=["(>= x 5)"]).final_letters() == "TF"
    assert Z.run_file(text.encode(), assumed=["(>= y 5)"]).error.startswith("z3 cannot parse")


def test_timeouts_are_letter_u_and_the_budget_is_letter_x():
    r = Z.run_file(TIMEOUT.encode(), timeout_ms=50)
    assert r.letters == "???u"
    assert Z.run_file(TIMEOUT.encode(), budget_s=0.0).letters == "xxxx"


def test_cache_is_keyed_by_content_and_timeout(tmp_path, monkeypatch):
    calls = []
    real = Z.run_file
    monkeypatch.setattr(Z, "run_file", lambda *a, **k: calls.append(1) or real(*a, **k))
    cache = Z3Cache(str(tmp_path))
    data = DIALECT.encode()
    first = check_file(data, cache=cache)
    assert first.source == "z3" and len(calls) == 1
    second = check_file(data, cache=cache)
    assert second.source == "cache" and len(calls) == 1
    assert second.letters == first.letters and second.seconds == pytest.approx(first.seconds, abs=1e-6)
    check_file(data, cache=cache, timeout_ms=500)
    assert len(calls) == 2
    check_file(data + b"\n", cache=cache)
    assert len(calls) == 3
    assert len(list(tmp_path.glob("*.json"))) == 3
    # a request the cached run did not answer is answered (and cached) without a full run
    third = check_file(data, cache=cache, requests={7: {"cx"}})
    assert len(calls) == 3 and third.extra[7]["cx"]["result"] == "sat"
    assert check_file(data, cache=cache, requests={7: {"cx"}}).extra[7]["cx"]["model"]
    for p in tmp_path.glob("*.json"):
        json.loads(p.read_text())


def test_default_cache_dir_respects_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_dir() == os.path.join(str(tmp_path), "absint", "z3")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert default_cache_dir().endswith(os.path.join(".cache", "absint", "z3"))


def test_missing_z3_says_how_to_install(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake(name, *a, **k):
        if name == "z3":
            raise ImportError("no z3")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(MissingExtra, match=r"pip install 'absint\[z3\]'"):
        Z.require_z3()


def test_reference_lines(tmp_path):
    p = tmp_path / "ref.txt"
    p.write_text("a.smt2 TT?u 1.5\nb.smt2 - 0.000\n")
    ref = read_reference(str(p))
    assert ref == {"a.smt2": ("TT?u", 1.5), "b.smt2": ("", 0.0)}
    r = from_reference(*ref["a.smt2"])
    assert r.source == "reference" and r.seconds == [0.375] * 4 and r.total_seconds == 1.5
    # a reference '?' that Z3 now proves is read as T
    r.extra[2] = {"cx": {"result": "unsat"}}
    assert r.final_letters() == "TTTu"


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["BERT_pytorch___1.smt2", "BartForCausalLM___13.smt2"])
def test_same_letters_as_the_reference_on_corpus_files(corpus, z3_reference, name):
    if not (corpus / name).exists():
        pytest.skip(f"{name} is not in the corpus")
    ref = read_reference(str(z3_reference))[name][0]
    data = (corpus / name).read_bytes()
    r = Z.run_file(data)
    assert r.letters == ref
    assert len(parse_bytes(data, name).facts) == len(ref)
