# An elementwise chain on a matrix of unknown size (te.size_var, which TVM
# knows to be non-negative), as TVM's generic tests write shape-polymorphic
# operators: exp then scale, the first stage computed per split row block
# of the second, with tails where the split does not divide.
import tvm
from tvm import te

n = te.size_var("n")
m = te.size_var("m")
A = te.placeholder((n, m), name="A")
B = te.compute((n, m), lambda i, j: te.exp(A[i, j]), name="B")
C = te.compute((n, m), lambda i, j: B[i, j] * 0.5 + 1.0, name="C")
s = te.create_schedule(C.op)
io, ii = s[C].split(C.op.axis[0], factor=4)
jo, ji = s[C].split(C.op.axis[1], factor=16)
s[C].reorder(io, jo, ii, ji)
s[B].compute_at(s[C], jo)
print(tvm.lower(s, [A, C], simple_mode=True))
