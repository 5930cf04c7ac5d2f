"""What TVM's own test files and TOPI's modules need beyond TE, under
CPython: `schedule_to_module`, modules imported at the top but used only on
other paths (their names import, their use is refused), TOPI's pooling,
sum and broadcast operators (checked by value against numpy), tensors'
arithmetic operators, thread axes with domains, and a reduction across
running threads refused rather than miscomputed."""

import subprocess
import sys
import numpy as np
import pytest

import rangefinder.tvm as tvm
from rangefinder.tvm import te, topi

tvm.install()


def test_schedule_to_module_gives_a_named_prim_func():
    from tvm.driver.build_module import schedule_to_module

    A = te.placeholder((16,), name="A")
    B = te.compute((16,), lambda i: A[i] * 2.0, name="B")
    s = te.create_schedule(B.op)
    mod = schedule_to_module(s, [A, B], "f")
    assert isinstance(mod["f"], tvm.tir.PrimFunc)
    assert not isinstance(mod["f"].body, tvm.tir.PrimFunc)
    with pytest.raises(IndexError, match="one function, `f`"):
        mod["main"]


def test_modules_imported_for_other_paths_import_and_are_refused_where_used():
    from tvm import relay
    from tvm.contrib import cudnn
    from tvm.topi.nn.winograd_util import winograd_transform_matrices
    from tvm.topi.utils import tag

    assert tag.ELEMWISE == "elemwise"
    with pytest.raises(NotImplementedError, match="`tvm.relay.var` is not supported"):
        relay.var("x")
    with pytest.raises(NotImplementedError, match="cudnn.softmax"):
        cudnn.softmax(1)
    with pytest.raises(NotImplementedError, match="winograd_transform_matrices"):
        winograd_transform_matrices(2, 3, "float32")


def _run(out, inputs, arrays):
    s = te.create_schedule(out.op)
    f = tvm.build(s, list(inputs) + [out], "llvm")
    dev = tvm.cpu(0)
    nd_in = [tvm.nd.array(a.astype("float32"), dev) for a in arrays]
    shape = tuple(int(d) for d in out.shape)
    nd_out = tvm.nd.empty(shape, "float32", dev)
    f(*nd_in, nd_out)
    return nd_out.numpy()


def test_pool2d_computes_max_and_average_pooling_as_numpy_does():
    x = np.random.default_rng(3).uniform(-4, 4, size=(1, 2, 7, 7)).astype("float32")
    A = te.placeholder(x.shape, name="A")
    pmax = topi.nn.pool2d(A, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), "max")
    assert (pmax.op.name, pmax.op.tag) == ("pool_max", "pool_max")
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    want = np.array(
        [[[[padded[0, c, 2 * i : 2 * i + 3, 2 * j : 2 * j + 3].max() for j in range(4)] for i in range(4)] for c in range(2)]]
    )
    np.testing.assert_allclose(_run(pmax, [A], [x]), want, rtol=1e-6)

    pavg = topi.nn.pool2d(A, (2, 2), (1, 1), (1, 1), (0, 0, 1, 1), "avg", count_include_pad=False)
    assert pavg.op.tag == "elemwise"
    want = np.zeros((1, 2, 7, 7))
    for c in range(2):
        for i in range(7):
            for j in range(7):
                window = x[0, c, i : i + 2, j : j + 2]
                want[0, c, i, j] = window.mean()
    np.testing.assert_allclose(_run(pavg, [A], [x]), want, rtol=1e-5)


