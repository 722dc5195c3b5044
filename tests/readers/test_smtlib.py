"""absint.readers.smtlib: the reader accepts the corpus dialect and reports every problem as
``SmtLibError("NAME:LINE:COL: message")`` at the right place."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from absint.lang import terms as T
from absint.lang.evaluator import evaluate
from absint.lang.program import Position, Program
from absint.readers.smtlib import SmtLibError, parse, parse_bytes, read_file
from absint.lang.terms import BOOL, INT, REAL

from benchmarks.generators import PRELUDE_TEXT as PRELUDE  # noqa: E402
DECLS = """\
(declare-const x Int)
(set-info :example-x 3)
(declare-const y Int)
(set-info :example-y 4)
(declare-const r Real)
(set-info :example-r 2.5)
"""

x, y, z = T.var("x", INT), T.var("y", INT), T.var("z", INT)
r = T.var("r", REAL)
c = T.const


def assertion(expr: str, extra: str = "") -> T.Term:
    """The term of ``(assert expr)`` read after the prelude and the declarations of x, y, r."""
    (fact,) = parse(PRELUDE + DECLS + extra + f"(assert {expr})\n").facts
    return fact.term


def value(expr: str, sort: str = "Int", extra: str = "") -> T.Term:
    """The term of ``expr``, read as the body of an output definition."""
    return parse(PRELUDE + DECLS + extra + f"(define-fun output0_size0 () {sort} {expr})\n").output("output0_size0")


def position_of(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """1-based (line, column) of the ``nth`` occurrence of ``needle`` in ``text``."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def end_of(text: str) -> tuple[int, int]:
    line = text.count("\n") + 1
    return line, len(text) - (text.rfind("\n") + 1) + 1


def error(text: str, name: str = "prog.smt2") -> SmtLibError:
    with pytest.raises(SmtLibError) as info:
        parse(text, name)
    return info.value


def assert_error_at(text: str, where: tuple[int, int], *fragments: str) -> SmtLibError:
    e = error(text)
    line, col = where
    assert str(e).startswith(f"prog.smt2:{line}:{col}: "), str(e)
    assert e.position == Position("prog.smt2", line, col)
    for f in fragments:
        assert f in e.message, str(e)
    return e


# ---------------------------------------------------------------- declarations and hints

def test_declare_const_with_int_hint():
    p = parse(DECLS)
    assert p.symbol("x").hint == 3 and p.symbol("x").sort is INT
    assert p.symbol("x").term is x
    assert p.hints() == {"x": 3, "y": 4, "r": Fraction(5, 2)}


@pytest.mark.parametrize("literal", ["(- 3)", "-3"])
def test_negative_int_hint(literal):
    p = parse(f"(declare-const x Int)(set-info :example-x {literal})")
    assert p.symbol("x").hint == -3 and type(p.symbol("x").hint) is int


@pytest.mark.parametrize("literal, expected", [("2.5", Fraction(5, 2)), ("(- 2.5)", Fraction(-5, 2)),
                                               ("-0.25", Fraction(-1, 4)), ("2", Fraction(2))])
def test_real_hint_is_an_exact_fraction(literal, expected):
    p = parse(f"(declare-const r Real)(set-info :example-r {literal})")
    assert p.symbol("r").hint == expected and isinstance(p.symbol("r").hint, Fraction)


@pytest.mark.parametrize("literal", ["true", "false"])
def test_bool_hint(literal):
    p = parse(f"(declare-const b Bool)(set-info :example-b {literal})")
    assert p.symbol("b").hint is (literal == "true")
    assert p.hints() == {"b": literal == "true"}


def test_hint_may_come_before_the_declaration():
    p = parse("(set-info :example-x 7)(declare-const x Int)")
    assert p.symbol("x").hint == 7


def test_declare_fun_without_arguments_declares_a_constant():
    p = parse("(declare-fun n () Int)(set-info :example-n 5)(assert (> n 0))")
    assert p.symbol("n").hint == 5
    assert p.facts[0].term is T.gt(T.var("n", INT), c(0))


