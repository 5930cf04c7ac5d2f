# Dense layer of BERT-base's feed-forward block, as topi.nn.dense computes
# it: out[i, j] = sum_k data[i, k] * weight[j, k] + bias[j], for 128 tokens
# and 768 -> 3072 features. The output is tiled 8x8 and the bias add is
# inlined. The run uses 16 tokens and 64 -> 32 features.
import tvm
from tvm import te


def dense(data, weight, bias):
    batch, in_dim = data.shape
    out_dim, _ = weight.shape
    k = te.reduce_axis((0, in_dim), name="k")
    matmul = te.compute(
        (batch, out_dim),
        lambda i, j: te.sum(data[i, k] * weight[j, k], axis=k),
        name="T_matmul_NT",
    )
    return matmul, te.compute(
        (batch, out_dim), lambda i, j: matmul[i, j] + bias[j], name="T_add"
    )


for tokens, in_dim, out_dim in [(128, 768, 3072), (16, 64, 32)]:
    data = te.placeholder((tokens, in_dim), name="data")
    weight = te.placeholder((out_dim, in_dim), name="weight")
    bias = te.placeholder((out_dim,), name="bias")
    matmul, out = dense(data, weight, bias)
    s = te.create_schedule(out.op)
    i, j = s[out].op.axis
    io, jo, ii, ji = s[out].tile(i, j, x_factor=8, y_factor=8)
    s[matmul].compute_at(s[out], jo)
    (kk,) = s[matmul].op.reduce_axis
    ko, ki = s[matmul].split(kk, factor=16)
    print(tvm.lower(s, [data, weight, bias, out], simple_mode=True))
