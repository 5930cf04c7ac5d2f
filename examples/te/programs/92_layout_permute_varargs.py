# A layout change as TOPI's conv2d front ends write it: the output's axes
# are named from a permutation of the layout letters with
# `te.compute(..., varargs_names=...)` over a function that takes the
# batch index, then `*indices`. Inception-v3's 1x35x35x192 NHWC feature
# map is moved to NCHW and a 3x3/1 max over its spatial axes follows,
# with the padding of the border written as a condition. The run uses
# 1x6x6x4.
import tvm
from tvm import te

for size, channels in [(35, 192), (6, 4)]:
    data = te.placeholder((1, size, size, channels), name="data")
    letters = ["hh", "ww", "cc"]
    order = [2, 0, 1]
    nchw = te.compute(
        (1, channels, size, size),
        lambda n, *rest: data[n, rest[1], rest[2], rest[0]],
        name="nchw",
        varargs_names=[letters[i] for i in order],
    )
    assert [iv.var.name for iv in nchw.op.axis] == ["n", "cc", "hh", "ww"]
    ry = te.reduce_axis((0, 3), name="ry")
    rx = te.reduce_axis((0, 3), name="rx")
    pooled = te.compute(
        (1, channels, size, size),
        lambda n, c, h, w: te.max(
            tvm.tir.if_then_else(
                tvm.tir.all(h + ry >= 1, h + ry <= size, w + rx >= 1, w + rx <= size),
                nchw[n, c, h + ry - 1, w + rx - 1],
                te.min_value("float32"),
            ),
            axis=[ry, rx],
        ),
        name="pooled",
    )
    s = te.create_schedule(pooled.op)
    n, c, h, w = s[pooled].op.axis
    s[nchw].compute_at(s[pooled], h)
    s[pooled].parallel(c)

print(tvm.lower(s, [data, pooled], simple_mode=True))
