# L4's texture layout on an input and on an intermediate computed at its
# consumer's loop; the consumer is split along a transformed axis.
from tvm import te

A = te.placeholder((2, 4, 4, 8), name="A")
B = te.compute(A.shape, lambda n, h, w, c: A[n, h, w, c] + 1, name="B")
C = te.compute(A.shape, lambda n, h, w, c: B[n, h, w, c] * 3, name="C")
s = te.create_schedule(C.op)
s[A].transform_layout(lambda n, h, w, c: [n, c // 4, h, te.AXIS_SEPARATOR, w, c % 4])
n, co, h, w, ci = s[C].transform_layout(lambda n, h, w, c: [n, c // 4, h, w, c % 4])
ho, hi = s[C].split(h, factor=2)
s[B].compute_at(s[C], hi)
# expect: A[((((n*8) + (c.outer*4)) + (h.outer*2)) + h.inner), ((w*4) + c)]
