# A data-parallel loop fused with a reduction loop (TVM accepts it): the
# fused loop is a reduction loop, the initialisation of C runs over the
# whole fused loop before the update, and a producer attached to the fused
# loop is computed one element per iteration.
import tvm
from tvm import te

n = te.var("n")
A = te.placeholder((n, 3), name="A")
P = te.compute((n, 3), lambda i, k: A[i, k] * 2, name="P")
k = te.reduce_axis((0, 3), name="k")
C = te.compute((n,), lambda i: te.sum(P[i, k], axis=k), name="C")

s = te.create_schedule(C.op)
f = s[C].fuse(C.op.axis[0], k)
fo, fi = s[C].split(f, factor=4)
s[P].compute_at(s[C], fi)
print(tvm.lower(s, [A, C], simple_mode=True))