def test_symbol_without_example_is_unbacked():
    p = parse("(declare-const u Int)(declare-const x Int)(set-info :example-x 1)")
    assert p.symbol("u").hint is None and not p.symbol("u").backed
    assert [s.name for s in p.unbacked] == ["u"]
    assert "u" not in p.hints()


def test_symbols_keep_declaration_order():
    p = parse("(declare-const b Int)(declare-const a Real)(declare-const c Bool)")
    assert [(s.name, s.sort) for s in p.symbols] == [("b", INT), ("a", REAL), ("c", BOOL)]


def test_other_set_info_keys_are_ignored():
    p = parse('(set-info :source "a ; b ( |")(set-info :status sat)(declare-const x Int)')
    assert [s.name for s in p.symbols] == ["x"]


def test_housekeeping_commands_are_accepted():
    p = parse("(set-logic QF_NIA)(set-option :produce-models true)(declare-const x Int)"
              "(check-sat)(get-value (x))(get-model)(exit)")
    assert isinstance(p, Program) and p.facts == ()


# ---------------------------------------------------------------- define-fun

def test_prelude_macros_expand():
    assert value("(min2 x y)") is T.minimum(x, y)
    assert value("(max2 x (+ y 1))") is T.maximum(x, T.add(y, c(1)))
    assert value("(sqrt r)", "Real") is T.power(r, c(Fraction(1, 2), REAL))
    assert value("(ceil (/ x 2))") is T.div(T.add(x, c(1)), c(2))


def test_macro_argument_is_promoted_to_parameter_sort():
    assert value("(ceil x)") is x


def test_macro_parameters_do_not_capture_caller_names():
    # min2's parameters are x and y: called with (y, x) it must still be min(y, x)
    assert value("(min2 y (+ x 1))") is T.minimum(y, T.add(x, c(1)))


def test_user_macro_with_arguments():
    extra = "(define-fun twice ((a Int)) Int (* 2 a))\n"
    assert value("(twice (+ x 1))", extra=extra) is T.scale(T.add(x, c(1)), 2)


def test_zero_ary_define_fun_names_an_intermediate():
    p = parse(DECLS + "(define-fun s () Int (+ x y))(define-fun t () Bool (> s 0))(assert t)")
    assert p.facts[0].term is T.gt(T.add(x, y), c(0))


def test_zero_ary_define_fun_may_reuse_a_macro_name():
    # the corpus does this: `(define-fun ceil () Int (ceil truediv_34))`
    p = parse(PRELUDE + DECLS
              + "(define-fun truediv_34 () Real (/ x 2))\n"
              + "(define-fun ceil () Int (ceil truediv_34))\n"
              + "(define-fun output0_size0 () Int (* ceil 2))\n"
              + "(define-fun output0_size1 () Int (ceil (/ y 3)))\n")
    half = T.div(T.add(x, c(1)), c(2))
    assert p.output("output0_size0") is T.scale(half, 2)
    assert p.output("output0_size1") is T.div(T.add(y, c(2)), c(3))


def test_int_body_of_real_define_fun_is_promoted():
    p = parse(DECLS + "(define-fun output0_size0 () Real (+ x 1))")
    assert p.output("output0_size0") is T.to_real(T.add(x, c(1)))


def test_outputs_are_collected_in_order():
    p = parse(DECLS + "(define-fun output0_size0 () Int x)(define-fun tmp () Int y)"
              "(define-fun output0_stride0 () Int 1)(define-fun output0_storage_offset () Int 0)"
              "(define-fun output1_size0 () Int (+ x y))")
    assert [name for name, _ in p.outputs] == ["output0_size0", "output0_stride0",
                                               "output0_storage_offset", "output1_size0"]
    assert p.output("output1_size0") is T.add(x, y)
    assert p.output_map()["output0_stride0"] is c(1)


# ---------------------------------------------------------------- expressions

