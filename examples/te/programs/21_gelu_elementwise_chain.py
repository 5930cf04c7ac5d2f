# The GELU of BERT's feed-forward block, tanh form, as a chain of
# elementwise stages (cube, inner polynomial, tanh, scale) that are all
# inlined into the last one, which is split and bound to GPU threads.
# Shape 128x3072; the run uses 16x64.
import tvm
from tvm import te

for tokens, hidden in [(128, 3072), (16, 64)]:
    x = te.placeholder((tokens, hidden), name="x")
    cube = te.compute(x.shape, lambda i, j: x[i, j] * x[i, j] * x[i, j], name="cube")
    inner = te.compute(
        x.shape, lambda i, j: 0.7978845608 * (x[i, j] + 0.044715 * cube[i, j]), name="inner"
    )
    th = te.compute(x.shape, lambda i, j: te.tanh(inner[i, j]), name="th")
    gelu = te.compute(x.shape, lambda i, j: 0.5 * x[i, j] * (1.0 + th[i, j]), name="gelu")
    s = te.create_schedule(gelu.op)
    for stage in [cube, inner, th]:
        s[stage].compute_inline()
    fused = s[gelu].fuse(*s[gelu].op.axis)
    bx, tx = s[gelu].split(fused, factor=256)
    s[gelu].bind(bx, te.thread_axis("blockIdx.x"))
    s[gelu].bind(tx, te.thread_axis("threadIdx.x"))
    print(tvm.lower(s, [x, gelu], simple_mode=True))
