# TOPI's CUDA batch_matmul schedule: the two operands are staged through
# shared memory and registers, the output through a local stage, with
# virtual threads (vthread) to interleave tiles and threads bound with an
# explicit extent (te.thread_axis((0, n), "threadIdx.x")). BERT-base
# attention context, 12 heads of 128x128 by 128x64; the run uses 1 head of
# 32x16 by 16x32.
import tvm
from tvm import te

for heads, m, kdim, n in [(12, 128, 128, 64), (1, 32, 16, 32)]:
    x = te.placeholder((heads, m, kdim), name="x")
    y = te.placeholder((heads, n, kdim), name="y")
    k = te.reduce_axis((0, kdim), name="k")
    C = te.compute(
        (heads, m, n), lambda b, i, j: te.sum(x[b, i, k] * y[b, j, k], axis=k), name="T_batch_matmul_NT"
    )
    s = te.create_schedule(C.op)
    AA = s.cache_read(x, "shared", [C])
    AL = s.cache_read(AA, "local", [C])
    BB = s.cache_read(y, "shared", [C])
    BL = s.cache_read(BB, "local", [C])
    CC = s.cache_write(C, "local")

    num_thread = 8
    vthread = 2
    b, yy, xx = s[C].op.axis
    by, yi = s[C].split(yy, factor=num_thread * vthread * 2)
    bx, xi = s[C].split(xx, factor=num_thread * vthread * 2)
    thread_x = te.thread_axis((0, num_thread), "threadIdx.x")
    thread_y = te.thread_axis((0, num_thread), "threadIdx.y")
    thread_xz = te.thread_axis((0, vthread), "vthread", name="vx")
    thread_yz = te.thread_axis((0, vthread), "vthread", name="vy")
    ty, yi = s[C].split(yi, nparts=vthread)
    tx, xi = s[C].split(xi, nparts=vthread)
    tyy, yi = s[C].split(yi, nparts=num_thread)
    txx, xi = s[C].split(xi, nparts=num_thread)
    s[C].reorder(b, by, bx, ty, tx, tyy, txx, yi, xi)
    s[C].bind(b, te.thread_axis("blockIdx.z"))
    s[C].bind(by, te.thread_axis("blockIdx.y"))
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(ty, thread_yz)
    s[C].bind(tx, thread_xz)
    s[C].bind(tyy, thread_y)
    s[C].bind(txx, thread_x)

    s[CC].compute_at(s[C], txx)
    _, yo, xo = CC.op.axis
    ko, ki = s[CC].split(CC.op.reduce_axis[0], factor=8)
    s[CC].reorder(ko, ki, yo, xo)
    s[AA].compute_at(s[CC], ko)
    s[BB].compute_at(s[CC], ko)
    s[AL].compute_at(s[CC], ki)
    s[BL].compute_at(s[CC], ki)
    for load in [AA, BB]:
        _, rows, cols = s[load].op.axis
        ty_l, _ = s[load].split(rows, nparts=num_thread)
        tx_l, _ = s[load].split(cols, nparts=num_thread)
        s[load].bind(ty_l, thread_y)
        s[load].bind(tx_l, thread_x)
    print(tvm.lower(s, [x, y, C], simple_mode=True))
