"""rangefinder.tvm is a front end over the API layer (`tvm_api`): its
functions are the layer's, resolved by name; values convert both ways
(sizes with `__index__`, such as numpy integers); TVM's classes answer
`isinstance` through the layer; errors keep the layer's class and message."""

import pytest

import rangefinder
import rangefinder._native as native
import rangefinder.tvm as tvm
from rangefinder.tvm import te, tir


class Int64:
    """An integer type of another library (numpy's `np.int64`): not an
    `int`, but usable as one through `__index__`."""

    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v


def test_functions_are_the_layers():
    assert isinstance(te.compute, native.Object)
    assert str(te.compute) == "<built-in function te.compute>"
    # Every spelling is one function of the layer.
    assert str(tvm.compute) == str(te.compute)
    assert str(native.resolve("tvm.te.schedule.InferBound")) == str(te.schedule.InferBound)
    with pytest.raises(AttributeError, match="not supported by rangefinder"):
        native.resolve("tvm.te.no_such_function")


def test_sizes_with_index_are_integers():
    n = Int64(8)
    A = te.placeholder((n, Int64(4)), name="A")
    assert A.shape == [8, 4]
    B = te.compute((n, 4), lambda i, j: A[i, j] * 2.0, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=Int64(3))
    r = rangefinder.report(s, [A, B], run=True)
    assert r["check"]["out_of_bounds"] == 0 and r["check"]["max_abs_error"] == 0


def test_isinstance_asks_the_layer():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], factor=4)
    fused = s[B].fuse(xo, xi)
    n = te.var("n")
    assert isinstance(A, te.Tensor) and not isinstance(A.op, te.Tensor)
    assert isinstance(B.op, te.Operation)
    assert isinstance(xo, tir.IterVar) and not isinstance(xo, tir.PrimExpr)
    assert isinstance(n, tir.Var) and isinstance(n, tir.PrimExpr) and isinstance(n + 1, tir.PrimExpr)
    assert not isinstance(n + 1, tir.Var) and not isinstance(3, tir.PrimExpr)
    assert isinstance(s, te.Schedule) and isinstance(s[B], te.Stage)
    split, fuse = s[B].relations
    assert isinstance(split, te.schedule.Split) and not isinstance(split, te.schedule.Fuse)
    assert isinstance(fuse, te.schedule.Fuse)
    assert isinstance(te.schedule.InferBound(s), tvm.container.Map)
    assert isinstance(tvm.ir.Range(0, 4), tvm.ir.Range)
    with pytest.raises(TypeError, match="constructed"):
        te.Tensor()


def test_relations_have_tvms_attributes():
    A = te.placeholder((10,), name="A")
    B = te.compute((10,), lambda i: A[i] + 1.0, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], nparts=3)
    f = s[B].fuse(xo, xi)
    split, fuse = s[B].relations
    assert split.parent == B.op.axis[0] and split.outer == xo and split.inner == xi
    assert split.factor is None and split.nparts.value == 3
    assert fuse.outer == xo and fuse.inner == xi and fuse.fused == f
    assert not hasattr(split, "fused")


def test_errors_keep_the_layers_class_and_message():
    A = te.placeholder((4, 4), name="A")
    with pytest.raises(ValueError, match="the shape has 2 dimensions but the function takes 3"):
        te.compute((4, 4), lambda i, j, k: A[i, i])
    with pytest.raises(IndexError, match="has 2 dimensions but 3 indices"):
        te.compute((4,), lambda i: A[i, i, i])
    with pytest.raises(TypeError, match="`compute` needs a lambda or function, found a int"):
        te.compute((4,), 1)
    with pytest.raises(rangefinder.Error, match="does not fit in 64 bits"):
        te.var("n") + 2**70


def test_callbacks_may_call_the_api_and_raise_through_it():
    A = te.placeholder((4,), name="A")

    def body(i):
        k = te.reduce_axis((0, 4), name="k")  # the API, called from inside a callback
        return te.sum(A[k] * A[i], axis=k)

    B = te.compute((4,), body, name="B")
    assert [str(x) for x in B.op.reduce_axis] == ["k"]

    class Boom(Exception):
        pass

    def raising(i):
        raise Boom(i)

    with pytest.raises(Boom):
        te.compute((4,), raising)
    # The session survives the failed call.
    s = te.create_schedule(B.op)
    assert tvm.session().target()[0] is not None and rangefinder.report(s)["stages"]


