# Unsigned and boolean inputs are drawn within their types' ranges.
import tvm
from tvm import te
A = te.placeholder((8,), name="A", dtype="uint8")
M = te.placeholder((8,), name="M", dtype="bool")
B = te.compute((8,), lambda i: A[i] + M[i], name="B")
s = te.create_schedule(B.op)
