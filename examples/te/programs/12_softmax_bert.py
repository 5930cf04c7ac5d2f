# Softmax over the last axis of BERT-base attention scores (12 heads of
# 128x128 flattened to 1536 rows of 128), as topi.nn.softmax builds it:
# the row maximum, the sum of exponentials, then the normalisation. The
# reductions are computed per row of the output. The run uses 24 rows.
import tvm
from tvm import te


def softmax(x):
    m, n = x.shape
    k1 = te.reduce_axis((0, n), name="k")
    max_elem = te.compute((m,), lambda i: te.max(x[i, k1], axis=k1), name="T_softmax_maxelem")
    k2 = te.reduce_axis((0, n), name="k")
    expsum = te.compute(
        (m,), lambda i: te.sum(te.exp(x[i, k2] - max_elem[i]), axis=k2), name="T_softmax_expsum"
    )
    out = te.compute(
        (m, n), lambda i, j: te.exp(x[i, j] - max_elem[i]) / expsum[i], name="T_softmax_norm"
    )
    return max_elem, expsum, out


for rows in [12 * 128, 24]:
    x = te.placeholder((rows, 128), name="x")
    max_elem, expsum, out = softmax(x)
    s = te.create_schedule(out.op)
    i, j = s[out].op.axis
    s[max_elem].compute_at(s[out], i)
    s[expsum].compute_at(s[out], i)
    print(tvm.lower(s, [x, out], simple_mode=True))