def test_let_binds_in_parallel():
    # y is bound to the OUTER x, not to the x of the same let
    t = assertion("(let ((x 1) (y x)) (= y x))")
    assert t is T.eq(x, c(1))


def test_nested_let_shadows_and_restores():
    t = assertion("(and (let ((x 5)) (let ((x (+ x 1))) (= y x))) (> x 0))")
    assert t is T.and_(T.eq(y, c(6)), T.gt(x, c(0)))


def test_let_is_not_visible_inside_macro_bodies():
    t = assertion("(let ((y 10)) (= (min2 x 2) y))")
    assert t is T.eq(T.minimum(x, c(2)), c(10))


def test_boolean_connectives():
    a, b = T.gt(x, c(0)), T.gt(y, c(0))
    assert assertion("(and (> x 0) (> y 0))") is T.and_(a, b)
    assert assertion("(or (> x 0) (> y 0))") is T.or_(a, b)
    assert assertion("(not (> x 0))") is T.not_(a)
    assert assertion("(=> (> x 0) (> y 0))") is T.implies(a, b)
    assert assertion("(xor (> x 0) (> y 0))") is T.xor(a, b)


def test_implies_is_right_associative():
    a, b, d = T.gt(x, c(0)), T.gt(y, c(0)), T.gt(x, y)
    assert assertion("(=> (> x 0) (> y 0) (> x y))") is T.implies(a, T.implies(b, d))


def test_nary_arithmetic():
    assert value("(+ x y 1)") is T.add(x, y, c(1))
    assert value("(- x y 1)") is T.add(x, T.neg(y), c(-1))
    assert value("(- x)") is T.neg(x)
    assert value("(* x y 2)") is T.scale(T.mul(x, y), 2)


def test_chained_comparisons_are_conjunctions():
    assert assertion("(< x y 10)") is T.and_(T.lt(x, y), T.lt(y, c(10)))
    assert assertion("(<= 0 x y)") is T.and_(T.le(c(0), x), T.le(x, y))


def test_distinct_is_pairwise():
    t = assertion("(distinct x y 0)")
    assert t is T.and_(T.ne(x, y), T.ne(x, c(0)), T.ne(y, c(0)))


def test_div_mod_to_int_to_real():
    assert value("(div x 4)") is T.div(x, c(4))
    assert value("(mod x y)") is T.mod(x, y)
    assert value("(to_int (/ x 2))") is T.div(x, c(2))
    assert value("(to_real x)", "Real") is T.to_real(x)


def test_integer_and_decimal_literals():
    assert value("42") is c(42)
    assert value("0.5", "Real") is c(Fraction(1, 2), REAL)
    assert value("1.0", "Real") is c(Fraction(1), REAL)


@pytest.mark.parametrize("literal", ["-1", "(- 1)"])
def test_negative_literals(literal):
    assert value(f"(+ x {literal})") is T.add(x, c(-1))


def test_int_is_promoted_to_real_in_mixed_arithmetic():
    t = value("(+ x 0.5)", "Real")
    assert t.sort is REAL and t is T.add(T.to_real(x), c(Fraction(1, 2), REAL))
    assert assertion("(< x r)") is T.lt(T.to_real(x), r)
    assert evaluate(assertion("(< x r)"), {"x": 2, "r": Fraction(5, 2)}) is True


def test_bool_equality_and_literals():
    assert assertion("(= (> x 0) true)") is T.gt(x, c(0))
    assert assertion("(= (> x 0) false)") is T.le(x, c(0))


def test_comments_are_ignored():
    t = assertion("; a comment (assert false)\n  (> x 0) ; (( unbalanced in a comment\n")
    assert t is T.gt(x, c(0))


def test_semicolon_inside_quoted_symbol_is_not_a_comment():
    p = parse("(declare-const |a;b| Int)\n(assert (> |a;b| 0))\n")
    assert [s.name for s in p.symbols] == ["a;b"]
    assert p.facts[0].term is T.gt(T.var("a;b", INT), c(0))


