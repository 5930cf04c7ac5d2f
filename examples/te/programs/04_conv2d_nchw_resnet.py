# Direct NCHW convolution in the style of topi.nn.conv2d_nchw: pad, then a
# sum over input channels and the kernel window, with stride and dilation.
# Real layer: ResNet-50 res2a_branch2b, 1x64x56x56, 64 filters 3x3, pad 1.
# The run uses 4 channels of 14x14 so that checking values is quick.
import tvm
from tvm import te


def pad_hw(data, pad, name="pad_temp"):
    n, c, h, w = data.shape
    return te.compute(
        (n, c, h + 2 * pad, w + 2 * pad),
        lambda b, ch, y, x: tvm.tir.if_then_else(
            tvm.tir.all(y >= pad, y < h + pad, x >= pad, x < w + pad),
            data[b, ch, y - pad, x - pad],
            tvm.tir.const(0.0, data.dtype),
        ),
        name=name,
    )


def conv2d_nchw(data, kernel, stride, pad, dilation=1):
    batch, in_channel, in_height, in_width = data.shape
    num_filter, channel, kernel_h, kernel_w = kernel.shape
    dilated_kh = (kernel_h - 1) * dilation + 1
    dilated_kw = (kernel_w - 1) * dilation + 1
    out_height = (in_height + 2 * pad - dilated_kh) // stride + 1
    out_width = (in_width + 2 * pad - dilated_kw) // stride + 1
    temp = pad_hw(data, pad)
    rc = te.reduce_axis((0, in_channel), name="rc")
    ry = te.reduce_axis((0, kernel_h), name="ry")
    rx = te.reduce_axis((0, kernel_w), name="rx")
    return te.compute(
        (batch, num_filter, out_height, out_width),
        lambda nn, ff, yy, xx: te.sum(
            temp[nn, rc, yy * stride + ry * dilation, xx * stride + rx * dilation]
            * kernel[ff, rc, ry, rx],
            axis=[rc, ry, rx],
        ),
        name="conv2d_nchw",
    )


def schedule(conv):
    s = te.create_schedule(conv.op)
    pad_op = conv.op.input_tensors[0]
    s[pad_op].compute_inline()
    n, f, y, x = s[conv].op.axis
    rc, ry, rx = s[conv].op.reduce_axis
    fo, fi = s[conv].split(f, factor=4)
    xo, xi = s[conv].split(x, factor=7)
    s[conv].reorder(n, fo, y, xo, rc, ry, rx, fi, xi)
    return s


for channels, size in [(64, 56), (4, 14)]:
    data = te.placeholder((1, channels, size, size), name="data")
    kernel = te.placeholder((channels, channels, 3, 3), name="kernel")
    conv = conv2d_nchw(data, kernel, 1, 1)
    s = schedule(conv)
    print(tvm.lower(s, [data, kernel, conv], simple_mode=True))
