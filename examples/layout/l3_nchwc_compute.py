# L3's transform on a computed tensor (seed 001, RFC option 3): B is
# computed in NHWC terms but stored NCHWc, and its stage iterates in the
# transformed space: the axes transform_layout returns can be split,
# reordered and computed at like any others. `--run` checks that the
# values are those of the untransformed definition.
from tvm import te

A = te.placeholder((2, 4, 4, 8), name="A")
B = te.compute(A.shape, lambda n, h, w, c: A[n, h, w, c] * 2, name="B")
C = te.compute(A.shape, lambda n, h, w, c: B[n, h, w, c] + 1, name="C")
s = te.create_schedule(C.op)
n, c_outer, h, w, c_inner = s[B].transform_layout(lambda n, h, w, c: [n, c // 4, h, w, c % 4])
s[B].reorder(c_outer, n, h, w, c_inner)
s[C].transform_layout(lambda n, h, w, c: [n, c // 4, h, te.AXIS_SEPARATOR, w, c % 4])
# expect: B[(((((n*128) + (c.outer*64)) + (h*16)) + (w*4)) + c.inner)]
# expect: C[(((n*8) + (c.outer*4)) + h), ((w*4) + c.inner)]
