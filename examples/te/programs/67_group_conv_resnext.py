# Grouped convolution of ResNeXt-50 (32x4d) conv2 of stage 1:
# 1x128x56x56, 32 groups of 4 channels, 3x3, pad 1, as topi.nn.group_conv2d_nchw
# indexes the input channels of each group. The run uses 1x8x6x6 in 2
# groups.
import tvm
from tvm import te


def group_conv2d(data, kernel, groups, pad):
    n, c, h, w = data.shape
    f, c_per_group, kh, kw = kernel.shape
    f_per_group = f // groups
    padded = te.compute(
        (n, c, h + 2 * pad, w + 2 * pad),
        lambda b, ch, y, x: tvm.tir.if_then_else(
            tvm.tir.all(y >= pad, y < h + pad, x >= pad, x < w + pad),
            data[b, ch, y - pad, x - pad],
            tvm.tir.const(0.0, data.dtype),
        ),
        name="pad_temp",
    )
    rc = te.reduce_axis((0, c_per_group), name="rc")
    ry = te.reduce_axis((0, kh), name="ry")
    rx = te.reduce_axis((0, kw), name="rx")
    out = te.compute(
        (n, f, h, w),
        lambda b, ff, y, x: te.sum(
            padded[b, ff // f_per_group * c_per_group + rc, y + ry, x + rx] * kernel[ff, rc, ry, rx],
            axis=[rc, ry, rx],
        ),
        name="group_conv2d_nchw",
    )
    return padded, out


for channels, groups, size in [(128, 32, 56), (8, 2, 6)]:
    data = te.placeholder((1, channels, size, size), name="data")
    kernel = te.placeholder((channels, channels // groups, 3, 3), name="kernel")
    padded, out = group_conv2d(data, kernel, groups, 1)
    s = te.create_schedule(out.op)
    b, f, y, x = s[out].op.axis
    fo, fi = s[out].split(f, factor=channels // groups)
    s[padded].compute_at(s[out], fo)
    print(tvm.lower(s, [data, kernel, out], simple_mode=True))
