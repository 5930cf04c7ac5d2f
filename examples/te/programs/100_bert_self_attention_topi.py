# A BERT-base self-attention layer built from TOPI's operators, as a TVM
# user writes it: the fused QKV projection (topi.nn.dense), the heads
# split off with topi.reshape and topi.transpose, scores with
# topi.nn.batch_matmul scaled by 1/sqrt(64), topi.nn.softmax, the
# weighted values, the heads merged back, the output projection, the
# residual add and topi.nn.layer_norm. Sequence 128, hidden 768, 12
# heads are printed; the run uses sequence 4, hidden 8, 2 heads.
import tvm
from tvm import te, topi

for seq, hidden, heads in [(128, 768, 12), (4, 8, 2)]:
    head_dim = hidden // heads
    x = te.placeholder((seq, hidden), name="x")
    w_qkv = te.placeholder((3 * hidden, hidden), name="w_qkv")
    w_out = te.placeholder((hidden, hidden), name="w_out")
    gamma = te.placeholder((hidden,), name="gamma")
    beta = te.placeholder((hidden,), name="beta")

    qkv = topi.nn.dense(x, w_qkv)
    qkv = topi.reshape(qkv, (seq, 3, heads, head_dim))
    qkv = topi.transpose(qkv, (1, 2, 0, 3))
    q, k, v = topi.split(qkv, 3, axis=0)
    q = topi.reshape(q, (heads, seq, head_dim))
    k = topi.reshape(k, (heads, seq, head_dim))
    v = topi.reshape(v, (heads, seq, head_dim))
    scores = topi.nn.batch_matmul(q, k)
    scores = topi.multiply(scores, 1.0 / (head_dim ** 0.5))
    probs = topi.nn.softmax(scores, axis=-1)
    ctx = topi.nn.batch_matmul(probs, v, transpose_b=False)
    ctx = topi.transpose(ctx, (1, 0, 2))
    ctx = topi.reshape(ctx, (seq, hidden))
    out = topi.add(topi.nn.dense(ctx, w_out), x)
    out = topi.nn.layer_norm(out, gamma, beta, axis=[1], epsilon=1e-12)
    print([int(d) for d in scores.shape], out.op.name)

    s = te.create_schedule(out.op)
print(tvm.lower(s, [x, w_qkv, w_out, gamma, beta, out], simple_mode=True))
