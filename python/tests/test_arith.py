"""`rangefinder.simplify` and `rangefinder.Analyzer` against the command
and against evaluation."""

import itertools

import pytest

import rangefinder
from conftest import EXAMPLES


def _batch_cases():
    for line in (EXAMPLES / "simplify" / "index_exprs.batch").read_text().splitlines():
        if not line.strip():
            continue
        expr, _, ranges = line.partition("|")
        yield line, expr.strip(), ranges.split()


def test_simplify_matches_the_batch_command(cli):
    lines = [c[0] for c in _batch_cases()]
    expected = cli("simplify", "--batch", EXAMPLES / "simplify" / "index_exprs.batch").stdout.splitlines()
    assert len(expected) == len(lines)
    for (line, expr, ranges), want in zip(_batch_cases(), expected):
        spec = {}
        for r in ranges:
            name, _, span = r.partition("=")
            lo, _, hi = span.partition(":")
            spec[name] = (lo, hi)
        try:
            got = rangefinder.simplify(expr, spec)
        except rangefinder.Error as e:
            got = f"error: {e}"
        assert want.startswith("error:") or got == want, line


def test_simplify_with_integer_ranges():
    assert rangefinder.simplify("(x * 16 + y) // 8", {"y": (0, 8)}) == "x * 2"
    assert rangefinder.simplify("i < n and 0 <= i", {"i": (0, "n"), "n": (1, 1024)}) == "True"


def test_errors_carry_their_position():
    with pytest.raises(rangefinder.Error) as info:
        rangefinder.simplify("x + * 2")
    assert (info.value.line, info.value.column) == (1, 5)
    assert info.value.span == (4, 5)
    assert isinstance(info.value, ValueError)


def test_overflow_is_an_error_not_a_wrapped_value():
    with pytest.raises(rangefinder.Error):
        rangefinder.simplify("9223372036854775807 + 1")


def test_analyzer_queries_agree_with_evaluation():
    an = rangefinder.Analyzer()
    an.bind("x", (0, 8))
    an.bind("y", (-3, 5))
    expr = "x * 4 + y % 3 - 2"
    values = [x * 4 + y % 3 - 2 for x, y in itertools.product(range(0, 8), range(-3, 5))]
    b = an.const_int_bound(expr)
    assert b.min_value <= min(values) and max(values) <= b.max_value
    m = an.modular_set("x * 4 + 2")
    assert (m.coeff, m.base) == (4, 2)
    assert an.can_prove("x * 4 + y % 3 < 31")
    assert not an.can_prove("x < 7")
    assert an.simplify("x // 8") == "0"
    s = an.int_set("x * 2 + 1", {"x": (0, 8)})
    assert (s.min_value, s.max_value) == ("1", "15")


def test_unbounded_sides_are_none():
    an = rangefinder.Analyzer()
    an.bind("x", (0, 8))
    b = an.const_int_bound("x * z")
    assert b.min_value is None and b.max_value is None


def test_analyzer_takes_expression_objects():
    from rangefinder.tvm import te, tir

    n = te.var("n")
    an = rangefinder.Analyzer()
    an.bind(n, (1, 64))
    out = an.simplify(tir.floordiv(n * 4 + 3, 4))
    assert str(out) == "n"
    assert an.can_prove(n >= 1)
