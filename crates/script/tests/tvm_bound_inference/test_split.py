# TVM v0.19.0 tests/python/te/test_te_schedule.py::test_split
# (line 76), copied verbatim from shared/conformance/tvm/bound_inference.md.
import tvm
import pytest
import tvm.testing
from tvm import te


def test_split():
    m = te.size_var("m")
    A = te.placeholder((m,), name="A")
    T = te.compute((m,), lambda i: A[i])

    s = te.create_schedule(T.op)
    xo, xi = s[T].split(T.op.axis[0], factor=10)
    assert tuple(s[T].leaf_iter_vars) == (xo, xi)


test_split()
