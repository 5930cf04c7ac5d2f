# Inception-v3's 3x3/1 average pools in NHWC (1x35x35x192, padding 1),
# both ways TVM counts the window: with the padding (count_include_pad,
# TOPI's default) and without it, where the border windows divide by
# fewer elements. TOPI's pool2d builds pad_temp, pool_sum and pool_avg;
# the schedule inlines the padding and computes the sum per output row.
# The run uses 1x9x9x16.
import tvm
from tvm import te, topi
from tvm.topi.nn.pooling import pool2d

for size, channels in [(35, 192), (9, 16)]:
    data = te.placeholder((1, size, size, channels), name="data")
    outs = []
    for include_pad in (True, False):
        avg = pool2d(
            data,
            kernel=(3, 3),
            stride=(1, 1),
            dilation=(1, 1),
            padding=(1, 1, 1, 1),
            pool_type="avg",
            layout="NHWC",
            count_include_pad=include_pad,
        )
        outs.append(avg)
    both = te.compute(
        outs[0].shape, lambda n, h, w, c: outs[0][n, h, w, c] - outs[1][n, h, w, c], name="diff"
    )
    s = te.create_schedule(both.op)
    for avg in outs:
        pool_sum = avg.op.input_tensors[0]
        s[pool_sum.op.input_tensors[0]].compute_inline()
        s[pool_sum].compute_at(s[avg], s[avg].op.axis[1])
        s[avg].compute_at(s[both], s[both].op.axis[1])

print(tvm.lower(s, [data, both], simple_mode=True))
