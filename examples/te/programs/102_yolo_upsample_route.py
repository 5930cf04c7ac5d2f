# YOLOv3's route layer: the 13x13 detection branch upsampled twice with
# topi.nn.upsampling (nearest neighbour) and joined with the 26x26
# backbone features by topi.concatenate, as darknet's route does, under an
# x86 schedule that inlines the upsampling into the concatenation and
# parallelises its channel loop. Real YOLOv3 shapes are printed; the run
# uses 2x2 maps with 4 and 8 channels.
import tvm
from tvm import te, topi

for hw, c_small, c_big in [(13, 256, 512), (2, 4, 8)]:
    small = te.placeholder((1, c_small, hw, hw), name="small")
    big = te.placeholder((1, c_big, 2 * hw, 2 * hw), name="big")
    up = topi.nn.upsampling(small, 2, 2, layout="NCHW", method="nearest_neighbor")
    route = topi.concatenate([up, big], axis=1)
    print(up.op.name, up.op.tag, [int(d) for d in route.shape])

    s = te.create_schedule(route.op)
    s[up].compute_inline()
    n, c, h, w = s[route].op.axis
    s[route].parallel(c)
print(tvm.lower(s, [small, big, route], simple_mode=True))
