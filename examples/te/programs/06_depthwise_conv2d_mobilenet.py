# Depthwise convolution (topi.nn.depthwise_conv2d_nchw) with channel
# multiplier 1 and stride 2, as in MobileNet v1's conv_dw_2
# (1x64x112x112 -> 1x64x56x56, 3x3, pad 1); the run uses 8 channels of
# 16x16. The padded input is computed per output row.
import tvm
from tvm import te


def depthwise_conv2d_nchw(data, kernel, stride, pad):
    batch, in_c, in_h, in_w = data.shape
    _, multiplier, kh, kw = kernel.shape
    out_h = (in_h + 2 * pad - kh) // stride + 1
    out_w = (in_w + 2 * pad - kw) // stride + 1
    padded = te.compute(
        (batch, in_c, in_h + 2 * pad, in_w + 2 * pad),
        lambda n, c, y, x: tvm.tir.if_then_else(
            tvm.tir.all(y >= pad, y < in_h + pad, x >= pad, x < in_w + pad),
            data[n, c, y - pad, x - pad],
            tvm.tir.const(0.0, data.dtype),
        ),
        name="PaddedInput",
    )
    di = te.reduce_axis((0, kh), name="di")
    dj = te.reduce_axis((0, kw), name="dj")
    out = te.compute(
        (batch, in_c * multiplier, out_h, out_w),
        lambda b, c, i, j: te.sum(
            padded[b, c // multiplier, i * stride + di, j * stride + dj]
            * kernel[c // multiplier, c % multiplier, di, dj],
            axis=[di, dj],
        ),
        name="DepthwiseConv2d",
    )
    return padded, out


for channels, size in [(64, 112), (8, 16)]:
    data = te.placeholder((1, channels, size, size), name="data")
    kernel = te.placeholder((channels, 1, 3, 3), name="kernel")
    padded, out = depthwise_conv2d_nchw(data, kernel, 2, 1)
    s = te.create_schedule(out.op)
    b, c, i, j = s[out].op.axis
    s[padded].compute_at(s[out], i)
    print(tvm.lower(s, [data, kernel, out], simple_mode=True))
