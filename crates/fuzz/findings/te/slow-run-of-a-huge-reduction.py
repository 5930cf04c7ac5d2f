# mutated
import tvm
from tvm import te

A = te.placeholder((7,), name="A")
S0 = te.compute((7,), lambda i: A[i + 0] + A[i + 0] * 1.0, name="S0")
S1 = te.compute((7 - 2,), lambda i: S0[i + 2] * 2.0, name="S1")
k = te.reduce_axis((0, 9223372036854775807 - 2), name="k")
R = te.compute((1,), lambda i: te.sum(S1[k], axis=k), name="R")

s = te.create_schedule(R.op)
f = s[R].fuse(R.op.axis[0], k)
xo, xi = s[R].split(f, factor=2)
print(tvm.lower(s, [A, R], simple_mode=True))
