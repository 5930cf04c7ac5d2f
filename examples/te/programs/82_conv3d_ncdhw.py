# 3-D convolution (topi.nn.conv3d_ncdhw) of a C3D / I3D video network:
# conv3a, 1x128x8x28x28 with 256 filters 3x3x3, pad 1. The run uses
# 1x2x4x6x6 with 2 filters. The padded input is computed per output frame.
import tvm
from tvm import te


def conv3d_ncdhw(data, kernel, pad):
    n, c, d, h, w = data.shape
    f, _, kd, kh, kw = kernel.shape
    padded = te.compute(
        (n, c, d + 2 * pad, h + 2 * pad, w + 2 * pad),
        lambda b, ch, z, y, x: tvm.tir.if_then_else(
            tvm.tir.all(z >= pad, z < d + pad, y >= pad, y < h + pad, x >= pad, x < w + pad),
            data[b, ch, z - pad, y - pad, x - pad],
            tvm.tir.const(0.0, data.dtype),
        ),
        name="pad_temp",
    )
    rc = te.reduce_axis((0, c), name="rc")
    rz = te.reduce_axis((0, kd), name="rz")
    ry = te.reduce_axis((0, kh), name="ry")
    rx = te.reduce_axis((0, kw), name="rx")
    out = te.compute(
        (n, f, d, h, w),
        lambda b, ff, z, y, x: te.sum(
            padded[b, rc, z + rz, y + ry, x + rx] * kernel[ff, rc, rz, ry, rx], axis=[rc, rz, ry, rx]
        ),
        name="conv3d_ncdhw",
    )
    return padded, out


for channels, filters, frames, size in [(128, 256, 8, 28), (2, 2, 4, 6)]:
    data = te.placeholder((1, channels, frames, size, size), name="data")
    kernel = te.placeholder((filters, channels, 3, 3, 3), name="kernel")
    padded, out = conv3d_ncdhw(data, kernel, 1)
    s = te.create_schedule(out.op)
    b, f, z, y, x = s[out].op.axis
    s[out].reorder(b, z, f, y, x)
    s[padded].compute_at(s[out], z)
    print(tvm.lower(s, [data, kernel, out], simple_mode=True))
