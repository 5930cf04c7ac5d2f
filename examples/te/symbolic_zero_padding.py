# Zero padding with a symbolic size: B is computed at C.i and needs at most
# one element per iteration, as with a concrete size.
import tvm
from tvm import te
n = te.var("n")
A = te.placeholder((n,), name="A")
B = te.compute((n,), lambda i: A[i] + 1, name="B")
C = te.compute((n + 2,), lambda i: tvm.tir.if_then_else(tvm.tir.all(i >= 1, i <= n), B[i - 1], 0.0), name="C")
s = te.create_schedule(C.op)
s[B].compute_at(s[C], C.op.axis[0])
