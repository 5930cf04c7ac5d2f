"""`rangefinder.tc.infer` gives what `rangefinder tc --json` gives."""

import json

import pytest

import rangefinder
from conftest import EXAMPLES

SOURCES = sorted((EXAMPLES / "tc").glob("*.tc"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_infer_matches_the_command(path, cli):
    expected = json.loads(cli("tc", path, "--json", check=False).stdout)
    assert rangefinder.tc.infer(path.read_text()) == expected


def test_sizes_and_run():
    src = "def f(float(N) A) -> (B) { B(i) = A(i) + A(i + 2) }"
    r = rangefinder.tc.infer(src, {"N": 10}, run=True)
    (rng,) = r["defs"][0]["ranges"]
    assert (rng["lower"], rng["upper"], rng["upper_value"]) == ("0", "N - 2", 8)
    assert r["defs"][0]["run"]["ok"] and r["defs"][0]["run"]["out_of_bounds"] == 0


def test_errors_are_diagnostics_with_positions():
    r = rangefinder.tc.infer("def f(float(N) A) -> (B) { B(i) = A(i) + C(i) }")
    (d,) = [d for d in r["defs"][0]["diagnostics"] if d["severity"] == "error"]
    assert d["line"] == 1 and d["span"]["start"] < d["span"]["end"]


def test_sizes_must_be_positive():
    with pytest.raises(rangefinder.Error, match="must be at least 1, got 0"):
        rangefinder.tc.infer("def f(float(N) A) -> (B) { B(i) = A(i) }", {"N": 0})


def test_a_guarded_read_that_narrows_is_a_warning():
    src = (
        "def f(float(N) A, float(N) C) -> (B) {"
        " B(i) = C(i) + (i >= 1 ? A(i - 1) : 0.0) }"
    )
    r = rangefinder.tc.infer(src)
    (w,) = [d for d in r["defs"][0]["diagnostics"] if d["severity"] == "warning"]
    assert "where i in 0:N" in w["message"]
    assert r["defs"][0]["ranges"][0]["lower"] == "1"
