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


def test_a_variable_is_bound_once_and_an_override_replaces_its_range():
    an = rangefinder.Analyzer()
    an.bind("x", (0, 8))
    an.bind("x", (0, 8))  # the same range again is harmless
    with pytest.raises(rangefinder.Error) as info:
        an.bind("x", (100, 108))
    message = str(info.value)
    assert "`x`" in message and "[0, 7]" in message and "[100, 107]" in message
    an.update("x", (100, 108), override=True)
    b = an.const_int_bound("x")
    assert (b.min_value, b.max_value) == (100, 107)
    assert not an.can_prove("x < 8")
    assert an.can_prove("x >= 100")
    assert an.simplify("x // 100") == "1"


def _fresh_answers(bind):
    an = rangefinder.Analyzer()
    bind(an)
    exprs = ["x", "x * 3 - 5", "x // 4", "x % 6", "min(x, 50) + max(x, -50)"]
    out = []
    for e in exprs:
        b = an.const_int_bound(e)
        m = an.modular_set(e)
        out.append((b.min_value, b.max_value, m.coeff, m.base, an.simplify(e)))
    for c in (-101, -1, 0, 7, 8, 99, 100, 107, 108):
        out.append((an.can_prove(f"x < {c}"), an.can_prove(f"x >= {c}")))
    return out


@pytest.mark.parametrize(
    "first, second",
    [((0, 8), (100, 108)), ((100, 108), (0, 8)), ((5, 6), (-100, 100)), ((-3, 50), (7, 8))],
)
def test_an_override_answers_as_a_fresh_analyzer(first, second):
    def rebound(an):
        an.bind("x", first)
        an.update("x", second, override=True)

    def by_bound(an):
        an.bind("x", first)
        an.update("x", rangefinder.ConstIntBound(second[0], second[1] - 1), override=True)

    expected = _fresh_answers(lambda an: an.bind("x", second))
    assert _fresh_answers(rebound) == expected
    assert _fresh_answers(by_bound) == expected


def test_ranges_as_lists_are_accepted_wherever_pairs_are():
    import json

    ranges = json.loads('{"x": [0, 8], "y": [-3, 5]}')
    assert rangefinder.simplify("(x * 16 + y + 3) // 8", ranges) == rangefinder.simplify(
        "(x * 16 + y + 3) // 8", {"x": (0, 8), "y": (-3, 5)}
    )
    an = rangefinder.Analyzer()
    an.bind("x", [0, 8])
    an.bind("x", (0, 8))
    assert an.can_prove("x < 8")
    s = an.int_set("x * 2", {"x": [0, 4]})
    assert (s.min_value, s.max_value) == ("0", "6")
    with pytest.raises(rangefinder.Error, match="pair"):
        an.bind("y", [0, 1, 2])


def test_const_int_bound_is_constructible_as_in_tvm():
    from rangefinder.tvm import arith, te

    b = arith.ConstIntBound(0, 10)
    assert (b.min_value, b.max_value) == (0, 10)
    assert b == rangefinder.ConstIntBound(0, 10)
    unbounded = arith.ConstIntBound(arith.ConstIntBound.NEG_INF, arith.ConstIntBound.POS_INF)
    assert unbounded.min_value is None and unbounded.max_value is None
    with pytest.raises(rangefinder.Error):
        arith.ConstIntBound(5, 4)
    x = te.var("x")
    an = arith.Analyzer()
    an.update(x, arith.ConstIntBound(0, 10))
    an.update(x, arith.ConstIntBound(0, 10))
    with pytest.raises(rangefinder.Error):
        an.update(x, arith.ConstIntBound(0, 11))
    an.update(x, arith.ConstIntBound(20, 30), override=True)
    assert an.const_int_bound(x * 2) == arith.ConstIntBound(40, 60)


def test_version_is_the_package_version():
    import importlib.metadata
    import re
    from conftest import REPO

    def cargo_version(path):
        return re.search(r'^version = "([^"]+)"', path.read_text(), re.M).group(1)

    assert rangefinder.__version__ == importlib.metadata.version("rangefinder")
    assert rangefinder.__version__ == cargo_version(REPO / "python" / "Cargo.toml")
    assert rangefinder.__version__ == cargo_version(REPO / "Cargo.toml")


def test_same_as_is_node_identity():
    from rangefinder.tvm import te, tir

    x = te.var("x")
    e = x * 4 + 1
    assert x.same_as(x) and e.same_as(e)
    assert not (x + 1).same_as(x + 1)  # equal, but two nodes
    assert not x.same_as(te.var("x"))
    assert not x.same_as(1) and not e.same_as("x * 4 + 1")
    k = te.reduce_axis((0, 8), "k")
    assert k.var.same_as(k.var)
    assert tir.floordiv(x, 2).same_as(tir.floordiv(x, 2)) is False


def _c_div(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _value(expr, points):
    an = rangefinder.Analyzer()
    for v, value in points:
        an.bind(v, value)
    out = an.simplify(expr)
    return int(out)


@pytest.mark.parametrize("top_level", [False, True])
def test_truncating_division_by_any_divisor_rounds_toward_zero(top_level):
    from rangefinder.tvm import te, tir

    div, mod = (rangefinder.truncdiv, rangefinder.truncmod) if top_level else (tir.truncdiv, tir.truncmod)
    x, y = te.var("x"), te.var("y")
    for d in (-7, -3, -2, -1, 1, 2, 5):
        q, r = div(x, d), mod(x, d)
        for a in range(-20, 21):
            assert _value(q, [(x, a)]) == _c_div(a, d), (a, d)
            assert _value(r, [(x, a)]) == a - _c_div(a, d) * d, (a, d)
    q, r = div(x, y), mod(x, y)
    for a, b in itertools.product(range(-13, 14), [-6, -5, -2, -1, 1, 3, 4, 7]):
        assert _value(q, [(x, a), (y, b)]) == _c_div(a, b), (a, b)
        assert _value(r, [(x, a), (y, b)]) == a - _c_div(a, b) * b, (a, b)
    with pytest.raises(ZeroDivisionError, match="zero"):
        div(x, 0)
