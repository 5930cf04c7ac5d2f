"""TVM's own InferBound tests (those `rangefinder te` runs) run under
CPython through rangefinder.tvm, asserts included."""

import re

import pytest

from conftest import REPO, run_script

TESTS = REPO / "crates" / "script" / "tests" / "tvm_bound_inference"


def _passing():
    # The Rust runner lists the tests that run and pass; the same must here.
    text = (REPO / "crates" / "script" / "tests" / "tvm_bound_inference.rs").read_text()
    names = []
    for block in ("PASSING_MAIN", "PASSING_OTHER"):
        body = text.split(f"const {block}: &[&str] = &[", 1)[1].split("];", 1)[0]
        names += re.findall(r'"(test_\w+)"', body)
    return names


@pytest.mark.parametrize("name", _passing())
def test_tvm_test_passes(name):
    run_script(TESTS / f"{name}.py")


def test_tvm_tests_found():
    assert len(_passing()) >= 20
