# topi.mean over the spatial axes with keepdims (the squeeze step of a
# squeeze-and-excitation block in SE-ResNet-50, 1x256x56x56), followed by
# the excitation: a sigmoid gate broadcast back over the image. The run
# uses 1x8x6x6.
import tvm
from tvm import te

for channels, size in [(256, 56), (8, 6)]:
    x = te.placeholder((1, channels, size, size), name="x")
    ry = te.reduce_axis((0, size), name="k2")
    rx = te.reduce_axis((0, size), name="k3")
    total = te.compute(
        (1, channels, 1, 1), lambda n, c, a, b: te.sum(x[n, c, ry, rx], axis=[ry, rx]), name="x_red"
    )
    mean = te.compute(
        (1, channels, 1, 1), lambda n, c, a, b: total[n, c, a, b] / (size * size), name="T_divide"
    )
    gate = te.compute((1, channels, 1, 1), lambda n, c, a, b: te.sigmoid(mean[n, c, a, b]), name="T_sigmoid")
    out = te.compute(
        (1, channels, size, size), lambda n, c, h, w: x[n, c, h, w] * gate[n, c, 0, 0], name="T_multiply"
    )
    s = te.create_schedule(out.op)
    s[mean].compute_inline()
    s[gate].compute_inline()
    n, c, h, w = s[out].op.axis
    s[total].compute_at(s[out], c)
    print(tvm.lower(s, [x, out], simple_mode=True))
