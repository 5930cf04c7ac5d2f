# Splitting BERT-base hidden states into attention heads: reshape
# (128, 768) -> (128, 12, 64), then transpose to (12, 128, 64), written as
# topi's reshape and transpose do it, with flat-index arithmetic. The
# reshape is inlined. The run uses 16 tokens and 4 heads of 8.
import tvm
from tvm import te


def reshape(x, new_shape):
    old_shape = x.shape

    def _flat(*idx):
        flat = idx[0]
        for d in range(1, len(new_shape)):
            flat = flat * new_shape[d] + idx[d]
        src = []
        for d in range(len(old_shape) - 1, -1, -1):
            src.append(tvm.tir.indexmod(flat, old_shape[d]))
            flat = tvm.tir.indexdiv(flat, old_shape[d])
        src.reverse()
        return x(*src)

    return te.compute(new_shape, _flat, name="T_reshape")


def transpose(x, axes):
    new_shape = [x.shape[a] for a in axes]

    def _t(*idx):
        src = [0] * len(axes)
        for out_dim, in_dim in enumerate(axes):
            src[in_dim] = idx[out_dim]
        return x(*src)

    return te.compute(new_shape, _t, name="T_transpose")


for tokens, heads, head_size in [(128, 12, 64), (16, 4, 8)]:
    hidden = te.placeholder((tokens, heads * head_size), name="hidden")
    r = reshape(hidden, (tokens, heads, head_size))
    t = transpose(r, (1, 0, 2))
    s = te.create_schedule(t.op)
    s[r].compute_inline()
    print(tvm.lower(s, [hidden, t], simple_mode=True))
