# Attention scores of BERT-base, Q x K^T per head, as topi.nn.batch_matmul
# computes it with transposed B: 12 heads, 128 tokens, head size 64. The
# run uses 2 heads of 16 tokens and head size 8.
import tvm
from tvm import te


def batch_matmul_nt(x, y):
    batch, m, k_dim = x.shape
    _, n, _ = y.shape
    k = te.reduce_axis((0, k_dim), name="k")
    return te.compute(
        (batch, m, n),
        lambda b, i, j: te.sum(x[b, i, k] * y[b, j, k], axis=k),
        name="T_batch_matmul_NT",
    )


for heads, tokens, head_size in [(12, 128, 64), (2, 16, 8)]:
    q = te.placeholder((heads, tokens, head_size), name="q")
    key = te.placeholder((heads, tokens, head_size), name="k_t")
    scores = batch_matmul_nt(q, key)
    s = te.create_schedule(scores.op)
    b, i, j = s[scores].op.axis
    io, ii = s[scores].split(i, factor=8)
    jo, ji = s[scores].split(j, factor=8)
    s[scores].reorder(b, io, jo, ii, ji)
    fused = s[scores].fuse(b, io)
    print(tvm.lower(s, [q, key, scores], simple_mode=True))
