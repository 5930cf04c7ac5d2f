# After inlining T, B is read at (i // 5) * 5 + i % 5, which simplifies to i:
# B needs 3 elements per outer iteration of C and 20 runs in all.
import tvm
from tvm import te
A = te.placeholder((20,), name="A")
B = te.compute((20,), lambda i: A[i] + 1, name="B")
T = te.compute((20,), lambda i: B[(i // 5) * 5 + i % 5], name="T")
C = te.compute((20,), lambda i: T[i] * 2, name="C")
s = te.create_schedule(C.op)
s[T].compute_inline()
xo, xi = s[C].split(C.op.axis[0], factor=3)
s[B].compute_at(s[C], xo)
