# TVM v0.19.0 tests/python/te/test_te_schedule_bound_inference.py::test_bound_tile_divisible
# (line 119), copied verbatim from shared/conformance/tvm/bound_inference.md.
import tvm
import tvm.testing
from tvm import te


def test_bound_tile_divisible():
    m = te.var("m")
    l = te.var("l")
    shape = (8 * m, 32 * l)
    A = te.placeholder(shape, name="A")
    B = te.compute(shape, lambda i, j: A[i, j], name="B")
    s = te.create_schedule(B.op)
    xo, yo, xi, yi = s[B].tile(B.op.axis[0], B.op.axis[1], 8, 32)
    bounds = tvm.te.schedule.InferBound(s)
    assert isinstance(bounds, tvm.container.Map)
    assert bounds[xo].extent == m
    assert bounds[xi].extent.value == 8
    assert bounds[yo].extent == l
    assert bounds[yi].extent.value == 32


test_bound_tile_divisible()
