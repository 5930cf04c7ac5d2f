# compute_at onto C's axis, then C's axis is split: B is computed in the
# inner loop that now runs each iteration of the axis (as TVM attaches it).
import tvm
from tvm import te
A = te.placeholder((16,), name="A")
B = te.compute((16,), lambda i: A[i] + 1, name="B")
C = te.compute((16,), lambda i: B[i] * 2, name="C")
s = te.create_schedule(C.op)
s[B].compute_at(s[C], C.op.axis[0])
xo, xi = s[C].split(C.op.axis[0], factor=4)
print(tvm.lower(s, [A, C], simple_mode=True))
