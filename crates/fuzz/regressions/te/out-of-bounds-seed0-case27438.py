import tvm
from tvm import te

A = te.placeholder((7,), name="A")
S0 = te.compute((7 - 1,), lambda i: A[i + 1] + A[i + 1] * 2.0, name="S0")
S1 = te.compute((7 - 1,), lambda i: S0[7 - 1 - 1 - i] + S0[i + 0] + S0[i + 0] * 2.0, name="S1")

s = te.create_schedule(S1.op)
xo, xi = s[S1].split(S1.op.axis[0], nparts=4)
po_S0, pi_S0 = s[S0].split(S0.op.axis[0], factor=4)
s[S0].compute_at(s[S1], xo)
print(tvm.lower(s, [A, S1], simple_mode=True))
