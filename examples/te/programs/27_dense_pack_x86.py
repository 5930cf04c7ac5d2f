# Dense with a packed weight, scheduled as TOPI's x86 dense_pack: the
# weight is repacked into blocks of 8 output features, the output is
# cached per tile, the innermost block vectorized and the outer tile loop
# parallel. BERT-base attention output projection (128 tokens, 768 ->
# 768); the run uses 16 tokens and 32 -> 32 features.
import tvm
from tvm import te, topi


def dense_pack(data, weight, bn):
    m, k_dim = topi.utils.get_const_tuple(data.shape)
    n, _ = topi.utils.get_const_tuple(weight.shape)
    packw = te.compute(
        (n // bn, k_dim, bn), lambda z, y, x: weight[z * bn + x, y], name="packed_weight"
    )
    k = te.reduce_axis((0, k_dim), name="k")
    idxdiv = tvm.tir.indexdiv
    idxmod = tvm.tir.indexmod
    out = te.compute(
        (m, n),
        lambda y, x: te.sum(data[y, k] * packw[idxdiv(x, bn), k, idxmod(x, bn)], axis=k),
        name="T_dense",
        tag="dense_pack",
    )
    return packw, out


def schedule_dense_pack(out, packw, bn):
    s = te.create_schedule(out.op)
    CC = s.cache_write(out, "global")
    y, x = s[out].op.axis
    yt, xt, yo, xo = s[out].tile(y, x, x_factor=4, y_factor=bn)
    s[out].vectorize(xo)
    s[out].parallel(yt)
    s[CC].compute_at(s[out], xt)
    yc, xc = s[CC].op.axis
    (kc,) = s[CC].op.reduce_axis
    ko, ki = s[CC].split(kc, factor=4)
    s[CC].reorder(ko, ki, yc, xc)
    s[CC].unroll(ki)
    s[CC].vectorize(xc)
    z, k, b = s[packw].op.axis
    s[packw].vectorize(b)
    s[packw].parallel(z)
    return s


for tokens, hidden in [(128, 768), (16, 32)]:
    data = te.placeholder((tokens, hidden), name="data")
    weight = te.placeholder((hidden, hidden), name="weight")
    packw, out = dense_pack(data, weight, 8)
    s = schedule_dense_pack(out, packw, 8)
    print(tvm.lower(s, [data, weight, out], simple_mode=True))
