# tvm.lower given an inlined tensor among its arguments, as TVM's schedule
# tutorial does after compute_inline: the inlined stage becomes a buffer
# the function takes but never writes. A scaled BERT bias-add + GELU
# (erf form) on 128 x 3072; the run uses 8 x 16.
import tvm
from tvm import te

for tokens, hidden in [(128, 3072), (8, 16)]:
    x = te.placeholder((tokens, hidden), name="x")
    bias = te.placeholder((hidden,), name="bias")
    biased = te.compute(x.shape, lambda i, j: x[i, j] + bias[j], name="biased")
    gelu = te.compute(
        x.shape,
        lambda i, j: biased[i, j] * 0.5 * (1.0 + te.erf(biased[i, j] * 0.7071067811865476)),
        name="gelu",
    )
    s = te.create_schedule(gelu.op)
    s[biased].compute_inline()
    print(tvm.lower(s, [x, bias, biased, gelu], simple_mode=True))