def test_and_or_on_conditions_are_the_layers_all_and_any():
    i, n = te.var("i"), te.var("n")
    both = (i < n) & (0 <= i)
    assert str(both) == str(tir.all(i < n, 0 <= i))
    assert str((i < n) | True) == str(tir.any(i < n, True))
    an = rangefinder.Analyzer()
    an.bind(i, (0, 4))
    an.bind(n, (4, 8))
    assert an.can_prove(both)
    with pytest.raises(TypeError, match="condition"):
        (i + 1) & (i < n)


def test_every_name_the_modules_export_exists():
    import rangefinder.tvm.te.schedule as schedule

    for module in (tvm, te, tir, schedule, tvm.ir, tvm.runtime, tvm.container, tvm.testing, tir.stmt_functor):
        missing = [n for n in module.__all__ if not hasattr(module, n)]
        assert missing == [], module.__name__
    assert te.IndexMap is tir.IndexMap is rangefinder.IndexMap


def _matmul():
    n = 8
    A = te.placeholder((n, n), name="A")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * A[k, j], axis=k), name="C")
    return A, k, C, te.create_schedule(C.op)


def test_iter_vars_have_tvm_kinds_and_thread_tags():
    _, k, C, _ = _matmul()
    i, _ = C.op.axis
    tx = te.thread_axis("threadIdx.x")
    assert (i.iter_type, k.iter_type, tx.iter_type) == (0, 2, 1)
    assert (i.thread_tag, tx.thread_tag) == ("", "threadIdx.x")
    assert k.iter_type == te.IterVar.CommReduce == tir.IterVar.CommReduce == 2
    assert (te.IterVar.DataPar, te.IterVar.ThreadIndex, te.IterVar.Tensorized) == (0, 1, 8)


def test_schedules_expose_outputs_stage_map_and_origin_op():
    _, _, C, s = _matmul()
    assert s.outputs[0] == C.op and len(s.outputs) == 1
    assert s.stage_map[C.op].op == C.op
    assert s[C].origin_op == C.op
    assert len(s.stages) == len(s.stage_map) == 2
    s[C].split(C.op.axis[0], factor=4)
    assert len(s[C].relations) == 1
    assert (len(s[C].leaf_iter_vars), len(s[C].all_iter_vars)) == (4, 5)


def test_the_infer_bound_map_is_a_mapping():
    _, _, C, s = _matmul()
    xo, xi = s[C].split(C.op.axis[0], factor=4)
    bounds = tvm.te.schedule.InferBound(s)
    assert len(bounds) == len(bounds.keys()) == len(bounds.values()) == len(bounds.items()) > 0
    assert xi in bounds and xo in bounds
    assert te.reduce_axis((0, 2), name="z") not in bounds
    assert [iv for iv in bounds] == list(bounds.keys())
    for iv, r in bounds.items():
        assert bounds[iv].extent == r.extent
    assert int(bounds[xi].extent) == 4


def test_ranges_are_the_layers_and_reduction_domains():
    k = te.reduce_axis(tvm.ir.Range(2, 10), name="k")
    assert (int(k.dom.min), int(k.dom.extent)) == (2, 8)
    r = tvm.ir.Range.from_min_extent(3, 5)
    assert (int(r.min), int(r.extent), int(tvm.ir.Range(4).extent)) == (3, 5, 4)
    assert te.reduce_axis(r, name="m").iter_type == te.IterVar.CommReduce


def test_invert_negates_conditions_and_var_checks_dtype():
    n = te.var("n", dtype="int64")
    assert str(~(n < 4)) == "not n < 4"
    with pytest.raises(Exception, match="needs a condition"):
        ~(n + 1)
    te.var("m", "int32")
    assert te.var("x", dtype="float32").dtype == "float32"
    with pytest.raises(Exception, match="a size is an integer"):
        te.size_var("x", dtype="float32")


def test_undecided_equality_is_identity_as_tvms_equal_op():
    x, y = te.var("x"), te.var("y")
    assert bool(x == x) and not bool(x == y) and bool(x != y) and not bool(x != x)
    e = x + y
    assert bool(e == e) and not bool(e == x + y)
    with pytest.raises(Exception, match="cannot decide"):
        bool(x < y)


def test_transform_layout_takes_an_index_map_or_its_text():
    for mapping in ("lambda i, j: [j, i]", rangefinder.IndexMap("lambda i, j: [j, i]")):
        A = te.placeholder((4, 8), name="A")
        B = te.compute((4, 8), lambda i, j: A[i, j] * 2.0, name="B")
        s = te.create_schedule(B.op)
        axes = s[B].transform_layout(mapping)
        assert [int(iv.dom.extent) for iv in axes] == [8, 4]
