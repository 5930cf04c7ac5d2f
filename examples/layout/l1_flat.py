# L1 (seed 001): x of shape [2, 3], no transform: one flat physical axis,
# x[i, j] at i*3 + j. The seed's accesses x[10, 15] and x[20, 23] land at
# 45 and 83 (see README.md: `rangefinder layout --shape 2,3 ...`).
from tvm import te

x = te.placeholder((2, 3), name="x")
y = te.compute((2, 3), lambda i, j: x[i, j] + 7, name="y")
s = te.create_schedule(y.op)
s[x].transform_layout(lambda i, j: [i, j])
# expect: x[((i*3) + j)]
