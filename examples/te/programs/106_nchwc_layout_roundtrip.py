# The layout conversions x86 TVM inserts around NCHW[x]c convolutions:
# ResNet-50's stage-2 activations packed from NCHW to NCHW16c with
# topi.layout_transform, a per-channel bias added in the packed layout
# and relu, then unpacked back to NCHW. The x86 schedule parallelises
# the fused outer loops and vectorizes the 16 lanes. 1x128x28x28 is
# printed; the run uses 1x8x3x3 packed by 4.
import tvm
from tvm import te, topi

for c, hw, lanes in [(128, 28, 16), (8, 3, 4)]:
    x = te.placeholder((1, c, hw, hw), name="x")
    bias = te.placeholder((c // lanes, 1, 1, lanes), name="bias")
    packed = topi.layout_transform(x, "NCHW", "NCHW%dc" % lanes)
    biased = topi.nn.relu(topi.add(packed, bias))
    back = topi.layout_transform(biased, "NCHW%dc" % lanes, "NCHW")
    print([int(d) for d in packed.shape], packed.op.name)

    s = te.create_schedule(back.op)
    s[biased].compute_inline()
    n, co, h, w, ci = s[packed].op.axis
    s[packed].parallel(s[packed].fuse(n, co))
    s[packed].vectorize(ci)
print(tvm.lower(s, [x, bias, back], simple_mode=True))
