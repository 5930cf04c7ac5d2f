# TVM v0.19.0 tests/python/te/test_te_schedule_bound_inference.py::test_bound_blur
# (line 261), copied verbatim from shared/conformance/tvm/bound_inference.md.
import tvm
import tvm.testing
from tvm import te


def test_bound_blur():
    n = tvm.runtime.convert(12)
    A = te.compute((n, n), lambda i, j: 1, name="A")

    def computeB(ii, jj):
        # set the correct center
        i = ii + 1
        j = jj + 1
        return A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j + 1] + A[i][j - 1]

    B = te.compute((n - 2, n - 2), computeB, name="B")
    s = te.create_schedule(B.op)
    s[A].compute_at(s[B], B.op.axis[1])
    s = s.normalize()
    bounds = tvm.te.schedule.InferBound(s)
    assert bounds[A.op.axis[0]].extent.value == 3
    assert bounds[A.op.axis[1]].extent.value == 3


test_bound_blur()
