"""What independent fuzzing found (issue 15), each a regression test: wrong answers, errors
that escaped as tracebacks, unbounded work. The division rules' soundness with zero
divisors is in test_rules_soundness.py; batch faults are in test_batch.py."""

from __future__ import annotations

import time
from fractions import Fraction

import pytest
import sympy

from absint import ConflictingSymbol, ShapeReasoner, Truth, UndefinedAtHints, UnsupportedExpression
from absint.lang import terms as T
from absint.lang.numerals import int_text, parse_int
from absint.lang.printer import to_smtlib
from absint.readers.smtlib import SmtLibError, parse
from absint.reasoning.reasoner import Reasoner
from benchmarks import fuzz

x, y = T.var("x", T.INT), T.var("y", T.INT)


def analyze(text: str) -> str:
    from absint.analysis import analyze_program

    return analyze_program(parse(text, "t.smt2")).letters


def seconds(f) -> float:
    start = time.process_time()
    f()
    return time.process_time() - start


# ---------------------------------------------------------------- wrong answers (API sorts and hints)


def test_a_real_symbol_is_real():
    r = ShapeReasoner()
    h = r.declare(sympy.Symbol("h", real=True))
    assert r.decide(sympy.Eq(2 * h, 1)).truth is Truth.UNKNOWN  # h = 1/2 satisfies it
    r.assume(sympy.Eq(2 * h, 1))
    assert r.decide(sympy.Eq(h, sympy.Rational(1, 2))).truth is Truth.TRUE


def test_two_symbols_of_one_name_are_refused():
    r = ShapeReasoner()
    a, b = sympy.Symbol("y", integer=True), sympy.Symbol("y", positive=True)
    r.declare(a, hint=3)
    with pytest.raises(ConflictingSymbol, match="two different sympy symbols are named y"):
        r.decide(a + b > 0)


def test_a_non_integral_hint_of_an_int_symbol_is_an_error():
    r = ShapeReasoner()
    with pytest.raises(ValueError, match="not an integer"):
        r.declare("s", hint=1.5)
    assert r.evaluate(r.declare("t", hint=2.0) > 1) is True  # an integral float is that integer


# ---------------------------------------------------------------- errors, not tracebacks


def test_a_numeral_of_any_length_is_read_and_printed():
    big = "9" * 5000
    program = parse(f"(declare-const x Int)(set-info :example-x 3)(assert (< x {big}))", "t.smt2")
    (fact,) = program.facts
    assert parse_int(big) == 10**5000 - 1 and int_text(10**5000 - 1) == big
    again = parse(f"(declare-const x Int)(assert {to_smtlib(fact.term)})", "t.smt2").facts[0].term
    assert again is fact.term
    assert analyze(f"(declare-const x Int)(assert (< x {big}))(assert (< x {big}1))") == "?T"


def test_constants_beyond_the_float_range_do_not_overflow():
    huge = T.const(10**400)
    r = Reasoner()
    r.assume(T.le(T.mul(x, huge), T.add(y, huge)))
    r.assume(T.ge(x, T.const(-(10**400))))
    assert r.decide(T.le(T.add(T.scale(x, 10**400), T.neg(y)), huge)).truth is Truth.TRUE
    assert r.bounds(T.add(T.scale(x, 10**500), huge)) == (-(10**900) + 10**400, float("inf"))


def test_deep_definition_chains_are_analysed_without_recursion_errors():
    lines = ["(declare-const x Int)", "(set-info :example-x 3)", "(define-fun d0 () Int x)"]
    lines += [f"(define-fun d{i} () Int (+ (div d{i - 1} 2) x))" for i in range(1, 20000)]
    lines.append("(assert (>= d19999 (- 1)))")
    deep_bool = ["(declare-const x Int)", "(define-fun b0 () Bool (> x 0))"]
    deep_bool += [f"(define-fun b{i} () Bool (and (not b{i - 1}) (> x {i % 7})))" for i in range(1, 5000)]
    deep_bool.append("(assert (not b4999))(assert (not b4998))")
    assert len(analyze("\n".join(lines))) == 1 and len(analyze("\n".join(deep_bool))) == 2


@pytest.mark.parametrize("call, error, text", [
    (lambda r, s: r.decide(sympy.Function("FloorDiv")(s) > 1), UnsupportedExpression, "takes 2 argument"),
    (lambda r, s: r.decide(sympy.Function("ModularIndexing")(s, 2) > 1), UnsupportedExpression, "takes 3"),
    (lambda r, s: ShapeReasoner(budget="x"), TypeError, "budget must be a positive int"),
    (lambda r, s: ShapeReasoner(budget=-1), ValueError, "at least 1"),
    (lambda r, s: r.upper_bound(s + 1, in_terms_of=[1, None]), TypeError, "in_terms_of"),
    (lambda r, s: r.decide([s > 1]), TypeError, "takes a sympy expression, got list"),
    (lambda r, s: r.evaluate(sympy.Mod(5, s - 4) > 1), UndefinedAtHints, "no value at the example point"),
    (lambda r, s: r.decide("__import__('os').getpid() > 1"), TypeError, "strings are not parsed"),
    (lambda r, s: r.assume("s > 1"), TypeError, "strings are not parsed"),
])
def test_api_misuse_gets_a_clear_documented_exception(call, error, text):
    r = ShapeReasoner()
    s = r.declare("s", hint=4)
    with pytest.raises(error, match=text):
        call(r, s)


