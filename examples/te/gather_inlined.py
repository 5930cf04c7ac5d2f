# A read at indices computed from tensor elements (a gather, `B[I[j]]`),
# as embedding lookups do. B is inlined: its definition is substituted at
# the gathered indices, as TVM does, and A then needs its whole extent
# (the indices are data). `--run` fills the index tensor I with values
# inside the axis it indexes.
import tvm
from tvm import te

n = 16
A = te.placeholder((n,), name="A")
I = te.placeholder((8,), name="I", dtype="int32")
B = te.compute((n,), lambda i: A[i] * 2.0 + A[(i + 1) % n], name="B")
C = te.compute((8,), lambda j: B[I[j]] + B[I[j] // 2], name="C")
s = te.create_schedule(C.op)
s[B].compute_inline()
print(tvm.lower(s, [A, I, C], simple_mode=True))
