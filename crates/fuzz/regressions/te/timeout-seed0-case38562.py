# mutated
import tvm
from tvm import te

A = te.placeholder((2147483648,), name="A")
S0 = te.compute((5,), lambda i: A[i + 0] + A[i + 0] + A[i // 2] * 3.0, name="S0")
S1 = te.compute((5 - 2,), lambda i: S0[i // 2] + S0[i // 2] + S0[i + 2] * 2.0, name="S1")
S2 = te.compute((5 - 2 - 1,), lambda i: S1[i + 1] + S1[i // 2] + S1[i + 0] * 2.0, name="S2")
S3 = te.compute((5 - 2 - 1,), lambda i: S2[5 - 2 - 1 - 1 - i] + S2[i + 0] + S2[i + 0] * 2.0, name="S3")
k = te.reduce_axis((0, 5 - 2 - 1), name="k")
R = te.compute((1,), lambda i: te.sum(S3[k], axis=k), name="R")

s = te.create_schedule(R.op)
s[S3].compute_at(s[R], R.op.axis[0])
s[S2].compute_at(s[R], R.op.axis[0])
s[S1].compute_inline()
print(tvm.lower(s, [A, R], simple_mode=True))
