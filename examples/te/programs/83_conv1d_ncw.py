# 1-D convolution (topi.nn.conv1d_ncw) with stride, as in wav2vec 2.0's
# feature encoder: the second layer, 1x512x3199 -> 512 channels, kernel 3,
# stride 2, no padding. The run uses 1x4x33 -> 4 channels.
import tvm
from tvm import te


def conv1d_ncw(data, kernel, stride):
    batch, in_c, width = data.shape
    out_c, _, ksize = kernel.shape
    out_w = (width - ksize) // stride + 1
    rc = te.reduce_axis((0, in_c), name="rc")
    rw = te.reduce_axis((0, ksize), name="rw")
    return te.compute(
        (batch, out_c, out_w),
        lambda b, c, w: te.sum(data[b, rc, w * stride + rw] * kernel[c, rc, rw], axis=[rc, rw]),
        name="conv1d_ncw",
    )


for channels, width in [(512, 3199), (4, 33)]:
    data = te.placeholder((1, channels, width), name="data")
    kernel = te.placeholder((channels, channels, 3), name="kernel")
    out = conv1d_ncw(data, kernel, 2)
    s = te.create_schedule(out.op)
    b, c, w = s[out].op.axis
    wo, wi = s[out].split(w, factor=16)
    s[out].reorder(b, wo, c, wi)
    print(tvm.lower(s, [data, kernel, out], simple_mode=True))
