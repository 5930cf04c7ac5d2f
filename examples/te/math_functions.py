# Math functions on tensor elements (`te.exp`, `tvm.tir.sigmoid`, ...): the
# lowered program calls them as `tvm.lower` prints them, and `--run` checks
# it against direct evaluation.
import tvm
from tvm import te

n = te.var("n")
A = te.placeholder((n,), name="A")
B = te.compute((n,), lambda i: te.exp(A[i]) + tvm.tir.sigmoid(A[i] * 2.0), name="B")
C = te.compute((n,), lambda i: tvm.tir.sqrt(te.abs(B[i])) + te.power(B[i], 2.0), name="C")
s = te.create_schedule(C.op)
xo, xi = s[C].split(C.op.axis[0], factor=4)
s[B].compute_at(s[C], xo)
print(tvm.lower(s, [A, C], simple_mode=True))
