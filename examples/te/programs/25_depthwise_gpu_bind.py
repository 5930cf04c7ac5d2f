# MobileNet v1 depthwise layer conv_dw_13 (1x1024x7x7, 3x3, stride 1, pad
# 1) with a CUDA-style schedule: one block per channel group, a thread per
# output pixel, the padded input inlined. The run uses 8 channels.
import tvm
from tvm import te

for channels in [1024, 8]:
    data = te.placeholder((1, channels, 7, 7), name="data")
    kernel = te.placeholder((channels, 1, 3, 3), name="kernel")
    padded = te.compute(
        (1, channels, 9, 9),
        lambda n, c, y, x: tvm.tir.if_then_else(
            tvm.tir.all(y >= 1, y < 8, x >= 1, x < 8),
            data[n, c, y - 1, x - 1],
            tvm.tir.const(0.0, "float32"),
        ),
        name="PaddedInput",
    )
    di = te.reduce_axis((0, 3), name="di")
    dj = te.reduce_axis((0, 3), name="dj")
    out = te.compute(
        (1, channels, 7, 7),
        lambda b, c, i, j: te.sum(padded[b, c, i + di, j + dj] * kernel[c, 0, di, dj], axis=[di, dj]),
        name="DepthwiseConv2d",
    )
    s = te.create_schedule(out.op)
    s[padded].compute_inline()
    b, c, i, j = s[out].op.axis
    co, ci = s[out].split(c, factor=4)
    pix = s[out].fuse(i, j)
    s[out].bind(co, te.thread_axis("blockIdx.x"))
    s[out].bind(ci, te.thread_axis("threadIdx.y"))
    s[out].bind(pix, te.thread_axis("threadIdx.x"))
    print(tvm.lower(s, [data, kernel, out], simple_mode=True))
