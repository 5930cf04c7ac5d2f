# A split into parts of a stage whose needed region is empty in some iterations
# (C reads B only where i < 10): those iterations run no parts, with no
# division by zero.
import tvm
from tvm import te
A = te.placeholder((20,), name="A")
B = te.compute((20,), lambda i: A[i] * 2.0, name="B")
C = te.compute((20,), lambda i: tvm.tir.if_then_else(i < 10, B[i + 10], 0.0), name="C")
s = te.create_schedule(C.op)
bo, bi = s[B].split(B.op.axis[0], nparts=2)
s[B].compute_at(s[C], C.op.axis[0])
