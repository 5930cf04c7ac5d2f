# Fusions in layouts: B is stored as the digits of the fusion k*6 + j (split
# by 2) followed by i; C as one flat axis in (k, i, j) order. C's single
# transformed axis is split and B is computed at its outer part, storing
# the transformed image of its region per iteration (48 elements, not 72).
from tvm import te

A = te.placeholder((4, 6, 3), name="A")
B = te.compute((4, 6, 3), lambda i, j, k: A[i, j, k] + 1, name="B")
C = te.compute((4, 6, 3), lambda i, j, k: B[i, j, k] * 2, name="C")
s = te.create_schedule(C.op)
kj_outer, kj_inner, i = s[B].transform_layout(lambda i, j, k: [(k * 6 + j) // 2, (k * 6 + j) % 2, i])
(x,) = s[C].transform_layout(lambda i, j, k: [k * 24 + i * 6 + j])
xo, xi = s[C].split(x, factor=5)
s[B].compute_at(s[C], xo)
# expect: allocate B[float32 * 48]
# expect: C[((k.i.fused.j.fused.outer*5) + k.i.fused.j.fused.inner)]
