# Reductions over several axes, as topi.sum and topi.max with keepdims:
# the per-channel sum and maximum of a 1x512x28x28 activation (batch-norm
# statistics of ResNet-50 stage 3). The two stages share no loops. The
# run uses 8 channels of 7x7.
import tvm
from tvm import te


def reduce_hw(x, reducer, name):
    n, c, h, w = x.shape
    kn = te.reduce_axis((0, n), name="k0")
    kh = te.reduce_axis((0, h), name="k2")
    kw = te.reduce_axis((0, w), name="k3")
    return te.compute(
        (1, c, 1, 1),
        lambda a, ch, b, d: reducer(x[kn, ch, kh, kw], axis=[kn, kh, kw]),
        name=name,
    )


for channels, size in [(512, 28), (8, 7)]:
    x = te.placeholder((1, channels, size, size), name="x")
    total = reduce_hw(x, te.sum, "x_red_sum")
    biggest = reduce_hw(x, te.max, "x_red_max")
    both = te.compute(
        (1, channels, 1, 1),
        lambda a, c, b, d: total[a, c, b, d] + biggest[a, c, b, d],
        name="T_add",
    )
    s = te.create_schedule(both.op)
    print(tvm.lower(s, [x, both], simple_mode=True))
