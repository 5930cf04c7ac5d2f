# ResNet-50's inference batch norm after its first 3x3 convolution of
# stage 2 (1x64x56x56, NCHW), as TOPI's batch_norm writes it when not
# training: the moving mean, moving variance, scale and shift are
# reshaped to 1x64x1x1 with topi.reshape, the variance goes through
# topi.sqrt, and the tensors' operators broadcast. The result is cast to
# float16 with Tensor.astype (TOPI's cast). The x86 schedule inlines the
# element-wise stages into the cast and parallelises its fused outer
# loops. The run uses 1x8x7x7.
import tvm
from tvm import te, topi

for channels, size in [(64, 56), (8, 7)]:
    data = te.placeholder((1, channels, size, size), name="data")
    gamma = te.placeholder((channels,), name="gamma")
    beta = te.placeholder((channels,), name="beta")
    moving_mean = te.placeholder((channels,), name="moving_mean")
    moving_var = te.placeholder((channels,), name="moving_var")

    shape = [1] * len(data.shape)
    shape[1] = data.shape[1]
    mean_rs = topi.reshape(moving_mean, shape)
    var_rs = topi.reshape(moving_var, shape)
    out = (data - mean_rs) / topi.math.sqrt(var_rs + 1e-5)
    out = out * topi.reshape(gamma, shape)
    out = out + topi.reshape(beta, shape)
    half = out.astype("float16")
    assert mean_rs.op.tag == "injective" and half.op.tag == "elemwise"
    assert [int(d) for d in mean_rs.shape] == [1, channels, 1, 1]

    s = te.create_schedule(half.op)
    for stage in s.stages:
        if stage.op != half.op and not isinstance(stage.op, te.PlaceholderOp):
            s[stage.op].compute_inline()
    n, c, h, w = s[half].op.axis
    fused = s[half].fuse(n, c)
    s[half].parallel(fused)
    s[half].vectorize(w)

print(tvm.lower(s, [data, gamma, beta, moving_mean, moving_var, half], simple_mode=True))
