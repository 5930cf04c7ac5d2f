# Dilated (atrous) convolution of DeepLab-v3's ASPP (rate 6, 3x3,
# 1x256x33x33 with padding 6), written as topi.nn.conv2d_nchw does with
# dilation: reads at y + ry * dilation. The run uses rate 2 on 1x4x7x7.
import tvm
from tvm import te


def atrous_conv(data, kernel, rate):
    n, c, h, w = data.shape
    f, _, kh, kw = kernel.shape
    pad = rate
    padded = te.compute(
        (n, c, h + 2 * pad, w + 2 * pad),
        lambda b, ch, y, x: tvm.tir.if_then_else(
            tvm.tir.all(y >= pad, y < h + pad, x >= pad, x < w + pad),
            data[b, ch, y - pad, x - pad],
            tvm.tir.const(0.0, data.dtype),
        ),
        name="pad_temp",
    )
    rc = te.reduce_axis((0, c), name="rc")
    ry = te.reduce_axis((0, kh), name="ry")
    rx = te.reduce_axis((0, kw), name="rx")
    out = te.compute(
        (n, f, h, w),
        lambda b, ff, y, x: te.sum(
            padded[b, rc, y + ry * rate, x + rx * rate] * kernel[ff, rc, ry, rx], axis=[rc, ry, rx]
        ),
        name="conv2d_nchw",
    )
    return padded, out


for channels, size, rate in [(256, 33, 6), (4, 7, 2)]:
    data = te.placeholder((1, channels, size, size), name="data")
    kernel = te.placeholder((channels, channels, 3, 3), name="kernel")
    padded, out = atrous_conv(data, kernel, rate)
    s = te.create_schedule(out.op)
    b, f, y, x = s[out].op.axis
    s[padded].compute_at(s[out], f)
    print(tvm.lower(s, [data, kernel, out], simple_mode=True))
