# The classic CUDA GEMM schedule: tiles of A and B are read into shared
# memory, then into registers ("local"), the output accumulates in a local
# stage, and the shared-memory loads are fetched cooperatively by the
# threads of a block. Real size 1024^3; the run uses 64x64x32.
import tvm
from tvm import te

for n, l in [(1024, 1024), (64, 32)]:
    A = te.placeholder((n, l), name="A")
    B = te.placeholder((l, n), name="B")
    k = te.reduce_axis((0, l), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")

    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "shared", [C])
    BB = s.cache_read(B, "shared", [C])
    AL = s.cache_read(AA, "local", [C])
    BL = s.cache_read(BB, "local", [C])
    CC = s.cache_write(C, "local")

    block_x = te.thread_axis("blockIdx.x")
    block_y = te.thread_axis("blockIdx.y")
    thread_x = te.thread_axis("threadIdx.x")
    thread_y = te.thread_axis("threadIdx.y")

    i, j = s[C].op.axis
    by, bx, yi, xi = s[C].tile(i, j, x_factor=32, y_factor=32)
    ty, yi = s[C].split(yi, nparts=8)
    tx, xi = s[C].split(xi, nparts=8)
    s[C].reorder(by, bx, ty, tx, yi, xi)
    s[C].bind(by, block_y)
    s[C].bind(bx, block_x)
    s[C].bind(ty, thread_y)
    s[C].bind(tx, thread_x)

    s[CC].compute_at(s[C], tx)
    yc, xc = s[CC].op.axis
    (kc,) = s[CC].op.reduce_axis
    ko, ki = s[CC].split(kc, factor=8)
    s[CC].reorder(ko, ki, yc, xc)
    s[AA].compute_at(s[CC], ko)
    s[BB].compute_at(s[CC], ko)
    s[AL].compute_at(s[CC], ki)
    s[BL].compute_at(s[CC], ki)

    for load in [AA, BB]:
        fused = s[load].fuse(*s[load].op.axis)
        tyy, rest = s[load].split(fused, nparts=8)
        txx, rest = s[load].split(rest, nparts=8)
        s[load].bind(tyy, thread_y)
        s[load].bind(txx, thread_x)

    print(tvm.lower(s, [A, B, C], simple_mode=True))
