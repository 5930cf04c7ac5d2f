# B's loop over its rows is named i, like C's loop around it: the printed
# program renames the inner one i_1, as tvm.lower does.
import tvm
from tvm import te
A = te.placeholder((5, 5), name="A")
B = te.compute((5, 1), lambda i, j: A[i, i], name="B")
C = te.compute((4,), lambda i: B[i, 0] + B[i + 1, 0], name="C")
s = te.create_schedule(C.op)
s[B].compute_at(s[C], C.op.axis[0])
