# Square matmul tiled for a GPU without shared memory: each block computes
# a 16x16 tile, one output per thread, the reduction split by 8 and kept
# inside the thread. Shape 1024x1024x1024; the run uses 32x32x32.
import tvm
from tvm import te

for n in [1024, 32]:
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    i, j = s[C].op.axis
    bi, bj, ti, tj = s[C].tile(i, j, x_factor=16, y_factor=16)
    ko, ki = s[C].split(s[C].op.reduce_axis[0], factor=8)
    s[C].bind(bi, te.thread_axis("blockIdx.y"))
    s[C].bind(bj, te.thread_axis("blockIdx.x"))
    s[C].bind(ti, te.thread_axis("threadIdx.y"))
    s[C].bind(tj, te.thread_axis("threadIdx.x"))
    print(tvm.lower(s, [A, B, C], simple_mode=True))
