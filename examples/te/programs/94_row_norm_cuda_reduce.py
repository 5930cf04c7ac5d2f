# A row reduction scheduled as TOPI's CUDA reductions are: the reduction
# axes fused and split by the thread count, the inner part factored out
# with rfactor and bound to threadIdx.x (each thread sums a strided slice,
# then the threads of the block combine their parts), the output axes
# fused, split and bound to blockIdx.x and threadIdx.y, and the store made
# by thread 0 of each row, inside the output. Squared L2 norms of BERT-large
# hidden states, 384 tokens x 1024 features (the run uses 10 x 80, so the
# last block and the last slice of each row are partial).
import tvm
from tvm import te

num_thread = 32
for tokens, features in [(384, 1024), (10, 80)]:
    H = te.placeholder((tokens, features), name="H")
    k = te.reduce_axis((0, features), name="k")
    N = te.compute((tokens,), lambda t: te.sum(H[t, k] * H[t, k], axis=k), name="H_red")
    s = te.create_schedule(N.op)
    block_x = te.thread_axis("blockIdx.x")
    thread_x = te.thread_axis((0, num_thread), "threadIdx.x")
    thread_y = te.thread_axis((0, num_thread), "threadIdx.y")
    fused_reduce = s[N].fuse(*s[N].op.reduce_axis)
    ko, ki = s[N].split(fused_reduce, factor=num_thread)
    NF = s.rfactor(N, ki)
    tx = s[N].op.reduce_axis[0]
    s[N].bind(tx, thread_x)
    s[NF].compute_at(s[N], tx)
    fused_outer = s[N].fuse(*s[N].op.axis)
    bx, outer_in = s[N].split(fused_outer, factor=num_thread)
    s[N].bind(outer_in, thread_y)
    s[N].bind(bx, block_x)
    s[N].set_store_predicate(
        tvm.tir.all(thread_x.equal(0), block_x * num_thread + thread_y < tokens)
    )
    print(tvm.lower(s, [H, N], simple_mode=True))
