# An inlined tensor and an unused input passed to tvm.lower: TVM gives
# neither storage in the body; both are accepted.
import tvm
from tvm import te
A = te.placeholder((4,), name="A")
B = te.compute((4,), lambda i: A[i] + 1, name="B")
C = te.compute((4,), lambda i: B[i] * 2, name="C")
s = te.create_schedule(C.op)
s[B].compute_inline()
U = te.placeholder((3,), name="U")
print(tvm.lower(s, [A, B, C, U], simple_mode=True))
