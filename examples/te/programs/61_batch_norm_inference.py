# Batch normalisation in inference mode (ResNet-50 bn2a_branch2a,
# 1x64x56x56), as it is computed after constant folding is not applied:
# (x - mean) / sqrt(var + eps) * gamma + beta, one stage per step, all
# but the last inlined; the channel axis is split and bound to blocks.
# The run uses 1x8x6x6.
import tvm
from tvm import te

for channels, size in [(64, 56), (8, 6)]:
    x = te.placeholder((1, channels, size, size), name="x")
    mean = te.placeholder((channels,), name="moving_mean")
    var = te.placeholder((channels,), name="moving_var")
    gamma = te.placeholder((channels,), name="gamma")
    beta = te.placeholder((channels,), name="beta")
    centred = te.compute(x.shape, lambda n, c, h, w: x[n, c, h, w] - mean[c], name="T_subtract")
    denom = te.compute((channels,), lambda c: te.sqrt(var[c] + 1e-5), name="T_sqrt")
    normed = te.compute(
        x.shape, lambda n, c, h, w: centred[n, c, h, w] / denom[c], name="T_divide"
    )
    out = te.compute(
        x.shape, lambda n, c, h, w: normed[n, c, h, w] * gamma[c] + beta[c], name="T_add"
    )
    s = te.create_schedule(out.op)
    s[centred].compute_inline()
    s[normed].compute_inline()
    n, c, h, w = s[out].op.axis
    co, ci = s[out].split(c, factor=4)
    s[out].bind(co, te.thread_axis("blockIdx.x"))
    s[out].bind(ci, te.thread_axis("threadIdx.y"))
    s[denom].compute_at(s[out], ci)
    print(tvm.lower(s, [x, mean, var, gamma, beta, out], simple_mode=True))
