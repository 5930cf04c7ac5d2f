# NHWC convolution (topi.nn.conv2d_nhwc layout: HWIO kernel) with a 2-D
# tile over the output width and channels, the padding computed inside the
# tile's outer loop. Real layer: ResNet-50 res3a_branch2b, 1x28x28x128,
# 128 filters 3x3, pad 1; the run uses 8 channels of 7x7.
import tvm
from tvm import te


def conv2d_nhwc(data, kernel, stride, pad):
    batch, in_h, in_w, in_c = data.shape
    kh, kw, _, out_c = kernel.shape
    out_h = (in_h + 2 * pad - kh) // stride + 1
    out_w = (in_w + 2 * pad - kw) // stride + 1
    padded = te.compute(
        (batch, in_h + 2 * pad, in_w + 2 * pad, in_c),
        lambda n, y, x, c: tvm.tir.if_then_else(
            tvm.tir.all(y >= pad, y - pad < in_h, x >= pad, x - pad < in_w),
            data[n, y - pad, x - pad, c],
            tvm.tir.const(0.0, "float32"),
        ),
        name="PaddedInput",
    )
    rc = te.reduce_axis((0, in_c), name="rc")
    ry = te.reduce_axis((0, kh), name="ry")
    rx = te.reduce_axis((0, kw), name="rx")
    out = te.compute(
        (batch, out_h, out_w, out_c),
        lambda n, y, x, f: te.sum(
            padded[n, y * stride + ry, x * stride + rx, rc] * kernel[ry, rx, rc, f],
            axis=[ry, rx, rc],
        ),
        name="Conv2dOutput",
    )
    return padded, out


for channels, size in [(128, 28), (8, 7)]:
    data = te.placeholder((1, size, size, channels), name="data")
    kernel = te.placeholder((3, 3, channels, channels), name="kernel")
    padded, out = conv2d_nhwc(data, kernel, 1, 1)
    s = te.create_schedule(out.op)
    n, y, x, f = s[out].op.axis
    xo, fo, xi, fi = s[out].tile(x, f, x_factor=7, y_factor=4)
    s[padded].compute_at(s[out], y)
    print(tvm.lower(s, [data, kernel, out], simple_mode=True))
