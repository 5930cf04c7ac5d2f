"""TensorIR functions under CPython: ``te.create_prim_func`` against
``@T.prim_func`` (the bundled example), and what a difference reports."""

import pathlib
import subprocess
import sys

import pytest

import rangefinder.tvm as tvm
from rangefinder.tvm import te, tir

EXAMPLE = pathlib.Path(__file__).parents[2] / "examples" / "te" / "tensor_ir" / "prim_funcs.py"


def test_example_runs_under_cpython():
    got = subprocess.run(
        [sys.executable, "-m", "rangefinder.tvm", str(EXAMPLE)], capture_output=True, text=True
    )
    assert got.returncode == 0, got.stderr
    assert 'T.block("S")' in got.stdout


def test_blocks_and_regions():
    A = te.placeholder((8, 8), name="A")
    k = te.reduce_axis((0, 8), name="k")
    B = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name="B")
    f = te.create_prim_func([A, B])
    s = tir.Schedule(f)
    assert isinstance(s.get_sref(s.get_block("B")), tir.schedule.StmtSRef)
    with pytest.raises(ValueError):
        s.get_block("C")
    other = te.create_prim_func([A, te.compute((8,), lambda i: A[i, 0] + 1.0, name="B")])
    assert not tvm.ir.structural_equal(f, other)
    with pytest.raises(ValueError, match="StructuralEqual check failed"):
        tvm.ir.assert_structural_equal(f, other)
