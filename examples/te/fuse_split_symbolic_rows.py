# A (n, n - 1) consumer fused then split by 2, its producer computed at the
# outer loop: rows and columns come from dividing by n - 1, which is
# positive wherever the loop runs, so B is not recomputed whole.
import tvm
from tvm import te
n = te.var("n")
A = te.placeholder((n, n - 1), name="A")
B = te.compute((n, n - 1), lambda i, j: A[i, j] + 1, name="B")
C = te.compute((n, n - 1), lambda i, j: B[i, j] * 2, name="C")
s = te.create_schedule(C.op)
f = s[C].fuse(C.op.axis[0], C.op.axis[1])
fo, fi = s[C].split(f, factor=2)
s[B].compute_at(s[C], fo)
