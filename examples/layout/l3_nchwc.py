# L3 (seed 001): NHWC compute, stored NCHWc: B[n, h, w, c] lives at
# B[n, c // 4, h, w, c % 4], flattened to one physical axis of 16*32*64*64*4.
# The stage iterates in the transformed space; `--run` checks that the
# values equal the untransformed definition.
from tvm import te

A = te.placeholder((2, 4, 4, 8), name="A")
B = te.compute(A.shape, lambda n, h, w, c: A[n, h, w, c] * 2, name="B")
s = te.create_schedule(B.op)
n, c_outer, h, w, c_inner = s[B].transform_layout(lambda n, h, w, c: [n, c // 4, h, w, c % 4])
