# A row sum reduced across the threads of a block, as in TVM's reduction
# tutorial: the reduction is split, its inner part factored out with
# rfactor, the remaining reduction axis bound to threadIdx.x, and only
# thread 0 stores the result (set_store_predicate). Rows of BERT-base
# hidden states, 128 x 768; the run uses 8 x 64.
import tvm
from tvm import te

for rows, cols in [(128, 768), (8, 64)]:
    A = te.placeholder((rows, cols), name="A")
    k = te.reduce_axis((0, cols), name="k")
    B = te.compute((rows,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
    BF = s.rfactor(B, ki)
    xo, xi = s[B].split(s[B].op.axis[0], factor=4)
    s[B].bind(xo, te.thread_axis("blockIdx.x"))
    s[B].bind(xi, te.thread_axis("threadIdx.y"))
    tx = te.thread_axis("threadIdx.x")
    s[B].bind(s[B].op.reduce_axis[0], tx)
    s[BF].compute_at(s[B], s[B].op.reduce_axis[0])
    s[B].set_store_predicate(tx.var.equal(0))
    print(tvm.lower(s, [A, B], simple_mode=True))