def test_quoted_symbol_is_the_same_as_unquoted():
    assert assertion("(> |x| 0)") is T.gt(x, c(0))


def test_quoted_symbol_may_contain_spaces_and_parentheses():
    p = parse("(declare-const |a (b) c| Int)(assert (= |a (b) c| 1))")
    assert p.symbols[0].name == "a (b) c"
    assert p.facts[0].term is T.eq(T.var("a (b) c", INT), c(1))


def test_facts_know_their_index_and_position():
    text = "(declare-const x Int)\n\n; note\n  (assert (> x 0))\n(assert\n (< x 9))\n"
    p = parse(text, "f.smt2")
    assert [f.index for f in p.facts] == [0, 1]
    assert p.facts[0].position == Position("f.smt2", 4, 3)
    assert p.facts[1].position == Position("f.smt2", 5, 1)
    assert str(p.facts[1].position) == "f.smt2:5:1"


def test_program_name_and_iteration():
    p = parse("(declare-const x Int)(assert (> x 0))(assert (< x 5))", "g.smt2")
    assert p.name == "g.smt2"
    assert [f.term for f in p] == [T.gt(x, c(0)), T.lt(x, c(5))]


def test_read_file_uses_the_base_name(tmp_path):
    f = tmp_path / "m___1.smt2"
    f.write_text("(declare-const x Int)\n(assert (> x (div 1 0)))\n")
    p = read_file(f)
    assert p.name == "m___1.smt2"
    assert p.facts[0].position == Position("m___1.smt2", 2, 1)


def test_long_chain_of_definitions_parses():
    lines = ["(declare-const x Int)", "(define-fun d0 () Int x)"]
    lines += [f"(define-fun d{k} () Int (mod (+ d{k - 1} 1) 1000))" for k in range(1, 5001)]
    lines.append("(assert (>= d5000 0))")
    p = parse("\n".join(lines))
    assert evaluate(p.facts[0].term, {"x": 0}) is True


# ---------------------------------------------------------------- errors

def test_error_carries_name_line_and_column():
    e = error("(declare-const x Int)\n(assert (foo x))", "model___3.smt2")
    assert str(e) == "model___3.smt2:2:10: unknown operator 'foo'"


@pytest.mark.parametrize("text", [
    "(declare-const x Int)\n(assert (< x 1)",
    "(declare-const x Int)\n(assert (< x",
    "(declare-const x",
    "(declare-fun x (",
    "(check-sat",
    "(set-info :example-x",
    "(define-fun f ((a Int)) Int",
    "(define-fun f () Int",
    "(assert (let ((a 1)",
], ids=["assert", "operand", "declare-const", "declare-fun", "check-sat", "set-info", "macro", "define-fun",
        "let"])
def test_truncated_file_is_reported_at_its_end(text):
    assert_error_at(text, end_of(text), "unexpected end of file")


def test_missing_closing_parenthesis_before_the_next_command():
    text = "(declare-const x Int)\n(assert (< x 1)\n(assert (> x 0))\n"
    assert_error_at(text, (3, 1), "expected ')' to end the command, found '('")


def test_missing_closing_parenthesis_at_the_end_of_the_file():
    text = "(declare-const x Int)\n(assert (> x 0))\n(assert (and (< x 1) (> x 0))\n"
    assert_error_at(text, end_of(text), "unexpected end of file", "')'")


def test_extra_closing_parenthesis_is_reported_where_it_is():
    text = "(declare-const x Int)\n(assert (< x 1)))\n"
    assert_error_at(text, (2, 17), "expected '('", "')'")


def test_stray_atom_at_top_level():
    text = "(declare-const x Int)\n  x\n"
    assert_error_at(text, (2, 3), "expected '('")


def test_unknown_operator():
    text = PRELUDE + DECLS + "(assert (< (frob x) 1))\n"
    assert_error_at(text, position_of(text, "frob"), "unknown operator 'frob'")


