# TVM v0.19.0 tests/python/te/test_te_schedule_bound_inference.py::test_bound_split_divisible
# (line 106), copied verbatim from shared/conformance/tvm/bound_inference.md.
import tvm
import tvm.testing
from tvm import te


def test_bound_split_divisible():
    m = te.var("m")
    l = te.var("l")
    A = te.placeholder((8 * m, l), name="A")
    B = te.compute((8 * m, l), lambda i, j: A[i, j], name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], 8)
    bounds = tvm.te.schedule.InferBound(s)
    assert isinstance(bounds, tvm.container.Map)
    assert bounds[xo].extent == m
    assert bounds[xi].extent.value == 8


test_bound_split_divisible()
