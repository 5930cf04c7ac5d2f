# mutated
import tvm
from tvm import te

A = te.placeholder((4611686018427387904,), name="A")
S0 = te.compute((8 - 1,), lambda i: A[i + 1] + A[i + 0] + A[i + 0] * 1.0, name="S0")
S1 = te.compute((8 - 1 - 2,), lambda i: S0[i + 1] * 3.0, name="S1")
S2 = te.compute((8 - 1 - 2 - 1,), lambda i: S1[i + 1] + S1[i + 1] * 2.0, name="S2")
S3 = te.compute((8 - 1 - 2 - 1 - 2,), lambda i: S2[i + 1] + S2[i + 1] * 3.0, name="S3")

s = te.create_schedule(S3.op)
xo, xi = s[S3].split(S3.op.axis[0], factor=3)
s[S2].compute_inline()
s[S1].compute_inline()
print(tvm.lower(s, [A, S3], simple_mode=True))
