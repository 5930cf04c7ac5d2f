# Local response normalisation across channels, as topi.nn.lrn computes it
# for GoogLeNet's conv2/norm2 (1x192x56x56, size 5, alpha 1e-4, beta 0.75,
# bias 2): a padded square sum over 5 neighbouring channels, then
# x / (bias + alpha/size * sum) ** beta. The run uses 1x8x6x6.
import tvm
from tvm import te


def lrn(data, size, alpha, beta, bias):
    n, c, h, w = data.shape
    half = size // 2
    padded = te.compute(
        (n, c + 2 * half, h, w),
        lambda b, ch, y, x: tvm.tir.if_then_else(
            tvm.tir.all(ch >= half, ch < c + half),
            data[b, ch - half, y, x],
            tvm.tir.const(0.0, data.dtype),
        ),
        name="pad_data",
    )
    rxs = te.reduce_axis((0, size), name="rxs")
    sqr_sum = te.compute(
        (n, c, h, w),
        lambda b, ch, y, x: te.sum(padded[b, ch + rxs, y, x] * padded[b, ch + rxs, y, x], axis=rxs),
        name="sqr_sum",
    )
    return sqr_sum, te.compute(
        (n, c, h, w),
        lambda b, ch, y, x: data[b, ch, y, x]
        / te.power(bias + alpha / size * sqr_sum[b, ch, y, x], beta),
        name="lrn",
    )


for channels, size in [(192, 56), (8, 6)]:
    data = te.placeholder((1, channels, size, size), name="data")
    sqr_sum, out = lrn(data, 5, 0.0001, 0.75, 2.0)
    s = te.create_schedule(out.op)
    s[sqr_sum.op.input_tensors[0]].compute_inline()
    b, c, y, x = s[out].op.axis
    s[sqr_sum].compute_at(s[out], y)
    print(tvm.lower(s, [data, out], simple_mode=True))
