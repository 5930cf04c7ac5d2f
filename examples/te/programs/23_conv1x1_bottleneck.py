# The 1x1 reduction convolution of a ResNet-50 bottleneck (res4a_branch2a:
# 1x1024x14x14 -> 256 channels), NCHW, scheduled like a GEMM: output
# channels and pixels tiled, the pixel axes fused, the reduction over
# input channels split. The run uses 16 -> 8 channels at 7x7.
import tvm
from tvm import te


def conv1x1(data, kernel):
    n, c, h, w = data.shape
    f, _, _, _ = kernel.shape
    rc = te.reduce_axis((0, c), name="rc")
    return te.compute(
        (n, f, h, w),
        lambda b, ff, y, x: te.sum(data[b, rc, y, x] * kernel[ff, rc, 0, 0], axis=rc),
        name="conv2d_1x1",
    )


for in_c, out_c, size in [(1024, 256, 14), (16, 8, 7)]:
    data = te.placeholder((1, in_c, size, size), name="data")
    kernel = te.placeholder((out_c, in_c, 1, 1), name="kernel")
    out = conv1x1(data, kernel)
    s = te.create_schedule(out.op)
    b, f, y, x = s[out].op.axis
    pix = s[out].fuse(y, x)
    fo, fi = s[out].split(f, factor=4)
    po, pi = s[out].split(pix, factor=7)
    rco, rci = s[out].split(s[out].op.reduce_axis[0], factor=4)
    s[out].reorder(b, fo, po, rco, rci, fi, pi)
    print(tvm.lower(s, [data, kernel, out], simple_mode=True))
