# Layout transforms between NCHW and NCHW8c, as the x86 conv2d_NCHWc
# pipeline inserts them around a convolution: pack with indexdiv/indexmod
# on the channel, unpack back, with the channel block vectorized and the
# outer loops parallel. ResNet-50 1x256x56x56; the run uses 1x16x4x4.
import tvm
from tvm import te
from tvm.topi import tag
from tvm.topi.utils import get_const_tuple


def pack(data, bn):
    n, c, h, w = get_const_tuple(data.shape)
    return te.compute(
        (n, c // bn, h, w, bn),
        lambda b, co, y, x, ci: data[b, co * bn + ci, y, x],
        name="data_vec",
        tag=tag.INJECTIVE,
    )


def unpack(packed):
    n, chunks, h, w, bn = get_const_tuple(packed.shape)
    idxdiv = tvm.tir.indexdiv
    idxmod = tvm.tir.indexmod
    return te.compute(
        (n, chunks * bn, h, w),
        lambda b, c, y, x: packed[b, idxdiv(c, bn), y, x, idxmod(c, bn)] * 2.0,
        name="output_unpack",
        tag=tag.INJECTIVE,
    )


for channels, size in [(256, 56), (16, 4)]:
    data = te.placeholder((1, channels, size, size), name="data")
    packed = pack(data, 8)
    out = unpack(packed)
    s = te.create_schedule(out.op)
    b, co, y, x, ci = s[packed].op.axis
    s[packed].vectorize(ci)
    s[packed].parallel(s[packed].fuse(b, co, y))
    b, c, y, x = s[out].op.axis
    s[out].parallel(s[out].fuse(b, c))
    s[out].vectorize(x)
    print(tvm.lower(s, [data, out], simple_mode=True))
