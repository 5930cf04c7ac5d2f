# The classifier head of ResNet-50: global average pool output
# 1x2048x1x1 flattened (topi.nn.flatten) and a dense layer to 1000 classes
# with bias. The flatten is inlined into the dense. The run uses a batch of
# 2, 64 features and 10 classes.
import tvm
from tvm import te


def flatten(data):
    n, c, h, w = data.shape
    dim = c * h * w
    idxdiv = tvm.tir.indexdiv
    idxmod = tvm.tir.indexmod
    return te.compute(
        (n, dim),
        lambda i, j: data[i, idxdiv(j, h * w), idxdiv(idxmod(j, h * w), w), idxmod(j, w)],
        name="tensor",
    )


for batch, features, classes in [(1, 2048, 1000), (2, 64, 10)]:
    pooled = te.placeholder((batch, features, 1, 1), name="pooled")
    weight = te.placeholder((classes, features), name="fc_weight")
    bias = te.placeholder((classes,), name="fc_bias")
    flat = flatten(pooled)
    k = te.reduce_axis((0, features), name="k")
    fc = te.compute(
        (batch, classes),
        lambda i, j: te.sum(flat[i, k] * weight[j, k], axis=k),
        name="T_dense",
    )
    out = te.compute((batch, classes), lambda i, j: fc[i, j] + bias[j], name="T_add")
    s = te.create_schedule(out.op)
    s[flat].compute_inline()
    i, j = s[out].op.axis
    jo, ji = s[out].split(j, factor=4)
    s[fc].compute_at(s[out], jo)
    print(tvm.lower(s, [pooled, weight, bias, out], simple_mode=True))
