# TVM v0.19.0 tests/python/te/test_te_schedule.py::test_singleton
# (line 159), copied verbatim from shared/conformance/tvm/bound_inference.md.
import tvm
import pytest
import tvm.testing
from tvm import te


def test_singleton():
    A = te.placeholder((), name="A")
    T = te.compute((), lambda: A() + 1)
    s = te.create_schedule(T.op)
    fused = s[T].fuse()
    assert any(isinstance(x, tvm.te.schedule.Singleton) for x in s[T].relations)
    assert tuple(s[T].leaf_iter_vars) == (fused,)
    dump = pkl.dumps(s)
    s_loaded = pkl.loads(dump)
    assert isinstance(s_loaded, tvm.te.schedule.Schedule)


test_singleton()
