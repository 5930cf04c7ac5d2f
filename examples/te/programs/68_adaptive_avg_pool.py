# Adaptive average pooling to a fixed 7x7 output, as topi.nn.adaptive_pool
# computes it: each output cell averages a window [start, end) whose bounds
# depend on the cell (floor and ceil of i * in / out), so the reduction
# axes have extents that vary with the output index. ResNet-50's adaptive
# pool from 1x2048x10x10 (a larger input image); the run uses 1x4x10x10.
import tvm
from tvm import te


def start_index(index, odim, idim):
    return tvm.tir.indexdiv(index * idim, odim)


def end_index(index, odim, idim):
    return tvm.tir.indexdiv((index + 1) * idim + odim - 1, odim)


def adaptive_avg_pool(data, out_h, out_w):
    n, c, h, w = data.shape

    def _sum(b, ch, y, x):
        y0 = start_index(y, out_h, h)
        y1 = end_index(y, out_h, h)
        x0 = start_index(x, out_w, w)
        x1 = end_index(x, out_w, w)
        ry = te.reduce_axis((0, y1 - y0), name="rv0")
        rx = te.reduce_axis((0, x1 - x0), name="rv1")
        return te.sum(data[b, ch, y0 + ry, x0 + rx], axis=[ry, rx])

    pool_sum = te.compute((n, c, out_h, out_w), _sum, name="adaptive_pool_sum")

    def _avg(b, ch, y, x):
        count = (end_index(y, out_h, h) - start_index(y, out_h, h)) * (
            end_index(x, out_w, w) - start_index(x, out_w, w)
        )
        return pool_sum[b, ch, y, x] / count

    return pool_sum, te.compute((n, c, out_h, out_w), _avg, name="adaptive_pool_avg")


for channels in [2048, 4]:
    data = te.placeholder((1, channels, 10, 10), name="data")
    pool_sum, out = adaptive_avg_pool(data, 7, 7)
    s = te.create_schedule(out.op)
    b, c, y, x = s[out].op.axis
    s[pool_sum].compute_at(s[out], c)
    print(tvm.lower(s, [data, out], simple_mode=True))
