# A conv2d + bias + ReLU graph scheduled the way TOPI's generic schedules
# start: te.schedule.AutoInlineInjective inlines every injective stage
# (padding, bias add), then InferBound and ScheduleOps give the loop nest
# before lowering. ResNet-50 res4 3x3 (1x256x14x14); the run uses
# 1x4x6x6.
import tvm
from tvm import te

for channels, size in [(256, 14), (4, 6)]:
    data = te.placeholder((1, channels, size, size), name="data")
    kernel = te.placeholder((channels, channels, 3, 3), name="kernel")
    bias = te.placeholder((channels,), name="bias")
    padded = te.compute(
        (1, channels, size + 2, size + 2),
        lambda n, c, y, x: tvm.tir.if_then_else(
            tvm.tir.all(y >= 1, y <= size, x >= 1, x <= size),
            data[n, c, y - 1, x - 1],
            tvm.tir.const(0.0, "float32"),
        ),
        name="pad_temp",
    )
    rc = te.reduce_axis((0, channels), name="rc")
    ry = te.reduce_axis((0, 3), name="ry")
    rx = te.reduce_axis((0, 3), name="rx")
    conv = te.compute(
        (1, channels, size, size),
        lambda n, f, y, x: te.sum(padded[n, rc, y + ry, x + rx] * kernel[f, rc, ry, rx], axis=[rc, ry, rx]),
        name="conv2d_nchw",
    )
    biased = te.compute(conv.shape, lambda n, f, y, x: conv[n, f, y, x] + bias[f], name="T_add")
    relu = te.compute(
        conv.shape, lambda n, f, y, x: te.max(biased[n, f, y, x], tvm.tir.const(0.0, "float32")), name="T_relu"
    )
    s = te.create_schedule(relu.op)
    tvm.te.schedule.AutoInlineInjective(s)
    s = s.normalize()
    bounds = tvm.te.schedule.InferBound(s)
    stmt = tvm.te.schedule.ScheduleOps(s, bounds)
    print(stmt)
    print(tvm.lower(s, [data, kernel, bias, relu], simple_mode=True))
