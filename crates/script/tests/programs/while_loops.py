# `ib.while_loop(cond)`: a loop that runs as long as its condition holds,
# as TOPI's binary searches write it (`searchsorted`, sorting, NMS). Here:
# for each query, the position of the first element of a sorted row that
# is not smaller (a lower bound), and Collatz step counts. Run by both
# front ends (crates/script/tests/while_loops.rs,
# python/tests/test_topi_modules.py).
import tvm
from tvm import te

rows, width, queries = 2, 8, 5
sorted_rows = te.placeholder((rows, width), name="sorted_rows")
values = te.placeholder((rows, queries), name="values")


def lower_bound_ir(seq_buf, val_buf, out_buf):
    ib = tvm.tir.ir_builder.create()
    seq = ib.buffer_ptr(seq_buf)
    val = ib.buffer_ptr(val_buf)
    out = ib.buffer_ptr(out_buf)
    with ib.for_range(0, rows * queries, name="q") as q:
        r = q // queries
        lo = ib.allocate("int32", (1,), name="lo", scope="local")
        hi = ib.allocate("int32", (1,), name="hi", scope="local")
        lo[0] = 0
        hi[0] = width
        with ib.while_loop(lo[0] < hi[0]):
            mid = lo[0] + (hi[0] - lo[0] >> 1)
            with ib.if_scope(seq[r, mid] < val[r, q % queries]):
                lo[0] = mid + 1
            with ib.else_scope():
                hi[0] = mid
        out[r, q % queries] = lo[0]
    return ib.get()


positions = te.extern(
    (rows, queries),
    [sorted_rows, values],
    lambda ins, outs: lower_bound_ir(ins[0], ins[1], outs[0]),
    dtype="int32",
    name="lower_bound",
)
s = te.create_schedule(positions.op)
print(tvm.lower(s, [sorted_rows, values, positions], simple_mode=True))
f = tvm.build(s, [sorted_rows, values, positions], "llvm")
seq = tvm.nd.array(
    [[1.0, 2.0, 2.0, 4.0, 7.0, 9.0, 9.0, 12.0], [-5.0, -1.0, 0.0, 0.0, 3.0, 8.0, 8.0, 8.0]]
)
val = tvm.nd.array([[0.0, 2.0, 9.5, 12.0, 13.0], [-6.0, 0.0, 1.0, 8.0, 8.5]])
out = tvm.nd.array([[0] * queries] * rows, dtype="int32")
f(seq, val, out)
print(out)

# A loop whose trip count only running it tells: Collatz steps to 1.
n = 6
start = te.placeholder((n,), name="start", dtype="int32")


def collatz_ir(start_buf, out_buf):
    ib = tvm.tir.ir_builder.create()
    x0 = ib.buffer_ptr(start_buf)
    out = ib.buffer_ptr(out_buf)
    with ib.for_range(0, n, name="i") as i:
        x = ib.allocate("int32", (1,), name="x", scope="local")
        x[0] = x0[i]
        out[i] = 0
        with ib.while_loop(x[0] > 1):
            with ib.if_scope(x[0] % 2 == 0):
                x[0] = x[0] // 2
            with ib.else_scope():
                x[0] = 3 * x[0] + 1
            out[i] = out[i] + 1
    return ib.get()


steps = te.extern((n,), [start], lambda ins, outs: collatz_ir(ins[0], outs[0]), dtype="int32", name="collatz")
s2 = te.create_schedule(steps.op)
g = tvm.build(s2, [start, steps], "llvm")
counts = tvm.nd.array([0] * n, dtype="int32")
g(tvm.nd.array([1, 2, 3, 6, 7, 27], dtype="int32"), counts)
print(counts)
print(tvm.lower(s2, [start, steps]).script())
