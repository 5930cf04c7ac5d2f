# TVM v0.19.0 tests/python/te/test_te_schedule_bound_inference.py::test_bound_rfactor
# (line 280), copied verbatim from shared/conformance/tvm/bound_inference.md.
import tvm
import tvm.testing
from tvm import te


def test_bound_rfactor():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    k = te.reduce_axis((0, n))
    B = te.compute((1,), lambda i: te.sum(A[k], axis=k, where=(i > 1)), name="B")
    # schedule
    s = te.create_schedule(B.op)
    kf, ki = s[B].split(k, nparts=4)
    BF = s.rfactor(B, kf)
    s = s.normalize()
    bounds = tvm.te.schedule.InferBound(s)

    assert bounds[BF.op.axis[0]].extent.value == 4
    assert bounds[BF.op.axis[1]].extent.value == 1


test_bound_rfactor()
