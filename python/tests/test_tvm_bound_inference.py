"""TVM's own InferBound tests (those `rangefinder te` runs) run under
CPython through rangefinder.tvm, asserts included.

The programs are read from the shared conformance corpus by the Rust
runner (`crates/script/tests/tvm_bound_inference.rs`), which writes each
passing one, as it ran it, under `target/conformance/`; without the corpus
there is nothing to run."""

import re

import pytest

from conftest import REPO, run_script

RUNNER = REPO / "crates" / "script" / "tests" / "tvm_bound_inference.rs"
PROGRAMS = REPO / "target" / "conformance" / "tvm_bound_inference"


def _passing():
    # The Rust runner lists the tests that run and pass; the same must here.
    text = RUNNER.read_text()
    names = []
    for block in ("PASSING_MAIN", "PASSING_OTHER"):
        body = text.split(f"const {block}: &[&str] = &[", 1)[1].split("];", 1)[0]
        names += re.findall(r'"(test_\w+)"', body)
    return names


@pytest.mark.parametrize("name", _passing())
def test_tvm_test_passes(name):
    path = PROGRAMS / f"{name}.py"
    if not path.exists():
        pytest.skip(f"{path} is absent: the shared corpus was not beside the checkout "
                    "when `cargo test -p script` ran")
    run_script(path)


def test_tvm_tests_found():
    assert len(_passing()) >= 20
