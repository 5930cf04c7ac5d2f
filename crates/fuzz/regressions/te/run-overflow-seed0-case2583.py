import tvm
from tvm import te

n = te.var("n")
A = te.placeholder((n, n,), name="A")
S0 = te.compute((n - 1, n - 1,), lambda i, j: A[i + 1, j + 1] + A[i // 2, j + 1] + A[i + 0, j + 1] * 1.0, name="S0")
S1 = te.compute((n - 1 - 2, n - 1 - 2,), lambda i, j: S0[i + 1, j + 0] * 2.0, name="S1")
k = te.reduce_axis((0, n - 1 - 2), name="k")
R = te.compute((n - 1 - 2,), lambda i: te.sum(S1[i, k], axis=k), name="R")

s = te.create_schedule(R.op)
xo, xi = s[R].split(R.op.axis[0], factor=3)
s[S1].compute_at(s[R], xi)
print(tvm.lower(s, [A, R], simple_mode=True))
