# TOPI's x86 injective schedule on a 5-D NCHW16c tensor (an elementwise
# add of two ResNet-50 residual branches in the x86 packed layout,
# 1x16x14x14x16): the first three axes fused and parallel, the channel
# block vectorized. The run uses 1x2x4x4x16.
import tvm
from tvm import te, topi


def schedule_injective_from_existing(s, out):
    assert topi.tag.is_injective(out.op.tag)
    axes = s[out].op.axis
    if len(axes) >= 5:
        fused = s[out].fuse(axes[0], axes[1], axes[2])
        s[out].parallel(fused)
    elif len(axes) >= 3:
        fused = s[out].fuse(axes[0], axes[1])
        s[out].parallel(fused)
    inner = s[out].op.axis[len(axes) - 1]
    s[out].vectorize(inner)
    return s


for chunks, size in [(16, 14), (2, 4)]:
    a = te.placeholder((1, chunks, size, size, 16), name="a")
    b = te.placeholder((1, chunks, size, size, 16), name="b")
    out = te.compute(a.shape, lambda *i: a(*i) + b(*i), name="T_add", tag=topi.tag.ELEMWISE)
    s = te.create_schedule(out.op)
    schedule_injective_from_existing(s, out)
    print(tvm.lower(s, [a, b, out], simple_mode=True))
