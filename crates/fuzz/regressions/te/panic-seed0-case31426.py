# mutated
import tvm
from tvm import te

A = te.placeholder((4611686018427387904, 7,), name="A")
S0 = te.compute((9, 7,), lambda i, j: A[i + 0, j // 2] * 1.0, name="S0")

s = te.create_schedule(S0.op)
print(tvm.lower(s, [A, S0], simple_mode=True))