# ---------------------------------------------------------------- bounded work


def test_huge_powers_and_roots_are_unknown_not_a_hang():
    assert seconds(lambda: analyze("(declare-const x Int)(set-info :example-x 3)"
                                   "(assert (< x (^ 2 10000000000)))(assert (< x (^ 2 10000000001)))")) < 5
    r = ShapeReasoner()
    s = r.declare("s", hint=2)
    with pytest.raises(UndefinedAtHints, match="too large"):
        r.evaluate(s ** (10**9) > 5)
    p = r.declare(sympy.Symbol("p", positive=True))
    assert seconds(lambda: r.decide(p ** sympy.Rational(1, 10**9) > 1)) < 5


def test_messages_are_short_and_cheap_on_shared_terms():
    text = "(declare-const x Int)\n(define-fun t0 () Int (+ x 1))\n"
    text += "".join(f"(define-fun t{i} () Int (* t{i - 1} t{i - 1}))\n" for i in range(1, 40))
    with pytest.raises(SmtLibError) as e:
        parse(text + "(assert (+ t39 true))\n", "s.smt2")
    assert len(str(e.value)) < 400
    stray = "(declare-const x Int)\n(assert (> x |0))\n" + "(assert (> x 1))\n" * 2000 + "|\n"
    with pytest.raises(SmtLibError) as e:
        parse(stray, "q.smt2")
    assert len(str(e.value)) < 400 and str(e.value).startswith("q.smt2:2:")


def test_printing_follows_the_dag():
    t = T.add(x, T.const(1))
    for k in range(60):
        t = T.add(T.div(t, T.const(2)), T.mul(t, y), T.const(k))
    text = to_smtlib(t)
    assert len(text) < 20000 and "(let ((@t1 " in text
    assert parse(f"(declare-const x Int)(declare-const y Int)(define-fun output0_o () Int {text})").outputs[0][1] is t


def test_macro_applications_are_expanded_once_and_long_distincts_stay_linear():
    macros = "(define-fun m0 ((a Int)) Int (+ a 1))\n" + "".join(
        f"(define-fun m{i} ((a Int)) Int (+ (m{i - 1} a) (m{i - 1} a)))\n" for i in range(1, 40))
    assert seconds(lambda: parse("(declare-const x Int)" + macros + "(assert (> (m39 x) 0))")) < 2
    n = 10000
    text = "".join(f"(declare-const v{i} Int)" for i in range(n)) + "(assert (distinct " + \
        " ".join(f"v{i}" for i in range(n)) + "))(assert (> v0 0))"
    assert seconds(lambda: analyze(text)) < 10


def test_reading_cost_is_linear_in_the_file():
    from benchmarks import generators as G

    one = G.build("conv", 4, seed=1).text
    asserts = "".join(line + "\n" for line in one.splitlines() if line.startswith("(assert"))
    small = one + asserts * 20
    large = one + asserts * 40
    t_small = min(seconds(lambda: parse(small)) for _ in range(3))
    t_large = min(seconds(lambda: parse(large)) for _ in range(3))
    assert t_large < 3.5 * t_small  # doubling the file: time about doubles (not 4x)


def test_builtin_operators_cannot_be_redefined_but_constants_may_share_their_names():
    with pytest.raises(SmtLibError, match="'\\+' is a builtin name"):
        parse("(define-fun + ((a Int) (b Int)) Int (- a b))(declare-const x Int)(assert (= (+ x 1) (- x 1)))")
    with pytest.raises(SmtLibError, match="'true' is a builtin name"):
        parse("(define-fun true () Bool false)")
    program = parse("(declare-const s Int)(define-fun mod () Int (mod s 4))(assert (= mod 1))")  # as PyTorch writes
    assert program.facts[0].term is T.eq(T.mod(T.var("s", T.INT), T.const(4)), T.ONE)


# ---------------------------------------------------------------- the fuzzer itself, briefly


def test_fuzzed_programs_give_documented_errors_and_z3_confirmed_verdicts():
    pytest.importorskip("z3")
    outcomes = [fuzz.run_one(seed, budget=10) for seed in range(30)]
    bad = [o for o in outcomes if o["outcome"] in ("crash", "timeout") or o["wrong"]]
    assert not bad, bad[:3]
    assert sum(o["checked"] for o in outcomes) > 25  # verdicts really were checked
    assert {o["outcome"] for o in outcomes} == {"analysed", "read error"}


def test_a_fuzzing_worker_that_dies_names_its_input_and_the_run_goes_on(monkeypatch):
    """The long run once lost everything to one worker the OOM killer took: now the inputs
    of a dead worker are run again one by one, and the one that kills its worker is a crash."""
    pytest.importorskip("z3")
    monkeypatch.setenv("ABSINT_FAULT_INJECTION", "kill-worker:fuzz5.smt2")
    monkeypatch.setattr(fuzz, "CHUNK", 4)  # two chunks: the dead one and one running beside it
    seen = list(fuzz.outcomes(8, 0, 2, 10.0, 300, 0))
    assert sorted(o["seed"] for o in seen) == list(range(8))
    crashed = [o for o in seen if o["outcome"] == "crash"]
    assert [o["seed"] for o in crashed] == [5] and "worker process died" in crashed[0]["error"]
