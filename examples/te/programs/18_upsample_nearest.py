# Nearest-neighbour 2x upsampling (topi.image.resize2d with
# method="nearest_neighbor" and integer scale), as in a feature-pyramid
# top-down path on a 1x256x14x14 map; the run uses 4 channels of 6x6.
import tvm
from tvm import te


def upsample_nearest(data, scale):
    n, c, h, w = data.shape
    return te.compute(
        (n, c, h * scale, w * scale),
        lambda b, ch, y, x: data[b, ch, tvm.tir.indexdiv(y, scale), tvm.tir.indexdiv(x, scale)],
        name="resize",
    )


for channels, size in [(256, 14), (4, 6)]:
    data = te.placeholder((1, channels, size, size), name="data")
    out = upsample_nearest(data, 2)
    s = te.create_schedule(out.op)
    b, c, y, x = s[out].op.axis
    yo, yi = s[out].split(y, factor=2)
    xo, xi = s[out].split(x, factor=2)
    s[out].reorder(b, c, yo, xo, yi, xi)
    print(tvm.lower(s, [data, out], simple_mode=True))
