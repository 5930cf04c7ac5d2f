# A tiled matmul printed as TVMScript, the form TVM v0.19 prints an
# IRModule in: the lowered module's script() text, and its PrimFunc.
import tvm
from tvm import te

M, N, K = 64, 64, 32
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
s = te.create_schedule(C.op)
io, jo, ii, ji = s[C].tile(C.op.axis[0], C.op.axis[1], x_factor=8, y_factor=8)
ko, ki = s[C].split(s[C].op.reduce_axis[0], factor=4)
s[C].reorder(io, jo, ko, ii, ki, ji)

mod = tvm.lower(s, [A, B, C], name="matmul")
print(mod.script())
print(mod["matmul"].script())
