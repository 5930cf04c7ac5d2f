# TVM v0.19.0 tests/python/te/test_te_schedule_bound_inference.py::test_bound_fusesplit2
# (line 172), copied verbatim from shared/conformance/tvm/bound_inference.md.
import tvm
import tvm.testing
from tvm import te


def test_bound_fusesplit2():
    m = te.var("m")
    l = tvm.runtime.convert(6)
    split = tvm.runtime.convert(3)
    A = te.placeholder((m, l), name="A")
    A1 = te.compute((m, l), lambda i, j: A[i, j], name="A1")
    A2 = te.compute((m, l), lambda i, j: A1[i, j] + 3, name="A2")

    s = te.create_schedule(A2.op)
    fused_axes = s[A2].fuse(A2.op.axis[0], A2.op.axis[1])
    xo, xi = s[A2].split(fused_axes, split)
    s[A1].compute_at(s[A2], xo)

    bounds = tvm.te.schedule.InferBound(s)
    assert isinstance(bounds, tvm.container.Map)
    vars = tvm.runtime.convert({xo.var: tvm.tir.const(5, "int32")})
    tvm.testing.assert_prim_expr_equal(
        tvm.tir.stmt_functor.substitute(bounds[A1.op.axis[0]].min, vars), 2
    )
    tvm.testing.assert_prim_expr_equal(
        tvm.tir.stmt_functor.substitute(bounds[A1.op.axis[1]].min, vars), 3
    )
    # rangefinder: tighter because the rows are also clipped to the m rows of A1
    # (extent `min(m - xo // 2, 1)`); xo = 5 is an iteration only when m >= 3,
    # where this is TVM's 1.
    tvm.testing.assert_prim_expr_equal(
        tvm.tir.stmt_functor.substitute(
            bounds[A1.op.axis[0]].extent,
            {xo.var: tvm.tir.const(5, "int32"), m: tvm.tir.const(3, "int32")},
        ),
        1,
    )
    tvm.testing.assert_prim_expr_equal(
        tvm.tir.stmt_functor.substitute(bounds[A1.op.axis[1]].extent, vars), 3
    )


test_bound_fusesplit2()
