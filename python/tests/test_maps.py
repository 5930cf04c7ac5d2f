"""`rangefinder.IndexingMap` against the `map` command and evaluation."""

import json

import pytest

import rangefinder

MAPS = [
    "(d0, d1) -> (d0 floordiv 8, d0 mod 8, d1), domain: d0 in [0, 31], d1 in [0, 15]",
    "(d0)[s0] -> (d0 * 4 + s0), domain: d0 in [0, 7], s0 in [0, 3]",
    "(d0) -> ((d0 * 2 + 1) floordiv 2), domain: d0 in [0, 99]",
    # As XLA printed maps until 2025, and as MLIR prints the attribute.
    "(d0)[s0] -> (d0 * 4 + s0), domain: d0 in [0, 7], s0 in [0, 3], is_simplified: false",
    '#xla.indexing_map<"(d0) -> (d0 floordiv 4), domain: d0 in [0, 15]">',
]


@pytest.mark.parametrize("text", MAPS)
def test_simplify_prints_what_the_command_prints(text, cli):
    expected = json.loads(cli("map", text, "--json").stdout)
    m = rangefinder.IndexingMap(text)
    assert str(m) == expected["input"]
    assert str(m.simplify()) == expected["simplified"]
    assert m.simplify() == m


def test_evaluate_and_compose():
    consumer = rangefinder.IndexingMap("(d0) -> (d0 floordiv 4, d0 mod 4), domain: d0 in [0, 15]")
    producer = rangefinder.IndexingMap("(d0, d1) -> (d1, d0), domain: d0 in [0, 3], d1 in [0, 3]")
    composed = consumer.compose(producer).simplify()
    for d0 in range(16):
        assert composed.evaluate([d0]) == [d0 % 4, d0 // 4]
    assert composed.num_dims == 1 and composed.num_results == 2


def test_semantic_equality():
    a = rangefinder.IndexingMap("(d0) -> (d0 + d0), domain: d0 in [0, 9]")
    b = rangefinder.IndexingMap("(d0) -> (d0 * 2), domain: d0 in [0, 9]")
    c = rangefinder.IndexingMap("(d0) -> (d0 * 3), domain: d0 in [0, 9]")
    assert a == b and a != c


def test_parse_errors_raise_with_position():
    with pytest.raises(rangefinder.Error) as info:
        rangefinder.IndexingMap("(d0) -> (d0 +), domain: d0 in [0, 3]")
    assert info.value.line == 1


BIG = "domain: d0 in [0, 999999], d1 in [0, 99]"


def test_equality_on_domains_too_large_to_enumerate():
    a = rangefinder.IndexingMap(f"(d0, d1) -> (d0 floordiv 4, d0 mod 4, d1), {BIG}")
    b = rangefinder.IndexingMap(
        f"(d0, d1) -> (d0 floordiv 4, d0 - (d0 floordiv 4) * 4, d1), {BIG}"
    )
    assert a == b and not a != b
    c = rangefinder.IndexingMap(f"(d0, d1) -> (d0 floordiv 4, d0 mod 4, d1 * 2), {BIG}")
    assert a != c
    # Different only at the last point of the domain.
    d = rangefinder.IndexingMap(f"(d0, d1) -> (d0 mod 1000000, d1), {BIG}")
    e = rangefinder.IndexingMap(f"(d0, d1) -> (d0 mod 999999, d1), {BIG}")
    assert d != e
    # A smaller domain is a different map.
    f = rangefinder.IndexingMap(
        "(d0, d1) -> (d0 floordiv 4, d0 mod 4, d1), domain: d0 in [0, 999998], d1 in [0, 99]"
    )
    assert a != f


def test_equality_that_cannot_be_decided_is_an_error_not_a_guess():
    # Equal (n * n and n have the same parity), but neither simplification
    # nor sampling shows it on a domain too large to enumerate.
    a = rangefinder.IndexingMap(f"(d0, d1) -> ((d0 * d0) mod 2, d1), {BIG}")
    b = rangefinder.IndexingMap(f"(d0, d1) -> (d0 mod 2, d1), {BIG}")
    with pytest.raises(rangefinder.Error, match="cannot decide"):
        a == b
    # The same maps on a domain small enough to enumerate.
    small = "domain: d0 in [0, 99], d1 in [0, 9]"
    assert rangefinder.IndexingMap(f"(d0, d1) -> ((d0 * d0) mod 2, d1), {small}") == (
        rangefinder.IndexingMap(f"(d0, d1) -> (d0 mod 2, d1), {small}")
    )