def test_sum_and_tensor_operators_broadcast_as_numpy_does():
    x = np.arange(24, dtype="float32").reshape(2, 3, 4)
    y = np.array([[1.0], [2.0], [3.0]], dtype="float32")
    A = te.placeholder(x.shape, name="A")
    B = te.placeholder(y.shape, name="B")
    S = topi.sum(A, axis=(0, 2), keepdims=True)
    assert (S.op.name, S.op.tag, tuple(S.shape)) == ("A_red", "comm_reduce", (1, 3, 1))
    np.testing.assert_allclose(_run(S, [A], [x]), x.sum(axis=(0, 2), keepdims=True))
    C = A * B - 2.0
    assert (C.op.name, C.op.tag) == ("T_subtract", "elemwise")
    assert (A * B).op.tag == "broadcast"
    np.testing.assert_allclose(_run(C, [A, B], [x, y]), x * y - 2.0)


def test_thread_axes_with_domains_bind_and_a_reduction_across_running_threads_runs():
    n, m = 4, 64
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), name="k")
    S = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="S")
    O = te.compute((n, m), lambda i, j: A[i, j] / S[i], name="O")
    s = te.create_schedule(O.op)
    tx = te.thread_axis((0, 32), "threadIdx.x")
    xo, xi = s[O].split(O.op.axis[1], nparts=32)
    s[O].bind(xo, tx)
    ko, ki = s[S].split(S.op.reduce_axis[0], nparts=32)
    s[S].bind(ko, tx)
    s[S].compute_at(s[O], xo)
    # Every thread of the row's warp reads the row's sum the threads
    # combined: the built function computes A / sum(A).
    f = tvm.build(s, [A, O], target="cuda")
    x = np.random.default_rng(0).uniform(1.0, 2.0, size=(n, m)).astype("float32")
    a, o = tvm.nd.array(x), tvm.nd.array(np.zeros((n, m), dtype="float32"))
    f(a, o)
    np.testing.assert_allclose(o.numpy(), x / x.sum(axis=1, keepdims=True), rtol=1e-5)
    vx = te.thread_axis((0, 2), "vthread", name="vx")
    assert vx.var.name == "vx"
    with pytest.raises(TypeError, match="starts at 0"):
        te.thread_axis((1, 2), "threadIdx.x")


PYTEST_FIXTURES_TEST = '''
import tvm
import tvm.testing
from tvm import te

size = tvm.testing.parameter(4, 8)
dtype = tvm.testing.parameter(by_dict={"f32": "float32", "i32": "int32"})
rows, cols = tvm.testing.parameters((2, 3), (5, 7))


@tvm.testing.fixture
def tensor(size, dtype):
    return te.placeholder((size,), dtype=dtype, name="A")


def test_every_combination(tensor, size, dtype):
    assert [int(d) for d in tensor.shape] == [size] and tensor.dtype == dtype


def test_correlated(rows, cols):
    assert (rows, cols) in [(2, 3), (5, 7)]


@tvm.testing.parametrize_targets("llvm", "c")
def test_targets(target):
    assert target in ("llvm", "c")


def test_default_target(target, dev):
    assert target == "llvm" and dev is not None


if __name__ == "__main__":
    tvm.testing.main()
'''


