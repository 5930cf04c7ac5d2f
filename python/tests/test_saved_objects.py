"""`tvm.ir.save_json` / `load_json`, `pickle` and `copy.deepcopy` of
tensors, operations and schedules under CPython: what loads back is fresh
and prints, lowers and runs the same; what cannot be saved says so."""

import copy
import pickle

import numpy as np
import pytest

import rangefinder.tvm as tvm
from rangefinder.tvm import te

tvm.install()


def _program():
    A = te.placeholder((32, 16), name="A")
    k = te.reduce_axis((0, 16), name="k")
    C = te.compute((32,), lambda i: te.sum(A[i, k] * 2.0, axis=k), name="C", attrs={"hello": 1})
    s = te.create_schedule(C.op)
    io, ii = s[C].split(C.op.axis[0], factor=8)
    s[C].parallel(io)
    return A, C, s


def _loaded_args(s):
    out = s.outputs[0].output(0)
    return [out.op.input_tensors[0], out]


def test_a_tensor_round_trips_through_save_json():
    _, C, _ = _program()
    text = tvm.ir.save_json(C)
    assert isinstance(text, str)
    C2 = tvm.ir.load_json(text)
    assert isinstance(C2, te.Tensor)
    assert str(C2) == str(C)
    assert not C2.same_as(C)
    assert C2.op.attrs["hello"] == 1


@pytest.mark.parametrize("reload", [pickle.loads, None])
def test_a_schedule_pickles_and_copies(reload):
    A, C, s = _program()
    loaded = pickle.loads(pickle.dumps(s)) if reload else copy.deepcopy(s)
    assert isinstance(loaded, te.schedule.Schedule)
    assert str(tvm.lower(loaded, _loaded_args(loaded))) == str(tvm.lower(s, [A, C]))
    f = tvm.build(loaded, _loaded_args(loaded), target="llvm")
    a = np.random.uniform(size=(32, 16)).astype("float32")
    c = tvm.nd.array(np.zeros(32, "float32"))
    f(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), (a * 2.0).sum(axis=1), rtol=1e-5)


def test_a_scan_loads_as_a_scan_op():
    m, n = te.var("m"), te.var("n")
    X = te.placeholder((m, n), name="X")
    state = te.placeholder((m, n))
    init = te.compute((1, n), lambda _, i: X[0, i])
    update = te.compute((m, n), lambda t, i: state[t - 1, i] + X[t, i])
    res = tvm.te.scan(init, update, state)
    op = tvm.ir.load_json(tvm.ir.save_json(res.op))
    assert isinstance(op, tvm.te.ScanOp)


def test_what_cannot_be_saved_raises():
    A, C, s = _program()
    with pytest.raises(TypeError, match="cannot save a value of type `IterVar`"):
        pickle.dumps(C.op.axis[0])
    with pytest.raises(ValueError, match="not one `save_json` wrote"):
        tvm.ir.load_json('{"format": "x"}')
    with pytest.raises(TypeError, match="reads the string"):
        tvm.ir.load_json(3)
