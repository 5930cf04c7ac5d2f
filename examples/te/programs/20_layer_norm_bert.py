# Layer normalisation over BERT-base's hidden size (128 tokens x 768):
# mean, variance, then (x - mean) * rsqrt(var + eps) * gamma + beta. Mean
# and variance are computed per token inside the output's row loop. The
# run uses 8 tokens of 64.
import tvm
from tvm import te


def layer_norm(x, gamma, beta, eps=1e-5):
    tokens, hidden = x.shape
    k = te.reduce_axis((0, hidden), name="k")
    mean = te.compute((tokens,), lambda i: te.sum(x[i, k] / hidden, axis=k), name="T_mean")
    k2 = te.reduce_axis((0, hidden), name="k")
    var = te.compute(
        (tokens,),
        lambda i: te.sum((x[i, k2] - mean[i]) * (x[i, k2] - mean[i]) / hidden, axis=k2),
        name="T_var",
    )
    out = te.compute(
        (tokens, hidden),
        lambda i, j: (x[i, j] - mean[i]) * te.rsqrt(var[i] + eps) * gamma[j] + beta[j],
        name="T_layer_norm",
    )
    return mean, var, out


for tokens, hidden in [(128, 768), (8, 64)]:
    x = te.placeholder((tokens, hidden), name="x")
    gamma = te.placeholder((hidden,), name="gamma")
    beta = te.placeholder((hidden,), name="beta")
    mean, var, out = layer_norm(x, gamma, beta)
    s = te.create_schedule(out.op)
    i, j = s[out].op.axis
    s[mean].compute_at(s[out], i)
    s[var].compute_at(s[out], i)
    print(tvm.lower(s, [x, gamma, beta, out], simple_mode=True))
