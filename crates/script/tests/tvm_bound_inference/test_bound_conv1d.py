# TVM v0.19.0 tests/python/te/test_te_schedule_bound_inference.py::test_bound_conv1d
# (line 245), copied verbatim from shared/conformance/tvm/bound_inference.md.
import tvm
import tvm.testing
from tvm import te


def test_bound_conv1d():
    n = te.var("n")
    A = te.compute((n + 2), lambda i: 1, name="A")

    def computeB(ii):
        i = ii + 1
        return A[i - 1] + A[i] + A[i + 1]

    B = te.compute(n, computeB, name="B")
    s = te.create_schedule(B.op)
    s[A].compute_at(s[B], B.op.axis[0])
    s = s.normalize()
    bounds = tvm.te.schedule.InferBound(s)
    assert bounds[A.op.axis[0]].extent.value == 3


test_bound_conv1d()