def test_tvm_testing_main_runs_the_file_under_pytest_with_tvms_fixtures(tmp_path):
    # `tvm.testing.parameter`, `parameters` (values taken together),
    # `fixture`, `parametrize_targets` and the `target`/`dev` fixtures, as
    # TVM's own test files use them; `tvm.testing.main()` runs pytest.
    pytest.importorskip("pytest")
    path = tmp_path / "test_fixtures.py"
    path.write_text(PYTEST_FIXTURES_TEST)
    run = subprocess.run(
        [sys.executable, "-m", "rangefinder.tvm", str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "9 passed" in run.stdout, run.stdout


def test_declared_buffer_sizes_are_intimm():
    # `ins[0].shape[0].value` in a tensor intrinsic's function, as TVM's
    # tests read it.
    buf = tvm.tir.decl_buffer((16, 4), "float32", name="b")
    assert buf.shape[0].value == 16 and buf.shape == [16, 4]


def test_scan_fix_points_are_intimms_by_spatial_axis():
    m, n = 4, 5
    state = te.placeholder((m, n), name="state")
    init = te.compute((1, n), lambda _, i: state[0, i] * 0.0, name="init")
    update = te.compute((m, n), lambda t, i: state[t - 1, i] + 1.0, name="update")
    res = te.scan(init, update, state)
    fxpt = tvm.te.schedule.ScanFixPointAnalysis(res.op)
    assert [fxpt[iv].value for iv in res.op.spatial_axis_] == [1]
    assert [op.name for op in tvm.te.schedule.ScanGetBody(res.op)] == ["update"]


def test_fuse_of_no_axes_and_the_schedule_record():
    A = te.placeholder((), name="A")
    T = te.compute((), lambda: A() + 1.0, name="T")
    s = te.create_schedule(T.op)
    fused = s[T].fuse()
    assert any(isinstance(x, tvm.te.schedule.Singleton) for x in s[T].relations)
    assert tuple(s[T].leaf_iter_vars) == (fused,)
    assert "for" not in str(tvm.lower(s, [A, T], simple_mode=True))

    assert len(te.create_schedule(T.op).schedule_record) == 0
    with tvm.transform.PassContext(config={"te.keep_schedule_record": True}):
        B = te.placeholder((64, 64), name="B")
        C = te.compute((64, 64), lambda i, j: B[i, j] * 2.0, name="C")
        s = te.create_schedule(C.op)
        s[C].tile(C.op.axis[0], C.op.axis[1], 8, 8)
        s[C].vectorize(s[C].leaf_iter_vars[-1])
    assert list(s.primitive_record) == ["vanilla", "split", "split", "reorder", "vectorize"]
    assert len(s.schedule_record[0][C].leaf_iter_vars) == 2


CAUGHT_LOWERING_ERROR = '''
import tvm
from tvm import te

A = te.compute((16,), lambda i: 1.0, name="A")
C = te.compute((16,), lambda i: A[i] + 1.0, name="C")
s = te.create_schedule(C.op)
s[C].compute_at(s[C], C.op.axis[0])
try:
    tvm.lower(s, [A, C])
except RuntimeError:
    print("invalid, as expected")
'''


def test_a_schedule_whose_lowering_error_the_script_caught_is_not_reported_again(tmp_path):
    path = tmp_path / "caught.py"
    path.write_text(CAUGHT_LOWERING_ERROR)
    run = subprocess.run(
        [sys.executable, "-m", "rangefinder.tvm", str(path)], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "invalid, as expected" in run.stdout


def test_tvm_ffi_base_names_tvm_error():
    import tvm._ffi.base

    A = te.placeholder((8, 8), name="A")
    k = te.reduce_axis((0, 8), "k")
    assert tvm._ffi.base.TVMError is tvm.error.TVMError
    with pytest.raises(tvm._ffi.base.TVMError):
        te.compute((8,), lambda i: te.sum(A[i, k], axis=k) + 1, name="B")


def test_topi_testing_hands_out_topis_x86_injective_schedule():
    import tvm.topi.testing

    A = te.placeholder((2, 3, 5, 48), name="A")
    B = te.placeholder((5, 48), name="B")
    C = topi.add(A, B)
    with tvm.target.Target("llvm"):
        s = tvm.topi.testing.get_broadcast_schedule("llvm")(C)
    text = str(tvm.lower(s, [A, B, C]))
    assert "parallel (ax0.ax1.fused, 0, 6)" in text
    assert "vectorized (ax3.inner, 0, 16)" in text
    f = tvm.build(s, [A, B, C], "llvm")
    a = np.random.uniform(size=(2, 3, 5, 48)).astype("float32")
    b = np.random.uniform(size=(5, 48)).astype("float32")
    c = tvm.nd.array(np.zeros((2, 3, 5, 48), "float32"))
    f(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a + b, rtol=1e-6)
    with pytest.raises(NotImplementedError, match="tvm.topi.cuda.schedule_injective"):
        tvm.topi.testing.get_injective_schedule("cuda")(C)