def test_unknown_command():
    text = "(declare-const x Int)\n (push 1)\n"
    assert_error_at(text, position_of(text, "push"), "unsupported command 'push'")


def test_expression_with_no_operator():
    text = "(declare-const x Int)\n(assert ((> x 0)))\n"
    assert_error_at(text, position_of(text, "(> x"), "expected an operator")


@pytest.mark.parametrize("expr, at, fragment", [
    ("(< (+ x true) 1)", "+", "sort error in '+'"),
    ("(< (div r 2) 1)", "div", "sort error in 'div'"),
    ("(< (mod x r) 1)", "mod", "sort error in 'mod'"),
    ("(and (> x 0) x)", "and", "sort error in 'and'"),
    ("(= x (> x 0))", "=", "sort error in '='"),
    ("(ite x 1 2)", "ite", "sort error in 'ite'"),
    ("(< (to_real true) 1)", "to_real", "sort error in 'to_real'"),
])
def test_sort_errors_in_operators(expr, at, fragment):
    text = DECLS + f"(assert {expr})\n"
    assert_error_at(text, position_of(text, at, text.count(at) - expr.count(at)), fragment)


def test_assert_of_a_number_is_a_sort_error():
    text = "(declare-const x Int)\n(assert 3)\n"
    assert_error_at(text, position_of(text, "3"), "sort error", "Bool", "Int")


def test_define_fun_body_of_wrong_sort():
    text = "(declare-const x Int)\n(define-fun b () Bool (+ x 1))\n"
    assert_error_at(text, position_of(text, "(+ x"), "sort error", "'b'", "Bool", "Int")


def test_define_fun_real_body_for_int_is_a_sort_error():
    text = "(declare-const r Real)\n(define-fun n () Int (+ r 1))\n"
    assert_error_at(text, position_of(text, "(+ r"), "sort error", "'n'")


def test_macro_body_of_wrong_sort():
    text = "(define-fun f ((a Int)) Bool (+ a 1))\n"
    assert_error_at(text, (1, 13), "sort error", "the result of 'f' should be Bool, got Int")


def test_macro_argument_of_wrong_sort():
    text = PRELUDE + DECLS + "(assert (> (min2 r 1) 0))\n"
    assert_error_at(text, position_of(text, "min2", 1), "sort error", "argument 'x' of 'min2'")


def test_unknown_sort():
    text = "(declare-const x Integer)\n"
    assert_error_at(text, position_of(text, "Integer"), "expected a sort")


def test_undefined_name():
    text = "(declare-const x Int)\n(assert (< x w))\n"
    assert_error_at(text, position_of(text, "w"), "undefined name 'w'")


def test_name_used_before_its_definition_is_undefined():
    text = "(define-fun a () Int b)\n(define-fun b () Int 1)\n"
    assert_error_at(text, position_of(text, "b"), "undefined name 'b'")


def test_macro_used_without_arguments():
    text = PRELUDE + DECLS + "(assert (< min2 x))\n"
    assert_error_at(text, position_of(text, "min2 x))"), "'min2' needs arguments")


def test_duplicate_declaration():
    text = "(declare-const x Int)\n(declare-const x Int)\n"
    assert_error_at(text, (2, 16), "'x' is already defined")


def test_duplicate_definition():
    text = "(declare-const x Int)\n(define-fun a () Int x)\n(define-fun a () Int 1)\n"
    assert_error_at(text, (3, 13), "'a' is already defined")


def test_declaration_of_a_defined_name():
    text = "(define-fun a () Int 1)\n(declare-fun a () Int)\n"
    assert_error_at(text, (2, 14), "'a' is already defined")


def test_definition_of_a_declared_name():
    text = "(declare-const a Int)\n(define-fun a () Bool true)\n"
    assert_error_at(text, (2, 13), "'a' is already defined")


