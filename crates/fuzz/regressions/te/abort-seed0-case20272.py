# mutated
import tvm
from tvm import te

A = te.placeholder((2147483648, 9,), name="A")
S0 = te.compute((7 - 2, 9 - 2,), lambda i, j: A[i // 2, j + 1] + A[i + 2, j + 2] * 3.0, name="S0")

s = te.create_schedule(S0.op)
xo, xi = s[S0].split(S0.op.axis[0], nparts=4)
print(tvm.lower(s, [A, S0], simple_mode=True))
