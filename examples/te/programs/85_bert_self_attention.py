# A whole BERT-base self-attention block in TE: Q, K and V projections,
# the split into 12 heads, scaled scores Q K^T / sqrt(64), softmax over
# keys, the context P V and the merge of heads, every stage at the root
# except the head split and merge, which are inlined. 128 tokens of 768
# are printed; the run uses 8 tokens, 2 heads of 4.
import tvm
from tvm import te


def dense(x, w, name):
    tokens, in_dim = x.shape
    out_dim = w.shape[0]
    k = te.reduce_axis((0, in_dim), name="k")
    return te.compute((tokens, out_dim), lambda i, j: te.sum(x[i, k] * w[j, k], axis=k), name=name)


def split_heads(x, heads, name):
    tokens, hidden = x.shape
    size = hidden // heads
    return te.compute((heads, tokens, size), lambda h, t, d: x[t, h * size + d], name=name)


def attention(x, wq, wk, wv, heads):
    tokens, hidden = x.shape
    size = int(hidden) // heads
    q = split_heads(dense(x, wq, "query"), heads, "q_heads")
    k = split_heads(dense(x, wk, "key"), heads, "k_heads")
    v = split_heads(dense(x, wv, "value"), heads, "v_heads")
    scale = 1.0 / (size ** 0.5)
    rd = te.reduce_axis((0, size), name="rd")
    scores = te.compute(
        (heads, tokens, tokens),
        lambda h, i, j: te.sum(q[h, i, rd] * k[h, j, rd] * scale, axis=rd),
        name="scores",
    )
    rj = te.reduce_axis((0, tokens), name="rj")
    row_max = te.compute((heads, tokens), lambda h, i: te.max(scores[h, i, rj], axis=rj), name="row_max")
    rj2 = te.reduce_axis((0, tokens), name="rj")
    row_sum = te.compute(
        (heads, tokens), lambda h, i: te.sum(te.exp(scores[h, i, rj2] - row_max[h, i]), axis=rj2), name="row_sum"
    )
    probs = te.compute(
        (heads, tokens, tokens),
        lambda h, i, j: te.exp(scores[h, i, j] - row_max[h, i]) / row_sum[h, i],
        name="probs",
    )
    rt = te.reduce_axis((0, tokens), name="rt")
    context = te.compute(
        (heads, tokens, size), lambda h, i, d: te.sum(probs[h, i, rt] * v[h, rt, d], axis=rt), name="context"
    )
    merged = te.compute((tokens, hidden), lambda t, c: context[c // size, t, c % size], name="merged")
    return [q, k, v], merged


for tokens, hidden, heads in [(128, 768, 12), (8, 8, 2)]:
    x = te.placeholder((tokens, hidden), name="x")
    wq = te.placeholder((hidden, hidden), name="wq")
    wk = te.placeholder((hidden, hidden), name="wk")
    wv = te.placeholder((hidden, hidden), name="wv")
    splits, out = attention(x, wq, wk, wv, heads)
    s = te.create_schedule(out.op)
    for t in splits:
        s[t].compute_inline()
    print(tvm.lower(s, [x, wq, wk, wv, out], simple_mode=True))
