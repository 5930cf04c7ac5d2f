# An empty max reduction is the lowest float32 (-3.40282e+38f, TVM's min_value) on both sides of the check, which agree.
import tvm
from tvm import te
n = 4
A = te.placeholder((n, n), name="A")
k = te.reduce_axis((0, 0), name="k")
B = te.compute((n,), lambda i: te.max(A[i, k], axis=k), name="B")
s = te.create_schedule(B.op)
