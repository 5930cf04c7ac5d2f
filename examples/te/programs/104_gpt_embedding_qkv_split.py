# The input side of a GPT-2 block: token embeddings gathered with
# topi.take from the vocabulary table, position embeddings cut with
# topi.strided_slice and added, then the fused QKV projection split into
# query, key and value with topi.split. GPT-2 small (vocabulary 50257,
# 1024 positions, hidden 768, 64 tokens) is printed; the run uses a
# vocabulary of 11, 8 positions, hidden 6 and 4 tokens.
import tvm
from tvm import te, topi

for vocab, positions, hidden, tokens in [(50257, 1024, 768, 64), (11, 8, 6, 4)]:
    wte = te.placeholder((vocab, hidden), name="wte")
    wpe = te.placeholder((positions, hidden), name="wpe")
    ids = te.placeholder((tokens,), dtype="int32", name="ids")
    w_qkv = te.placeholder((3 * hidden, hidden), name="w_qkv")
    tok = topi.take(wte, ids, axis=0)
    pos = topi.strided_slice(wpe, [0, 0], [tokens, hidden])
    h = topi.add(tok, pos)
    qkv = topi.nn.dense(h, w_qkv)
    q, k, v = topi.split(qkv, 3, axis=1)
    print(tok.op.name, pos.op.name, [int(d) for d in q.shape])

    s = te.create_schedule([q.op, k.op, v.op])
print(tvm.lower(s, [wte, wpe, ids, w_qkv, q, k, v], simple_mode=True))
