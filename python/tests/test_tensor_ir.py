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


def test_built_block_form_runs_reads_at_computed_indices():
    import numpy as np

    A = te.placeholder((10,), name="A")
    B = te.placeholder((10,), name="B", dtype="int32")
    C = te.compute((10,), lambda i: A[B[i]] * 2.0, name="C")
    f = te.create_prim_func([C, A, B])
    # The block reads B at its own point and A anywhere.
    assert "T.reads(B[v_i], A[0:10])" in f.script()
    run = tvm.build(f)
    a = np.arange(10, dtype="float32") + 0.5
    b = np.array([9, 0, 3, 3, 1, 8, 2, 7, 5, 4], dtype="int32")
    c = tvm.nd.array(np.zeros(10, dtype="float32"))
    run(c, tvm.nd.array(a), tvm.nd.array(b))
    np.testing.assert_allclose(c.numpy(), a[b] * 2.0)


def test_built_reduction_starts_from_its_init():
    import numpy as np

    X = te.placeholder((6, 5), name="X")
    r = te.reduce_axis((0, 5), name="r")
    M = te.compute((6,), lambda p: te.max(X[p, r], axis=r), name="M")
    run = tvm.build(te.create_prim_func([X, M]))
    x = np.random.default_rng(3).uniform(-4, -1, size=(6, 5)).astype("float32")
    m = tvm.nd.array(np.zeros(6, dtype="float32"))
    run(tvm.nd.array(x), m)
    np.testing.assert_allclose(m.numpy(), x.max(axis=1))


def test_scalar_parameter_is_passed_as_a_number():
    import numpy as np

    rows = te.var("rows")
    src = te.placeholder((rows + 3, 4), name="src")
    out = te.compute((rows, 4), lambda i, j: src[i + 2, j] * 2.0, name="out")
    f = te.create_prim_func([src, rows, out])
    assert "rows: T.int32" in f.script()
    x = np.arange(24, dtype="float32").reshape(6, 4)
    y = tvm.nd.array(np.zeros((3, 4), dtype="float32"))
    tvm.build(f)(tvm.nd.array(x), 3, y)
    np.testing.assert_allclose(y.numpy(), x[2:5] * 2.0)


def test_lower_gives_the_loop_program_with_the_init_as_a_condition():
    A = te.placeholder((4, 3), name="A")
    k = te.reduce_axis((0, 3), name="k")
    B = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name="B")
    text = str(tvm.lower(te.create_prim_func([A, B])))
    assert "if ((k == 0))" in text
    assert "B[i] = (B[i] + A[i, k])" in text


def test_built_argmax_runs_its_tuple_reduction():
    import numpy as np

    def combine(x, y):
        keep = x[1] >= y[1]
        return tvm.tir.Select(keep, x[0], y[0]), tvm.tir.Select(keep, x[1], y[1])

    def identity(t0, t1):
        return tvm.tir.const(-1, t0), te.min_value(t1)

    argmax = te.comm_reducer(combine, identity, name="argmax")
    m, n = te.var("m"), te.var("n")
    idx = te.placeholder((m, n), name="idx", dtype="int32")
    val = te.placeholder((m, n), name="val", dtype="float32")
    k = te.reduce_axis((0, n), "k")
    max_idx, max_val = te.compute(
        (m,), lambda i: argmax((idx[i, k], val[i, k]), axis=k), name="argmax"
    )
    f = te.create_prim_func([idx, val, max_idx, max_val])
    assert "v_argmax_v0: T.int32 = T.if_then_else(" in f.script()
    run = tvm.build(f)
    # Ties in every row: the first maximum wins, as numpy's argmax.
    x = np.random.default_rng(5).integers(-3, 3, size=(6, 7)).astype("float32")
    cols = np.tile(np.arange(7, dtype="int32"), (6, 1))
    got_idx = tvm.nd.array(np.zeros(6, dtype="int32"))
    got_val = tvm.nd.array(np.zeros(6, dtype="float32"))
    run(tvm.nd.array(cols), tvm.nd.array(x), got_idx, got_val)
    np.testing.assert_array_equal(got_idx.numpy(), x.argmax(axis=1))
    np.testing.assert_array_equal(got_val.numpy(), x.max(axis=1))


def test_index_dtype_override_widens_the_casts_of_data_dependent_indices():
    oh = tir.Var("oh", "int64")
    A = te.placeholder((4, 128), name="A")

    def nearest(n, i):
        at = te.round(128.0 / oh.astype("float32") * i.astype("float32")).astype("int32")
        return A[n, te.max(te.min(at, 127), 0)]

    B = te.compute((4, oh), nearest, name="B")
    assert 'T.Cast("int32"' in te.create_prim_func([A, B]).script()
    widened = te.create_prim_func([A, B], index_dtype_override="int64").script()
    assert 'T.Cast("int64"' in widened and 'T.Cast("int32"' not in widened
    with pytest.raises(TypeError, match="index_dtype_override"):
        te.create_prim_func([A, B], index_dtype_override="float32")
