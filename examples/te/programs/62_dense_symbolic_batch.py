# A dense layer for any number of tokens: the batch is a te.var, the
# feature sizes are BERT-base's (768 -> 768). The symbolic rows are split
# by 8 (with a tail), as TOPI schedules written for dynamic batch are.
import tvm
from tvm import te

n = te.var("n")
for hidden in [768, 16]:
    data = te.placeholder((n, hidden), name="data")
    weight = te.placeholder((hidden, hidden), name="weight")
    k = te.reduce_axis((0, hidden), name="k")
    out = te.compute(
        (n, hidden), lambda i, j: te.sum(data[i, k] * weight[j, k], axis=k), name="T_dense"
    )
    s = te.create_schedule(out.op)
    i, j = s[out].op.axis
    io, ii = s[out].split(i, factor=8)
    jo, ji = s[out].split(j, factor=8)
    s[out].reorder(io, jo, ii, ji)
    print(tvm.lower(s, [data, weight, out], simple_mode=True))
