# TOPI's x86 softmax schedule on a 4-D input (BERT-base attention
# probabilities 1x12x128x128, softmax over the last axis): the outer axes
# fused and parallel, the maximum, the exponentials and their sum computed
# per row, and the normalisation vectorized. The run uses 1x2x4x16.
import tvm
from tvm import te


def softmax_4d(x):
    n, h, m, l = x.shape
    k1 = te.reduce_axis((0, l), name="k")
    max_elem = te.compute((n, h, m), lambda a, b, i: te.max(x[a, b, i, k1], axis=k1), name="T_softmax_maxelem")
    exp = te.compute(x.shape, lambda a, b, i, j: te.exp(x[a, b, i, j] - max_elem[a, b, i]), name="T_softmax_exp")
    k2 = te.reduce_axis((0, l), name="k")
    expsum = te.compute((n, h, m), lambda a, b, i: te.sum(exp[a, b, i, k2], axis=k2), name="T_softmax_expsum")
    out = te.compute(
        x.shape, lambda a, b, i, j: exp[a, b, i, j] / expsum[a, b, i], name="T_softmax_norm", tag="softmax_output"
    )
    return max_elem, exp, expsum, out


for heads, tokens, keys in [(12, 128, 128), (2, 4, 16)]:
    x = te.placeholder((1, heads, tokens, keys), name="x")
    max_elem, exp, expsum, out = softmax_4d(x)
    s = te.create_schedule(out.op)
    a, b, i, j = s[out].op.axis
    outer = s[out].fuse(a, b, i)
    s[out].parallel(outer)
    jo, ji = s[out].split(j, factor=8)
    s[out].vectorize(ji)
    s[max_elem].compute_at(s[out], outer)
    s[exp].compute_at(s[out], outer)
    s[expsum].compute_at(s[out], outer)
    s[exp].vectorize(s[exp].op.axis[3])
    print(tvm.lower(s, [x, out], simple_mode=True))
