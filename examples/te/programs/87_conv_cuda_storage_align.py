# A CUDA direct convolution schedule with the shared-memory tricks of
# TOPI's CUDA schedules: the shared input tile padded against bank
# conflicts with storage_align and double-buffered across the reduction
# loop. ResNet-50 res3 1x1 (1x512x28x28 -> 128) in NCHW; the run uses
# 1x8x8x8 -> 8.
import tvm
from tvm import te

for in_c, out_c, size in [(512, 128, 28), (8, 8, 8)]:
    data = te.placeholder((1, in_c, size, size), name="data")
    kernel = te.placeholder((out_c, in_c, 1, 1), name="kernel")
    rc = te.reduce_axis((0, in_c), name="rc")
    conv = te.compute(
        (1, out_c, size, size),
        lambda n, f, y, x: te.sum(data[n, rc, y, x] * kernel[f, rc, 0, 0], axis=rc),
        name="conv2d_nchw",
    )
    s = te.create_schedule(conv.op)
    DS = s.cache_read(data, "shared", [conv])
    CL = s.cache_write(conv, "local")
    n, f, y, x = s[conv].op.axis
    fo, fi = s[conv].split(f, factor=4)
    yo, yi = s[conv].split(y, factor=4)
    s[conv].reorder(n, fo, yo, fi, yi, x)
    s[conv].bind(fo, te.thread_axis("blockIdx.y"))
    s[conv].bind(yo, te.thread_axis("blockIdx.x"))
    s[conv].bind(fi, te.thread_axis("threadIdx.y"))
    s[conv].bind(yi, te.thread_axis("threadIdx.x"))
    s[CL].compute_at(s[conv], yi)
    (rcl,) = s[CL].op.reduce_axis
    rco, rci = s[CL].split(rcl, factor=4)
    s[CL].reorder(rco, rci, *s[CL].op.axis)
    s[DS].compute_at(s[CL], rco)
    s[DS].storage_align(s[DS].op.axis[2], size, 1)
    s[DS].double_buffer()
    print(tvm.lower(s, [data, kernel, conv], simple_mode=True))
