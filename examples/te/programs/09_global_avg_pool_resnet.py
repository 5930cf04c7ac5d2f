# Global average pooling at the end of ResNet-50 (1x2048x7x7 -> 1x2048x1x1),
# as topi.nn.global_pool builds it: a sum over the whole image, then a
# division. The channels are split and the sum is computed per chunk. The
# run uses 32 channels.
import tvm
from tvm import te


def global_avg_pool(data):
    n, c, h, w = data.shape
    ry = te.reduce_axis((0, h), name="rv0")
    rx = te.reduce_axis((0, w), name="rv1")
    tsum = te.compute(
        (n, c, 1, 1),
        lambda b, ch, y, x: te.sum(data[b, ch, y + ry, x + rx], axis=[ry, rx]),
        name="adaptive_pool_sum",
    )
    area = h * w
    out = te.compute(
        (n, c, 1, 1),
        lambda b, ch, y, x: tsum[b, ch, y, x] / area,
        name="adaptive_pool_avg",
    )
    return tsum, out


for channels in [2048, 32]:
    data = te.placeholder((1, channels, 7, 7), name="data")
    tsum, out = global_avg_pool(data)
    s = te.create_schedule(out.op)
    b, c, y, x = s[out].op.axis
    co, ci = s[out].split(c, factor=16)
    s[tsum].compute_at(s[out], co)
    print(tvm.lower(s, [data, out], simple_mode=True))
