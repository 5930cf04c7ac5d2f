"""Hybrid scripts under CPython: a decorated function called with tensors
parses into an operation (the API layer reads its source), called with
numpy arrays it runs as Python; ``te.hybrid.build`` writes a schedule back
as a hybrid function that does both again."""

import numpy as np

import rangefinder.tvm as tvm
from rangefinder.tvm import te
from rangefinder.tvm.te.hybrid import script
from rangefinder.tvm.te.hybrid.runtime import HYBRID_GLOBALS


@script
def outer_product(n, m, a, b):
    c = output_tensor((n, m), a.dtype)  # noqa: F821 - a hybrid function
    for i in range(n):
        for j in range(m):
            c[i, j] = a[i] * b[j]
    return c


def _build_and_run(outs, args, arrays):
    s = te.create_schedule([t.op for t in outs])
    f = tvm.build(s, args + outs)
    results = [tvm.nd.array(np.zeros([int(d) for d in t.shape], t.dtype)) for t in outs]
    f(*[tvm.nd.array(a) for a in arrays], *results)
    return [r.numpy() for r in results]


def test_called_with_tensors_it_parses_and_with_arrays_it_runs_as_python():
    a = te.placeholder((5,), name="a")
    b = te.placeholder((4,), name="b")
    c = outer_product(5, 4, a, b)
    assert isinstance(c.op, te.HybridOp)
    assert [t.name for t in c.op.inputs] == ["a", "b"]
    x = np.arange(5, dtype="float32")
    y = np.arange(4, dtype="float32") + 1
    (got,) = _build_and_run([c], [a, b], [x, y])
    np.testing.assert_allclose(got, outer_product(5, 4, x, y))
    # The emulation leaves the function's globals as they were.
    assert all(k not in globals() for k in HYBRID_GLOBALS)


def test_a_call_of_another_hybrid_function_is_inlined():
    @script
    def foo(a, b):
        c = outer_product(3, 3, a, b)
        d = output_tensor(c.shape, c.dtype)  # noqa: F821
        for i in range(3):
            for j in const_range(3):  # noqa: F821
                d[i, j] = c[i, j] + i * j
        return d

    a = te.placeholder((3,), name="a")
    b = te.placeholder((3,), name="b")
    d = foo(a, b)
    x = np.array([1, 2, 3], "float32")
    y = np.array([4, 5, 6], "float32")
    (got,) = _build_and_run([d], [a, b], [x, y])
    np.testing.assert_allclose(got, foo(x, y))


def test_hybrid_build_round_trips_through_its_source(tmp_path):
    a = te.placeholder((6,), name="a")
    b = te.placeholder((5,), name="b")
    c = outer_product(6, 5, a, b)
    s = te.create_schedule(c.op)
    s[c].split(c.op.axis[0], 4)
    module = te.hybrid.build(s, [a, b], [c])
    assert "if likely(" in module.get_source()
    path = tmp_path / "hybrid.py"
    module.save(str(path))
    loaded = te.hybrid.HybridModule()
    loaded.load(str(path))
    x = np.arange(6, dtype="float32")
    y = np.arange(5, dtype="float32")
    np.testing.assert_allclose(loaded(x, y), np.outer(x, y))
    c2 = loaded(a, b)
    (got,) = _build_and_run([c2], [a, b], [x, y])
    np.testing.assert_allclose(got, np.outer(x, y))


def test_scheduled_hybrid_loops_compute_what_the_script_does():
    @script
    def blur(a):
        b = output_tensor((30, 30), "float32")  # noqa: F821
        for i in range(2, 32):
            for j in range(2, 32):
                s = 0.0
                for di in range(3):
                    for dj in range(3):
                        s += a[i - di, j - dj]
                b[i - 2, j - 2] = s / 9.0
        return b

    a = te.placeholder((32, 32), "float32", "a")
    b = blur(a)
    s = te.create_schedule(b.op)
    i, j, di, dj = b.op.axis
    io, ii = s[b].split(i, 7)
    s[b].parallel(io)
    f = tvm.build(s, [a, b])
    x = np.random.default_rng(0).standard_normal((32, 32)).astype("float32")
    out = tvm.nd.array(np.zeros((30, 30), "float32"))
    f(tvm.nd.array(x), out)
    np.testing.assert_allclose(out.numpy(), blur(x), rtol=1e-5)


def test_a_scatter_runs_as_in_python():
    @script
    def invert_permutation(data):
        result = output_tensor(data.shape, data.dtype)  # noqa: F821
        for ind in range(data.shape[0]):
            r_ind = data[ind]
            result[r_ind] = ind
        return result

    data = te.placeholder((5,), "int32", name="data")
    r = invert_permutation(data)
    perm = np.array([3, 4, 0, 2, 1], "int32")
    (got,) = _build_and_run([r], [data], [perm])
    np.testing.assert_array_equal(got, invert_permutation(perm))
    np.testing.assert_array_equal(got, [2, 4, 3, 0, 1])
