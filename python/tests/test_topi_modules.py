"""What TOPI's own modules use beyond TE (see
crates/script/tests/topi_modules.rs): the same program prints the same
under CPython as under ``rangefinder te``; ``const_matrix`` takes a numpy
array, which only CPython has."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rangefinder.tvm as tvm
from rangefinder.tvm import te

PROGRAMS = Path(__file__).resolve().parents[2] / "crates/script/tests/programs"


@pytest.mark.parametrize(
    "name, marker",
    [
        ("topi_module_api.py", "RuntimeError: schedule not registered for 'cuda"),
        ("autotvm_fallback.py", "vectorized (j.inner.inner, 0, 4)"),
        ("value_conditions.py", "(x[i] >= -0.250000f) && (x[i] < 0.250000f)"),
        ("bitwise.py", "popcount(bitwise_xor(packed[i], shift_right(packed[i], 2)))"),
        ("cpp_operators.py", "bilinear_sample_nchw True"),
        ("ir_builder.py", "scatter_add True"),
        ("x86_conv2d_blocked.py", "unrolled (oh.c.inner, 0, 3)"),
        ("cuda_conv2d_direct.py", "allocate conv2d_nchw.local[float32 * 1 * 1 * 1 * 1]"),
        ("module_files.py", "['myadd.o', 'myadd.so', 'myadd_pack.so']"),
        ("packed_functions.py", "[[12.0, 2.0, 8.0], [1.0, 0.0, 2.0]]"),
        ("scalar_params.py", "D[i, j] = (C[i, j] + bias)"),
        ("producers_and_scan_groups.py", "realize PQ.v1 min(h - i.outer * 4, 4)"),
        ("while_loops.py", "[[0, 1, 7, 7, 8], [0, 2, 4, 5, 8]]"),
    ],
)
def test_both_front_ends_print_the_same(cli, name, marker):
    program = PROGRAMS / name
    te_out = cli("te", program).stdout
    py = subprocess.run(
        [sys.executable, "-m", "rangefinder.tvm", str(program)], capture_output=True, text=True
    )
    assert py.returncode == 0, py.stderr
    assert py.stdout == te_out
    assert marker in te_out


def test_autotvm_configurations_from_python():
    from rangefinder.tvm import autotvm
    from rangefinder.tvm.autotvm.task.space import SplitEntity

    @autotvm.register_topi_compute("double.x86")
    def double(cfg, a):
        cfg.define_split("tile", 16, num_outputs=3)
        assert cfg.is_fallback and cfg["tile"].size == [-1, 1, 1]
        cfg["tile"] = SplitEntity([-1, 2, 4])
        return te.compute(a.shape, lambda i: a[i] * 2.0, name="double")

    @autotvm.register_topi_schedule("double.x86")
    def schedule_double(cfg, outs):
        s = te.create_schedule([x.op for x in outs])
        parts = cfg["tile"].apply(s, outs[0], outs[0].op.axis[0])
        assert len(parts) == 3
        return s

    a = te.placeholder((16,), name="a")
    with tvm.target.Target("llvm"):
        out = double(a)
        s = schedule_double([out])
    text = str(tvm.lower(s, [a, out], simple_mode=True))
    assert "for (i.inner.inner, 0, 4)" in text, text
    with pytest.raises(RuntimeError, match="Cannot find TOPI workload"):
        schedule_double([a])


def test_const_matrix_holds_the_array_and_runs():
    from rangefinder.tvm.topi.utils import const_matrix

    values = np.array([[1.0, -0.5, 0.0], [0.25, 2.0, 3.0]], dtype="float32")
    G = const_matrix(values, "G")
    assert [int(d) for d in G.shape] == [2, 3] and G.op.name == "G"
    assert G.op.attrs["schedule_rule"] == "None"
    s = te.create_schedule(G.op)
    text = str(tvm.lower(s, [G], simple_mode=True))
    assert text.count("if_then_else") == 6, text
    f = tvm.build(s, [G])
    out = tvm.nd.array(np.zeros((2, 3), "float32"))
    f(out)
    np.testing.assert_array_equal(out.numpy(), values)


def test_const_matrix_refuses_what_is_not_a_matrix():
    from rangefinder.tvm.topi.utils import const_matrix

    with pytest.raises(ValueError, match="two-dimensional"):
        const_matrix(np.zeros((2, 2, 2), "float32"))
    with pytest.raises(TypeError, match="numpy array"):
        const_matrix([[1.0]])
    with pytest.raises(ValueError, match="too large"):
        const_matrix(np.zeros((100, 100), "float32"))


def test_numpy_arrays_reach_the_layer_with_their_dtype():
    a = tvm.nd.array(np.arange(6, dtype="int64").reshape(2, 3))
    assert a.dtype == "int64" and a.numpy().tolist() == [[0, 1, 2], [3, 4, 5]]


def test_topi_cpp_reductions_and_the_nn_alias():
    # `nn/pooling.py` imports `cpp` into `tvm.topi.nn`; `reduction.py`
    # calls `cpp.sum(data, axis, keepdims)`.
    from rangefinder.tvm import topi
    from rangefinder.tvm.topi.nn import cpp

    assert cpp is topi.cpp
    x = te.placeholder((4, 6), name="x")
    assert [int(d) for d in cpp.sum(x, [1], False).shape] == [4]
    assert [int(d) for d in topi.cpp.argmax(x, [1], True, False).shape] == [4, 1]


def test_helpers_topi_imports_from_tvm_modules():
    # `scatter.py` imports the analyzer from `tvm.arith.analyzer`, `scan.py`
    # passes `tvm.tir.generic.add` as its operator.
    from rangefinder.tvm.arith.analyzer import Analyzer
    from rangefinder.tvm.tir import generic

    n = te.var("n")
    an = Analyzer()
    assert an.can_prove_equal(3, 3) and not an.can_prove_equal(3, 4)
    assert an.can_prove_equal(n * 2 - n, n) and not an.can_prove_equal(n, 1)
    a = te.placeholder((4,), name="a")
    c = te.compute((4,), lambda i: generic.add(a[i], generic.multiply(a[i], 2.0)), name="c")
    s = te.create_schedule(c.op)
    assert "c[i] = (a[i] + (a[i]*2.000000f))" in str(tvm.lower(s, [a, c], simple_mode=True))
    from rangefinder.tvm.topi.nn.utils import infer_pad3d, infer_stride

    x = te.placeholder((1, 3, 8, 10, 12), name="x")
    xp = te.placeholder((1, 3, 10, 12, 16), name="xp")
    assert infer_pad3d(x, xp, "NCDHW") == (2, 2, 4)
    k = te.placeholder((4, 3, 3, 3), name="k")
    o = te.placeholder((1, 4, 4, 1), name="o")
    assert infer_stride(te.placeholder((1, 3, 9, 5), name="d"), k, o) == (2, 3)
