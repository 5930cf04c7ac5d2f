"""Tensor compute operations under CPython: a lambda that calls a tensor
intrinsic on tensor slices makes a ``te.TensorComputeOp``; InferBound
reaches producers through the regions passed, and the built program runs
the intrinsic's own computation on them."""

import numpy as np

import rangefinder.tvm as tvm
from rangefinder.tvm import te


def _intrin_vadd(n):
    x = te.placeholder((n,), name="vx")
    y = te.placeholder((n,), name="vy")
    z = te.compute(x.shape, lambda i: x[i] + y[i], name="z")

    def intrin_func(ins, outs):
        return tvm.tir.call_packed("vadd", ins[0].data, ins[1].data, outs[0].data)

    return te.decl_tensor_intrin(z.op, intrin_func)


def test_a_call_on_slices_is_a_tensor_compute_that_runs():
    vadd = _intrin_vadd(16)
    a = te.placeholder((8, 16), name="A")
    b = te.placeholder((8, 16), name="B")
    sl = a[2, 0:16]
    assert isinstance(sl, te.TensorSlice)
    assert [int(d) for d in sl.shape] == [1, 16]
    c = te.compute((8, 16), lambda i: vadd(a[i, 0:16], b[i, :]), name="C")
    assert isinstance(c.op, te.TensorComputeOp)
    assert not isinstance(c.op, te.ComputeOp)
    assert [iv.var.name for iv in c.op.axis] == ["i", "ax0"]
    assert c.op.intrin.name == "tensor_intrin"
    s = te.create_schedule(c.op)
    text = str(tvm.lower(s, [a, b, c], simple_mode=True))
    assert "tvm_call_packed" not in text and "vadd(A([i, 1], [0, 16])" in text
    f = tvm.build(s, [a, b, c])
    x = np.random.uniform(size=(8, 16)).astype("float32")
    y = np.random.uniform(size=(8, 16)).astype("float32")
    out = tvm.nd.array(np.zeros((8, 16), "float32"))
    f(tvm.nd.array(x), tvm.nd.array(y), out)
    np.testing.assert_allclose(out.numpy(), x + y, rtol=1e-6)


def test_bounds_reach_producers_through_the_regions():
    vadd = _intrin_vadd(16)
    a = te.placeholder((8, 16), name="A")
    b = te.placeholder((8, 16), name="B")
    p = te.compute((8, 16), lambda i, j: a[i, j] * 2, name="P")
    c = te.compute((8, 16), lambda i: vadd(p[i, 0:16], b[i, 0:16]), name="C")
    s = te.create_schedule(c.op)
    s[p].compute_at(s[c], c.op.axis[0])
    bounds = te.schedule.InferBound(s)
    assert bounds[p.op.axis[0]].extent.value == 1
    assert bounds[p.op.axis[1]].extent.value == 16


def test_pass_context_is_a_context_that_changes_no_bound():
    with tvm.transform.PassContext(opt_level=3, disabled_pass=["tir.CommonSubexprElimTIR"]):
        ctx = tvm.transform.PassContext.current()
        assert ctx.opt_level == 3
        assert list(ctx.disabled_pass) == ["tir.CommonSubexprElimTIR"]
    assert tvm.transform.PassContext.current().opt_level == 2
