# Multi-output computes: an elementwise compute returning two tensors (the
# gates of a GRU-style update, sigmoid and tanh of the same input), and the
# one-pass mean and mean of squares of layer normalisation with a tuple
# reducer. BERT-base 128 x 768; the run uses 8 x 16.
import tvm
from tvm import te

pair_sum = te.comm_reducer(
    lambda x, y: (x[0] + y[0], x[1] + y[1]),
    lambda t0, t1: (tvm.tir.const(0, t0), tvm.tir.const(0, t1)),
    name="pair_sum",
)

for rows, cols in [(128, 768), (8, 16)]:
    x = te.placeholder((rows, cols), name="x")
    gate, cand = te.compute(
        (rows, cols), lambda i, j: (te.sigmoid(x[i, j]), te.tanh(x[i, j])), name="gates"
    )
    mixed = te.compute((rows, cols), lambda i, j: gate[i, j] * cand[i, j], name="mixed")
    k = te.reduce_axis((0, cols), name="k")
    s1, s2 = te.compute(
        (rows,),
        lambda i: pair_sum((mixed[i, k] / cols, mixed[i, k] * mixed[i, k] / cols), axis=k),
        name="moments",
    )
    out = te.compute(
        (rows, cols),
        lambda i, j: (mixed[i, j] - s1[i]) * te.rsqrt(s2[i] - s1[i] * s1[i] + 1e-5),
        name="normed",
    )
    s = te.create_schedule(out.op)
    s[s1].compute_at(s[out], out.op.axis[0])
    print(tvm.lower(s, [x, out], simple_mode=True))
