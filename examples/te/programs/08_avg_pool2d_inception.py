# Average pooling 3x3, stride 1, pad 1 as in Inception v3's mixed-block
# pool branch (1x192x35x35), with count_include_pad=False: each window is
# divided by the number of cells that fall inside the image. The run uses
# 4 channels of 9x9.
import tvm
from tvm import te


def avg_pool2d(data, kernel, stride, pad):
    n, c, h, w = data.shape
    out_h = (h + 2 * pad - kernel) // stride + 1
    out_w = (w + 2 * pad - kernel) // stride + 1
    padded = te.compute(
        (n, c, h + 2 * pad, w + 2 * pad),
        lambda b, ch, y, x: tvm.tir.if_then_else(
            tvm.tir.all(y >= pad, y < h + pad, x >= pad, x < w + pad),
            data[b, ch, y - pad, x - pad],
            tvm.tir.const(0.0, data.dtype),
        ),
        name="pad_temp",
    )
    ry = te.reduce_axis((0, kernel), name="rv0")
    rx = te.reduce_axis((0, kernel), name="rv1")
    pool_sum = te.compute(
        (n, c, out_h, out_w),
        lambda b, ch, y, x: te.sum(padded[b, ch, y * stride + ry, x * stride + rx], axis=[ry, rx]),
        name="pool_sum",
    )

    def _avg(b, ch, y, x):
        h_start = y * stride - pad
        w_start = x * stride - pad
        h_end = te.min(h_start + kernel, h)
        w_end = te.min(w_start + kernel, w)
        h_start = te.max(h_start, 0)
        w_start = te.max(w_start, 0)
        count = (h_end - h_start) * (w_end - w_start)
        return pool_sum[b, ch, y, x] / te.max(count, 1)

    return padded, pool_sum, te.compute((n, c, out_h, out_w), _avg, name="pool_avg")


for channels, size in [(192, 35), (4, 9)]:
    data = te.placeholder((1, channels, size, size), name="data")
    padded, pool_sum, out = avg_pool2d(data, 3, 1, 1)
    s = te.create_schedule(out.op)
    s[padded].compute_inline()
    b, c, y, x = s[out].op.axis
    s[pool_sum].compute_at(s[out], y)
    print(tvm.lower(s, [data, out], simple_mode=True))
