# A hybrid script as TOPI writes its irregular operators: a causal moving
# average over the hidden states of a BERT-base layer (128 tokens x 768
# features), window 4, written as loops with a running sum kept in a
# variable of the body. The script's loops take an x86 schedule: the
# token loop split and parallel, the feature loop vectorized inside. A
# compute adds the residual afterwards. (The run uses 10 tokens x 12
# features, so the split leaves a tail.)
import tvm
from tvm import te


@te.hybrid.script
def causal_mean(h):
    out = output_tensor(h.shape, h.dtype)
    for t in range(h.shape[0]):
        for f in range(h.shape[1]):
            acc = 0.0
            for w in range(4):
                if t - w >= 0:
                    acc += h[t - w, f]
            out[t, f] = acc / 4.0
    return out


for tokens, features in [(128, 768), (10, 12)]:
    H = te.placeholder((tokens, features), name="H")
    M = causal_mean(H)
    R = te.compute((tokens, features), lambda t, f: H[t, f] + M[t, f], name="residual")
    s = te.create_schedule(R.op)
    t, f, w = M.op.axis
    to, ti = s[M].split(t, factor=8)
    s[M].parallel(to)
    s[M].reorder(to, ti, f, w)
    print(tvm.lower(s, [H, R], simple_mode=True))
