# Mixed precision dense: float16 activations and weights, products and the
# sum in float32 (astype on each operand), the result cast back to
# float16, as TOPI's dense does with out_dtype. BERT-base output layer
# 128 x 3072 -> 768; the run uses 8 x 32 -> 16.
import tvm
from tvm import te, topi


def dense_fp16(data, weight, out_dtype="float32"):
    m, k_dim = topi.utils.get_const_tuple(data.shape)
    n, _ = topi.utils.get_const_tuple(weight.shape)
    k = te.reduce_axis((0, k_dim), name="k")
    acc = te.compute(
        (m, n),
        lambda i, j: te.sum(data[i, k].astype(out_dtype) * weight[j, k].astype(out_dtype), axis=k),
        name="T_matmul_NT",
    )
    out = te.compute(
        (m, n), lambda i, j: acc[i, j].astype("float16"), name="T_cast", tag=topi.tag.ELEMWISE
    )
    return acc, out


for tokens, in_dim, out_dim in [(128, 3072, 768), (8, 32, 16)]:
    data = te.placeholder((tokens, in_dim), name="data", dtype="float16")
    weight = te.placeholder((out_dim, in_dim), name="weight", dtype="float16")
    acc, out = dense_fp16(data, weight)
    s = te.create_schedule(out.op)
    i, j = s[out].op.axis
    s[acc].compute_at(s[out], i)
    print(tvm.lower(s, [data, weight, out], simple_mode=True))
