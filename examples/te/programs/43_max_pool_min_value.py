# Max pooling as topi.nn.pool2d pads it: with te.min_value of the data
# type, so that padding never wins, followed by a global max pool. On an
# int8 quantized activation (1x64x56x56, as in a quantized ResNet-50 after
# the stem) and on float32; the run uses 1x4x8x8.
import tvm
from tvm import te
from tvm.topi import tag


def max_pool(data, kernel, stride, pad):
    n, c, h, w = data.shape
    low = te.min_value(data.dtype)
    padded = te.compute(
        (n, c, h + 2 * pad, w + 2 * pad),
        lambda b, ch, y, x: tvm.tir.if_then_else(
            tvm.tir.all(y >= pad, y < h + pad, x >= pad, x < w + pad),
            data[b, ch, y - pad, x - pad],
            low,
        ),
        name="pad_temp",
        tag=tag.INJECTIVE + ",pad",
    )
    out_h = (h + 2 * pad - kernel) // stride + 1
    out_w = (w + 2 * pad - kernel) // stride + 1
    ry = te.reduce_axis((0, kernel), name="rv0")
    rx = te.reduce_axis((0, kernel), name="rv1")
    pooled = te.compute(
        (n, c, out_h, out_w),
        lambda b, ch, y, x: te.max(padded[b, ch, y * stride + ry, x * stride + rx], axis=[ry, rx]),
        name="pool_max",
        tag="pool_max",
    )
    return padded, pooled


def global_max(data):
    n, c, h, w = data.shape
    ry = te.reduce_axis((0, h), name="rv0")
    rx = te.reduce_axis((0, w), name="rv1")
    return te.compute(
        (n, c, 1, 1), lambda b, ch, y, x: te.max(data[b, ch, ry, rx], axis=[ry, rx]), name="global_max",
        tag=tag.COMM_REDUCE,
    )


for dtype, channels, size in [("int8", 64, 56), ("float32", 4, 8)]:
    data = te.placeholder((1, channels, size, size), name="data", dtype=dtype)
    padded, pooled = max_pool(data, 3, 2, 1)
    out = global_max(pooled)
    s = te.create_schedule(out.op)
    s[padded].compute_inline()
    print(tvm.lower(s, [data, out], simple_mode=True))
