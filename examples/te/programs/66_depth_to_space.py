# depth_to_space (pixel shuffle, DCR mode) as topi.nn.depth_to_space
# computes it, followed by space_to_depth that undoes it: an ESPCN-style
# super-resolution output 1x64x56x56 with block 2; the run uses 1x8x3x3.
import tvm
from tvm import te


def depth_to_space(data, block):
    n, c, h, w = data.shape
    out_c = c // (block * block)
    idxdiv = tvm.tir.indexdiv
    idxmod = tvm.tir.indexmod
    return te.compute(
        (n, out_c, h * block, w * block),
        lambda b, ch, y, x: data[
            b,
            (idxmod(y, block) * block + idxmod(x, block)) * out_c + ch,
            idxdiv(y, block),
            idxdiv(x, block),
        ],
        name="depth_to_space",
    )


def space_to_depth(data, block):
    n, c, h, w = data.shape
    idxdiv = tvm.tir.indexdiv
    idxmod = tvm.tir.indexmod
    return te.compute(
        (n, c * block * block, h // block, w // block),
        lambda b, ch, y, x: data[
            b,
            idxmod(ch, c),
            y * block + idxdiv(idxdiv(ch, c), block),
            x * block + idxmod(idxdiv(ch, c), block),
        ],
        name="space_to_depth",
    )


for channels, size in [(64, 56), (8, 3)]:
    data = te.placeholder((1, channels, size, size), name="data")
    shuffled = depth_to_space(data, 2)
    back = space_to_depth(shuffled, 2)
    s = te.create_schedule(back.op)
    b, c, y, x = s[back].op.axis
    s[shuffled].compute_at(s[back], c)
    print(tvm.lower(s, [data, back], simple_mode=True))
