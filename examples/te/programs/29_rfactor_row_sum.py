# A row sum with its reduction factored (rfactor), as TVM's reduction
# tutorial and TOPI's x86 reduce schedule do: the inner part of the split
# reduction becomes a data-parallel axis of a new stage "B.rf", which is
# computed per row of B, and B's rows are parallel. Rows of BERT-base
# hidden states (128 x 768); the run uses 8 x 64.
import tvm
from tvm import te

for rows, cols in [(128, 768), (8, 64)]:
    A = te.placeholder((rows, cols), name="A")
    k = te.reduce_axis((0, cols), name="k")
    B = te.compute((rows,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
    BF = s.rfactor(B, ki)
    s[BF].compute_at(s[B], s[B].op.axis[0])
    s[B].parallel(s[B].op.axis[0])
    print(tvm.lower(s, [A, B], simple_mode=True))
