# TVM v0.19.0 tests/python/te/test_te_schedule_bound_inference.py::test_bound_split_ext_less_than_naprts
# (line 92), copied verbatim from shared/conformance/tvm/bound_inference.md.
import tvm
import tvm.testing
from tvm import te


def test_bound_split_ext_less_than_naprts():
    m = 8
    I = te.placeholder((m,), name="I")
    EF = te.compute((m,), lambda i: I[i] * 2, name="EF")
    E = te.compute((m,), lambda i: EF[i] * 2, name="E")
    s = te.create_schedule([E.op])
    xo, xi = s[E].split(s[E].op.axis[0], nparts=32)
    s[EF].compute_at(s[E], xo)

    bounds = tvm.te.schedule.InferBound(s)
    assert isinstance(bounds, tvm.container.Map)
    assert bounds[xo].extent.value == m


test_bound_split_ext_less_than_naprts()