def test_duplicate_macro():
    text = PRELUDE + "(define-fun min2 ((a Int) (b Int)) Int a)\n"
    assert_error_at(text, position_of(text, "min2", 1), "'min2' is already defined")


@pytest.mark.parametrize("call", ["(min2 x)", "(min2 x y x)", "(ceil)"])
def test_wrong_macro_arity(call):
    text = PRELUDE + DECLS + f"(assert (> {call} 0))\n"
    head = call[1:].split()[0].rstrip(")")
    line, col = position_of(text, call)
    e = assert_error_at(text, (line, col + 1), f"'{head}' takes")  # at the macro's name
    assert "arguments, got" in e.message


def test_wrong_builtin_arity():
    text = DECLS + "(assert (> (mod x 1 2) 0))\n"
    assert_error_at(text, position_of(text, "mod"), "'mod' takes 2 argument(s), got 3")


def test_unterminated_quoted_symbol():
    text = "(declare-const x Int)\n(assert (> |x 0))\n"
    assert_error_at(text, position_of(text, "|"), "unterminated quoted symbol")


def test_unterminated_quoted_symbol_as_a_name():
    text = "(declare-const |x Int)\n"
    assert_error_at(text, position_of(text, "|"), "unterminated")


def test_malformed_number():
    text = "(declare-const x Int)\n(assert (> x 1.2.3))\n"
    assert_error_at(text, position_of(text, "1.2.3"), "malformed number '1.2.3'")


def test_invalid_utf8_is_reported_at_the_bad_byte():
    data = b"(declare-const x Int)\n(assert (> x \xff 0))\n"
    with pytest.raises(SmtLibError) as info:
        parse_bytes(data, "bad.smt2")
    assert str(info.value).startswith("bad.smt2:2:14: ")
    assert "UTF-8" in info.value.message


def test_invalid_utf8_column_counts_characters_not_bytes():
    data = "(declare-const |größe| Int)\n(assert (> |größe| \xff 0))\n".encode().replace(b"\xc3\xbf", b"\xff")
    with pytest.raises(SmtLibError) as info:
        parse_bytes(data, "bad.smt2")
    assert str(info.value).startswith("bad.smt2:2:20: ")


def test_int_power_without_integer_value_is_accepted():
    t = assertion("(= x (^ 2 (- 1)))")
    assert t is T.eq(x, T.power(c(2), c(-1)))


def test_hint_for_undeclared_symbol():
    text = "(declare-const x Int)\n(set-info :example-w 3)\n"
    assert_error_at(text, position_of(text, "3)"), "undeclared symbol 'w'")


def test_hint_that_does_not_fit_the_sort():
    text = "(declare-const x Int)\n(set-info :example-x 2.5)\n"
    assert_error_at(text, position_of(text, "2.5"), "does not fit the sort Int of 'x'")


def test_non_numeric_hint():
    text = "(declare-const x Int)\n(set-info :example-x (+ 1 2))\n"
    assert_error_at(text, position_of(text, "+"), "expected a number")


def test_declare_fun_with_arguments_is_an_opaque_real_function_only():
    text = "(declare-fun f (Int) Int)\n"
    assert_error_at(text, position_of(text, "f (Int)"), "only a new opaque function of numbers to Real")
    program = parse("(declare-fun log2 (Real) Real)(declare-const x Int)(assert (<= (log2 x) (log2 x)))")
    assert program.facts[0].term is T.TRUE  # the same function of the same operand: equal


def test_set_info_without_keyword():
    text = "(set-info example 3)\n"
    assert_error_at(text, position_of(text, "example"), "expected a keyword")


def test_extra_argument_to_a_command():
    text = "(declare-const x Int 3)\n"
    assert_error_at(text, position_of(text, "3"), "expected ')' to end the command")


def test_define_fun_with_nothing_after_the_name():
    text = "(define-fun a)\n(assert true)\n(assert true)\n"
    assert_error_at(text, position_of(text, ")"), "expected '('")


