# Convolution, bias and ReLU fused the way TOPI's x86 schedules fuse an
# output stage: the convolution is computed at the ReLU's row loop, the
# bias add inlined. ResNet-50 res5a_branch2b (1x512x7x7, 512 filters 3x3,
# pad 1); the run uses 4 channels.
import tvm
from tvm import te

for channels in [512, 4]:
    data = te.placeholder((1, channels, 7, 7), name="data")
    kernel = te.placeholder((channels, channels, 3, 3), name="kernel")
    bias = te.placeholder((channels, 1, 1), name="bias")
    padded = te.compute(
        (1, channels, 9, 9),
        lambda n, c, y, x: tvm.tir.if_then_else(
            tvm.tir.all(y >= 1, y < 8, x >= 1, x < 8),
            data[n, c, y - 1, x - 1],
            tvm.tir.const(0.0, "float32"),
        ),
        name="data_pad",
    )
    rc = te.reduce_axis((0, channels), name="rc")
    ry = te.reduce_axis((0, 3), name="ry")
    rx = te.reduce_axis((0, 3), name="rx")
    conv = te.compute(
        (1, channels, 7, 7),
        lambda n, f, y, x: te.sum(
            padded[n, rc, y + ry, x + rx] * kernel[f, rc, ry, rx], axis=[rc, ry, rx]
        ),
        name="conv2d_NCHW",
    )
    biased = te.compute(
        (1, channels, 7, 7), lambda n, f, y, x: conv[n, f, y, x] + bias[f, 0, 0], name="T_add"
    )
    relu = te.compute(
        (1, channels, 7, 7),
        lambda n, f, y, x: te.max(biased[n, f, y, x], tvm.tir.const(0.0, "float32")),
        name="T_relu",
    )
    s = te.create_schedule(relu.op)
    s[biased].compute_inline()
    s[padded].compute_inline()
    n, f, y, x = s[relu].op.axis
    s[conv].compute_at(s[relu], y)
    print(tvm.lower(s, [data, kernel, bias, relu], simple_mode=True))
