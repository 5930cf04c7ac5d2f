import tvm
from tvm import te

n = te.var("n")
A = te.placeholder((n, n,), name="A")
S0 = te.compute((n, n,), lambda i, j: A[i + 0, j + 0] + A[i + 0, j + 0] + A[i // 2, j + 0] * 1.0, name="S0")
S1 = te.compute((n - 1, n - 1,), lambda i, j: S0[i + 0, j + 1] * 1.0, name="S1")
S2 = te.compute((n - 1, n - 1,), lambda i, j: S1[i // 2, j + 0] * 2.0, name="S2")

s = te.create_schedule(S2.op)
s[A].transform_layout(lambda i, j: [(i * n + j) // 2, (i * n + j) % 2])
xo, xi = s[S2].split(S2.op.axis[0], nparts=4)
s[S2].reorder(xi, xo, S2.op.axis[1])
s[S1].compute_inline()
s[S0].compute_inline()
print(tvm.lower(s, [A, S2], simple_mode=True))
