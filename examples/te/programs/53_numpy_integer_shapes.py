# Shapes that come from numpy (a weight array's shape, np.int64 sizes), as
# in scripts that build TE from model parameters: the sizes pass
# numbers.Integral checks and make placeholders and reduce axes. A
# DenseNet-121 transition layer 1x1 conv (1x256x56x56 -> 128), scaled to
# 1x8x6x6 -> 4 for the run.
import numbers

import numpy as np
import tvm
from tvm import te

weights = np.zeros((4, 8, 1, 1), dtype="float32")
out_c, in_c, kh, kw = weights.shape
size = np.int64(6)
for dim in (out_c, in_c, size):
    assert isinstance(dim, numbers.Integral)

data = te.placeholder((1, in_c, size, size), name="data")
kernel = te.placeholder(weights.shape, name="kernel")
rc = te.reduce_axis((0, in_c), name="rc")
conv = te.compute(
    (1, out_c, size, size),
    lambda n, f, y, x: te.sum(data[n, rc, y, x] * kernel[f, rc, 0, 0], axis=rc),
    name="conv1x1",
)
ry = te.reduce_axis((0, 2), name="ry")
rx = te.reduce_axis((0, 2), name="rx")
pool = te.compute(
    (1, out_c, size // 2, size // 2),
    lambda n, f, y, x: te.sum(conv[n, f, y * 2 + ry, x * 2 + rx] * 0.25, axis=[ry, rx]),
    name="avg_pool",
)
s = te.create_schedule(pool.op)
s[conv].compute_at(s[pool], pool.op.axis[2])
print(tvm.lower(s, [data, kernel, pool], simple_mode=True))
