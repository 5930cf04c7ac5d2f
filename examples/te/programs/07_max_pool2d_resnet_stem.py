# Max pooling 3x3, stride 2, pad 1 after ResNet-50's stem convolution
# (1x64x112x112 -> 1x64x56x56), written like topi.nn.pool2d: the padding
# value is the lowest float so that padded cells never win. The run uses
# 4 channels of 16x16.
import tvm
from tvm import te


def max_pool2d(data, kernel, stride, pad):
    n, c, h, w = data.shape
    out_h = (h + 2 * pad - kernel) // stride + 1
    out_w = (w + 2 * pad - kernel) // stride + 1
    padded = te.compute(
        (n, c, h + 2 * pad, w + 2 * pad),
        lambda b, ch, y, x: tvm.tir.if_then_else(
            tvm.tir.all(y >= pad, y < h + pad, x >= pad, x < w + pad),
            data[b, ch, y - pad, x - pad],
            tvm.tir.const(-3.4028234663852886e38, data.dtype),
        ),
        name="pad_temp",
    )
    ry = te.reduce_axis((0, kernel), name="rv0")
    rx = te.reduce_axis((0, kernel), name="rv1")
    pooled = te.compute(
        (n, c, out_h, out_w),
        lambda b, ch, y, x: te.max(
            padded[b, ch, y * stride + ry, x * stride + rx], axis=[ry, rx]
        ),
        name="pool_max",
    )
    return padded, pooled


for channels, size in [(64, 112), (4, 16)]:
    data = te.placeholder((1, channels, size, size), name="data")
    padded, pooled = max_pool2d(data, 3, 2, 1)
    s = te.create_schedule(pooled.op)
    s[padded].compute_inline()
    fused = s[pooled].fuse(s[pooled].op.axis[0], s[pooled].op.axis[1])
    print(tvm.lower(s, [data, pooled], simple_mode=True))
