# Bound inference checked the way TVM's own schedule tests check it: a
# padded depthwise convolution (MobileNet v1 conv_dw_1, 1x32x112x112,
# scaled to 1x4x16x16) whose padding stage is computed inside the output's
# split row loop; InferBound gives the padded rows each row block needs
# (the 3x3 halo makes 4 + 2 rows for 4 output rows).
import tvm
from tvm import te

channels, size = 4, 16
data = te.placeholder((1, channels, size, size), name="data")
kernel = te.placeholder((channels, 1, 3, 3), name="kernel")
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
out = te.compute(
    (1, channels, size, size),
    lambda b, c, i, j: te.sum(padded[b, c, i + di, j + dj] * kernel[c, 0, di, dj], axis=[di, dj]),
    name="DepthwiseConv2d",
)
s = te.create_schedule(out.op)
b, c, i, j = s[out].op.axis
io, ii = s[out].split(i, factor=4)
s[padded].compute_at(s[out], io)

bounds = tvm.te.schedule.InferBound(s)
pn, pc, py, px = s[padded].op.axis
assert bounds[py].extent.value == 4 + 2
assert bounds[px].extent.value == size + 2
assert bounds[pc].extent.value == 1
assert bounds[io].extent.value == size // 4
print(tvm.lower(s, [data, kernel, out], simple_mode=True))