def test_define_fun_with_nothing_after_the_name_at_the_end_of_the_file():
    # not a truncated file: the name is followed by ')'
    text = "(define-fun a)\n"
    assert_error_at(text, (1, 14), "expected '(', found ')'")


def test_string_as_an_expression():
    text = '(assert "yes")\n'
    assert_error_at(text, position_of(text, '"'), "string")


def test_deeply_nested_expression_is_an_error_not_a_crash():
    depth = 50000
    text = "(assert " + "(not " * depth + "true" + ")" * depth + ")"
    e = error(text)
    assert "nested too deeply" in e.message


def test_parse_bytes_accepts_utf8():
    p = parse_bytes("(declare-const |größe| Int)(assert (> |größe| 0))".encode())
    assert p.symbols[0].name == "größe"


# ---------------------------------------------------------------- fuzzing: SmtLibError or a Program, nothing else

VALID = (PRELUDE + DECLS
         + "(define-fun t () Real (/ x 2))\n(define-fun ceil () Int (ceil t))\n"
         + "(define-fun m () Int (mod (+ x ceil) y))\n(assert (let ((a m)) (>= a 0)))\n"
         + "(assert (distinct x y)) ; trailing comment\n(define-fun output0_size0 () Int (min2 x ceil))\n"
         + "(check-sat)\n(get-value (x y))\n")

SOUP = ["(", ")", "(", ")", "assert", "define-fun", "declare-const", "declare-fun", "set-info", "let",
        ":example-x", "Int", "Real", "Bool", "x", "y", "1", "-1", "0.5", "+", "-", "div", "mod", "/",
        "^", "ite", "to_int", "ceil", "min2", "not", "and", "=", "<", "|", "|x|", '"', '"s"', ";", "\n",
        " ", "()", "true", "check-sat", "_", "!"]


def parses_or_reports(data: bytes) -> None:
    try:
        result = parse_bytes(data, "fuzz.smt2")
    except SmtLibError as e:
        assert str(e).startswith("fuzz.smt2:"), repr(e)
        return
    except Exception as e:  # noqa: BLE001 - that is the point of the test
        pytest.fail(f"{data!r} raised {e!r}")
    assert isinstance(result, Program)


FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.binary(max_size=200))
def test_random_bytes_never_crash_the_reader(data):
    parses_or_reports(data)


@FUZZ
@given(st.lists(st.sampled_from(SOUP), max_size=60))
def test_token_soup_never_crashes_the_reader(tokens):
    parses_or_reports(" ".join(tokens).encode())


@FUZZ
@given(st.lists(st.sampled_from(SOUP), max_size=40))
def test_token_soup_after_the_prelude_never_crashes_the_reader(tokens):
    parses_or_reports((PRELUDE + DECLS + " ".join(tokens)).encode())


def _tokens(text: str) -> list[str]:
    import re

    return re.findall(r'[()]|[^\s()]+|\s+', text)


VALID_TOKENS = _tokens(VALID)


@st.composite
def mutants(draw) -> bytes:
    toks = list(VALID_TOKENS)
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["truncate", "delete", "duplicate", "swap", "insert"]))
        if not toks:
            break
        k = draw(st.integers(0, len(toks) - 1))
        if kind == "truncate":
            toks = toks[:k]
        elif kind == "delete":
            del toks[k]
        elif kind == "duplicate":
            toks.insert(k, toks[k])
        elif kind == "swap":
            j = draw(st.integers(0, len(toks) - 1))
            toks[k], toks[j] = toks[j], toks[k]
        else:
            toks.insert(k, draw(st.sampled_from(SOUP)))
    return "".join(toks).encode()


def test_the_program_the_mutants_start_from_is_valid():
    p = parse(VALID)
    assert len(p.facts) == 2 and p.outputs[0][0] == "output0_size0"
    assert all(evaluate(f.term, p.hints()) is True for f in p.facts)


@FUZZ
@given(mutants())
def test_mutated_valid_program_never_crashes_the_reader(data):
    parses_or_reports(data)
