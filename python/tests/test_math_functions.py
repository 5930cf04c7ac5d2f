"""TVM's math functions on tensor elements (``te.exp``, ``tvm.tir.sigmoid``,
``te.power``, ...) lower to calls that print as ``tvm.lower`` prints them."""

import pytest

import rangefinder.tvm as tvm
from rangefinder.tvm import te


def test_math_functions_lower_to_calls():
    A = te.placeholder((4,), name="A")
    B = te.compute(
        (4,), lambda i: te.exp(A[i]) + tvm.tir.tanh(A[i]) * te.power(A[i], 2.0), name="B"
    )
    s = te.create_schedule(B.op)
    text = str(tvm.lower(s, [A, B], simple_mode=True))
    assert "B[i] = (exp(A[i]) + (tanh(A[i])*pow(A[i], 2.000000f)))" in text


def test_every_math_function_is_offered_by_te_and_tir():
    for name in ("exp", "log", "sqrt", "sigmoid", "tanh", "fabs", "abs", "power", "atan2"):
        assert getattr(te, name) is getattr(tvm.tir, name)


def test_a_math_function_checks_its_arguments():
    A = te.placeholder((4,), name="A")
    with pytest.raises(TypeError, match="takes 1 argument"):
        te.compute((4,), lambda i: te.exp(A[i], A[i]), name="B")
