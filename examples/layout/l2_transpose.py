# L2 (seed 001): x of shape [2, 3] stored transposed, [3, 2], then
# flattened: x[i, j] at j*2 + i (the seed's x[10, 15] at 40, x[20, 23] at 66).
from tvm import te

x = te.placeholder((2, 3), name="x")
y = te.compute((2, 3), lambda i, j: x[i, j] + 7, name="y")
s = te.create_schedule(y.op)
s[x].transform_layout(lambda i, j: [j, i])
# expect: x[((j*2) + i)]
