# MobileNet-v1's 3x3 depthwise convolution (1x32x112x112, stride 1, pad 1)
# scheduled for CUDA as TVM's tutorials write it: thread axes declared
# with their domains (te.thread_axis((0, 8), "threadIdx.x")) and two
# virtual threads (vthread, named vx and vy) striding each block's tile,
# as in the direct convolution tutorial. The run uses 1x4x16x16.
import tvm
from tvm import te, topi

for channels, size in [(32, 112), (4, 16)]:
    data = te.placeholder((1, channels, size, size), name="data")
    kernel = te.placeholder((channels, 1, 3, 3), name="kernel")
    padded = te.compute(
        (1, channels, size + 2, size + 2),
        lambda n, c, y, x: tvm.tir.if_then_else(
            tvm.tir.all(y >= 1, y <= size, x >= 1, x <= size), data[n, c, y - 1, x - 1], 0.0
        ),
        name="PaddedInput",
        tag="injective,pad",
    )
    ry = te.reduce_axis((0, 3), name="ry")
    rx = te.reduce_axis((0, 3), name="rx")
    out = te.compute(
        (1, channels, size, size),
        lambda n, c, y, x: te.sum(padded[n, c, y + ry, x + rx] * kernel[c, 0, ry, rx], axis=[ry, rx]),
        name="DepthwiseConv2d",
        tag="depthwise_conv2d_nchw",
    )
    s = te.create_schedule(out.op)
    s[padded].compute_inline()
    n, c, y, x = s[out].op.axis
    by, ty = s[out].split(y, factor=8)
    bx, tx = s[out].split(x, factor=8)
    vy, ty = s[out].split(ty, nparts=2)
    vx, tx = s[out].split(tx, nparts=2)
    s[out].reorder(n, c, by, bx, vy, vx, ty, tx)
    s[out].bind(c, te.thread_axis("blockIdx.z"))
    s[out].bind(by, te.thread_axis("blockIdx.y"))
    s[out].bind(bx, te.thread_axis("blockIdx.x"))
    s[out].bind(vy, te.thread_axis((0, 2), "vthread", name="vy"))
    s[out].bind(vx, te.thread_axis((0, 2), "vthread", name="vx"))
    s[out].bind(ty, te.thread_axis((0, 4), "threadIdx.y"))
    s[out].bind(tx, te.thread_axis((0, 4), "threadIdx.x"))

print(tvm.lower(s, [data, kernel, out], simple_mode=True))
