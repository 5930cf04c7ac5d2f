# Broadcasting and tiling: topi.broadcast_to of a per-channel bias to an
# NCHW activation, and topi.tile repeating a 2x2 pattern with indexmod,
# added together. Shapes of a ResNet-50 stage-4 output (1x1024x14x14);
# the run uses 1x4x6x6.
import tvm
from tvm import te

for channels, size in [(1024, 14), (4, 6)]:
    bias = te.placeholder((channels, 1, 1), name="bias")
    pattern = te.placeholder((1, 1, 2, 2), name="pattern")
    shape = (1, channels, size, size)
    bcast = te.compute(shape, lambda n, c, h, w: bias[c, 0, 0], name="T_broadcast_to")
    tiled = te.compute(
        shape,
        lambda n, c, h, w: pattern[0, 0, tvm.tir.indexmod(h, 2), tvm.tir.indexmod(w, 2)],
        name="T_tile",
    )
    out = te.compute(shape, lambda n, c, h, w: bcast[n, c, h, w] + tiled[n, c, h, w], name="T_add")
    s = te.create_schedule(out.op)
    s[bcast].compute_inline()
    n, c, h, w = s[out].op.axis
    s[tiled].compute_at(s[out], h)
    print(tvm.lower(s, [bias, pattern, out], simple_mode=True))
