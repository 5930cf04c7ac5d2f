# Unrolling pragmas as TOPI's CUDA schedules set them on the outermost
# loop ("auto_unroll_max_step", "unroll_explicit"), on a depthwise
# convolution of MobileNet v2 (1x144x56x56, 3x3, stride 1) bound to GPU
# threads. The run uses 1x4x8x8.
import tvm
from tvm import te

for channels, size in [(144, 56), (4, 8)]:
    padded = te.placeholder((1, channels, size + 2, size + 2), name="PaddedInput")
    kernel = te.placeholder((channels, 1, 3, 3), name="kernel")
    di = te.reduce_axis((0, 3), name="di")
    dj = te.reduce_axis((0, 3), name="dj")
    out = te.compute(
        (1, channels, size, size),
        lambda b, c, i, j: te.sum(padded[b, c, i + di, j + dj] * kernel[c, 0, di, dj], axis=[di, dj]),
        name="DepthwiseConv2d",
    )
    s = te.create_schedule(out.op)
    b, c, i, j = s[out].op.axis
    fused = s[out].fuse(b, c)
    s[out].bind(fused, te.thread_axis("blockIdx.x"))
    s[out].bind(i, te.thread_axis("threadIdx.y"))
    s[out].bind(j, te.thread_axis("threadIdx.x"))
    s[out].pragma(fused, "auto_unroll_max_step", 256)
    s[out].pragma(fused, "unroll_explicit", False)
    print(tvm.lower(s, [padded, kernel, out], simple_mode=True))
