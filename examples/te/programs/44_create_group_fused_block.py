# A group of stages attached as one: padding, depthwise convolution and
# its ReLU (a MobileNet v2 block, 1x32x14x14) are grouped with
# s.create_group and the group is computed per output row of the 1x1
# projection that consumes it. The run uses 4 channels of 8x8.
import tvm
from tvm import te

for channels, size in [(32, 14), (4, 8)]:
    data = te.placeholder((1, channels, size, size), name="data")
    dw_kernel = te.placeholder((channels, 1, 3, 3), name="dw_kernel")
    pw_kernel = te.placeholder((channels, channels), name="pw_kernel")
    padded = te.compute(
        (1, channels, size + 2, size + 2),
        lambda n, c, y, x: tvm.tir.if_then_else(
            tvm.tir.all(y >= 1, y <= size, x >= 1, x <= size),
            data[n, c, y - 1, x - 1],
            tvm.tir.const(0.0, "float32"),
        ),
        name="PaddedInput",
    )
    di = te.reduce_axis((0, 3), name="di")
    dj = te.reduce_axis((0, 3), name="dj")
    dw = te.compute(
        (1, channels, size, size),
        lambda n, c, y, x: te.sum(padded[n, c, y + di, x + dj] * dw_kernel[c, 0, di, dj], axis=[di, dj]),
        name="DepthwiseConv2d",
    )
    relu = te.compute(
        dw.shape, lambda n, c, y, x: te.max(dw[n, c, y, x], tvm.tir.const(0.0, "float32")), name="relu"
    )
    rc = te.reduce_axis((0, channels), name="rc")
    pw = te.compute(
        (1, channels, size, size),
        lambda n, f, y, x: te.sum(relu[n, rc, y, x] * pw_kernel[f, rc], axis=rc),
        name="pointwise",
    )
    s = te.create_schedule(pw.op)
    g = s.create_group(outputs=relu, inputs=data, include_inputs=False)
    n, f, y, x = s[pw].op.axis
    g.compute_at(s[pw], y)
    print(tvm.lower(s, [data, dw_kernel, pw_kernel, pw], simple_mode=True))
