"""Decimal numerals of any length, both ways.

Python refuses to convert between ``int`` and ``str`` beyond 4,300 digits (a guard
against quadratic work), and the limit is process-wide; a shape program may still
write a longer numeral. These convert by halves, so the cost stays that of big-integer
multiplication, and never touch the process's setting.
"""

from __future__ import annotations

from fractions import Fraction

_CHUNK = 4000  # digits Python converts directly (well under its limit)


def parse_int(text: str) -> int:
    """The value of a decimal numeral (an optional ``-`` and digits), any length."""
    if len(text) <= _CHUNK:
        return int(text)
    if text[0] == "-":
        return -parse_int(text[1:])
    half = len(text) // 2
    low = text[half:]
    return parse_int(text[:half]) * 10 ** len(low) + parse_int(low)


def parse_decimal(text: str) -> Fraction:
    """The value of ``[-]digits.digits`` as an exact rational, any length."""
    negative = text.startswith("-")
    whole, _, frac = text.lstrip("-").partition(".")
    value = Fraction(parse_int(whole + frac), 10 ** len(frac))
    return -value if negative else value


def int_text(n: int) -> str:
    """The decimal numeral of ``n``, any size."""
    if n < 0:
        return "-" + int_text(-n)
    if n.bit_length() < _CHUNK * 3:  # under ~3,600 digits
        return str(n)
    digits = len(str(n >> (n.bit_length() - 64))) + int((n.bit_length() - 64) * 0.30103)
    half = digits // 2
    high, low = divmod(n, 10 ** half)
    if high == 0:
        return int_text(low)
    return int_text(high) + int_text(low).rjust(half, "0")


def brief(v: object, limit: int = 40) -> str:
    """A number for a message: whole when it has at most about ``limit`` digits, else
    its size (a message stays short, and is cheap to build)."""
    if isinstance(v, Fraction) and v.denominator != 1:
        return f"{brief(v.numerator, limit)}/{brief(v.denominator, limit)}"
    if isinstance(v, bool) or not isinstance(v, (int, Fraction)):
        return str(v)
    n = int(v)
    if n.bit_length() <= 3 * limit:
        return str(n)
    return f"{'-' if n < 0 else ''}<a number of about {int(n.bit_length() * 0.30103) + 1} digits>"
