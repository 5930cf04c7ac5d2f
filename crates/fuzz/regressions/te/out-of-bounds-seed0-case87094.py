import tvm
from tvm import te

A = te.placeholder((7, 2,), name="A")
S0 = te.compute((7 - 1, 2 - 1,), lambda i, j: A[i + 1, j // 2] * 3.0, name="S0")
S1 = te.compute((7 - 1, 2 - 1,), lambda i, j: S0[7 - 1 - 1 - i, j + 0] + S0[7 - 1 - 1 - i, j + 0] + S0[i + 0, j // 2] * 2.0, name="S1")

s = te.create_schedule(S1.op)
f = s[S1].fuse(S1.op.axis[0], S1.op.axis[1])
xo, xi = s[S1].split(f, factor=2)
po_S0, pi_S0 = s[S0].split(S0.op.axis[0], factor=4)
s[S0].compute_at(s[S1], xo)
print(tvm.lower(s, [A, S1], simple_mode=True))
