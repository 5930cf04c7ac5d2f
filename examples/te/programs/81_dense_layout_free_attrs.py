# topi.nn.dense as v0.19 writes it: the compute carries tag="dense" and
# attrs={"layout_free_placeholders": [weight]} (the weight may be
# re-laid-out ahead of time), and the schedule reads both back from the
# operation. BERT-base intermediate dense 128 x 768 -> 3072; the run uses
# 8 x 16 -> 32.
import tvm
from tvm import te
from tvm.topi.utils import get_const_tuple


def dense(data, weight, bias=None, out_dtype="float32"):
    batch, in_dim = get_const_tuple(data.shape)
    out_dim, red_dim = get_const_tuple(weight.shape)
    assert in_dim == red_dim, "dense: reduction dimensions differ"
    k = te.reduce_axis((0, in_dim), name="k")
    mat = te.compute(
        (batch, out_dim),
        lambda i, j: te.sum(data[i, k].astype(out_dtype) * weight[j, k].astype(out_dtype), axis=k),
        name="T_dense",
        tag="dense",
        attrs={"layout_free_placeholders": [weight]},
    )
    if bias is not None:
        mat = te.compute(
            (batch, out_dim), lambda i, j: mat[i, j] + bias[j].astype(out_dtype), tag="broadcast"
        )
    return mat


for tokens, in_dim, out_dim in [(128, 768, 3072), (8, 16, 32)]:
    data = te.placeholder((tokens, in_dim), name="data")
    weight = te.placeholder((out_dim, in_dim), name="weight")
    bias = te.placeholder((out_dim,), name="bias")
    out = dense(data, weight, bias)
    s = te.create_schedule(out.op)
    mat = out.op.input_tensors[0]
    assert mat.op.tag == "dense"
    assert mat.op.attrs["layout_free_placeholders"][0].same_as(weight)
    s[mat].compute_at(s[out], out.op.axis[0])
    print(tvm.lower(s, [data, weight, bias, out], simple_mode=True))
