# Convolution in HWCN layout with the schedule of TVM's "optimise
# convolution on GPU" tutorial: shared-memory and register caches for the
# input and the filter, a local output stage, 2x2 virtual threads and
# 8x8 threads per block, the output channels and batch tiled. A ResNet-50
# res4 layer (14x14x256, batch 256, 512 filters 3x3, pad 1) is printed;
# the run uses 4x4x4 with batch 16 and 16 filters.
import tvm
from tvm import te

for size, in_c, batch, out_c in [(14, 256, 256, 512), (4, 4, 16, 16)]:
    A = te.placeholder((size, size, in_c, batch), name="A")
    W = te.placeholder((3, 3, in_c, out_c), name="W")
    Apad = te.compute(
        (size + 2, size + 2, in_c, batch),
        lambda yy, xx, cc, nn: tvm.tir.if_then_else(
            tvm.tir.all(yy >= 1, yy - 1 < size, xx >= 1, xx - 1 < size),
            A[yy - 1, xx - 1, cc, nn],
            tvm.tir.const(0.0, "float32"),
        ),
        name="Apad",
    )
    rc = te.reduce_axis((0, in_c), name="rc")
    ry = te.reduce_axis((0, 3), name="ry")
    rx = te.reduce_axis((0, 3), name="rx")
    B = te.compute(
        (size, size, out_c, batch),
        lambda yy, xx, ff, nn: te.sum(Apad[yy + ry, xx + rx, rc, nn] * W[ry, rx, rc, ff], axis=[ry, rx, rc]),
        name="B",
    )
    s = te.create_schedule(B.op)
    s[Apad].compute_inline()
    AA = s.cache_read(Apad, "shared", [B])
    WW = s.cache_read(W, "shared", [B])
    AL = s.cache_read(AA, "local", [B])
    WL = s.cache_read(WW, "local", [B])
    BL = s.cache_write(B, "local")

    tile, num_thread, step, vthread = 4, 4, 4, 2
    block_x = te.thread_axis("blockIdx.x")
    block_y = te.thread_axis("blockIdx.y")
    block_z = te.thread_axis("blockIdx.z")
    thread_x = te.thread_axis((0, num_thread), "threadIdx.x")
    thread_y = te.thread_axis((0, num_thread), "threadIdx.y")
    thread_xz = te.thread_axis((0, vthread), "vthread", name="vx")
    thread_yz = te.thread_axis((0, vthread), "vthread", name="vy")

    hi, wi, fi, ni = s[B].op.axis
    bz = s[B].fuse(hi, wi)
    by, fi = s[B].split(fi, factor=num_thread * vthread * tile // 2)
    bx, ni = s[B].split(ni, factor=num_thread * vthread * tile // 2)
    tyz, fi = s[B].split(fi, nparts=vthread)
    txz, ni = s[B].split(ni, nparts=vthread)
    ty, fi = s[B].split(fi, nparts=num_thread)
    tx, ni = s[B].split(ni, nparts=num_thread)
    s[B].reorder(bz, by, bx, tyz, txz, ty, tx, fi, ni)
    s[B].bind(bz, block_z)
    s[B].bind(by, block_y)
    s[B].bind(bx, block_x)
    s[B].bind(tyz, thread_yz)
    s[B].bind(txz, thread_xz)
    s[B].bind(ty, thread_y)
    s[B].bind(tx, thread_x)

    s[BL].compute_at(s[B], tx)
    yi, xi, fi, ni = s[BL].op.axis
    ry, rx, rc = s[BL].op.reduce_axis
    rco, rci = s[BL].split(rc, factor=step)
    s[BL].reorder(rco, ry, rx, rci, fi, ni)
    s[AA].compute_at(s[BL], rx)
    s[WW].compute_at(s[BL], rx)
    s[AL].compute_at(s[BL], rci)
    s[WL].compute_at(s[BL], rci)

    for load in [AA, WW]:
        yi, xi, ci, last = s[load].op.axis
        ty, rest = s[load].split(ci, nparts=num_thread)
        tx, rest = s[load].split(last, nparts=num_thread)
        s[load].reorder(ty, tx, yi, xi, rest)
        s[load].bind(ty, thread_y)
        s[load].bind(tx, thread_x)

    print(tvm.lower(s, [A, W, B], simple_mode=True))
