# Requantisation after an int8 convolution, as the QNN lowering writes it
# in TE: the int32 accumulator is scaled in float, rounded, shifted by the
# output zero point, clipped to the int8 range and cast (astype, te.round).
# A quantized MobileNet v2 pointwise output (1x24x56x56); the run uses
# 1x4x6x6.
import tvm
from tvm import te


def requantize(acc, scale, zero_point):
    def _rq(n, c, h, w):
        scaled = acc[n, c, h, w].astype("float32") * scale[c]
        shifted = te.round(scaled) + zero_point
        clipped = te.min(te.max(shifted, te.min_value("int8").astype("float32")), 127.0)
        return clipped.astype("int8")

    return te.compute(acc.shape, _rq, name="T_requantize", tag="elemwise")


for channels, size in [(24, 56), (4, 6)]:
    acc = te.placeholder((1, channels, size, size), name="acc", dtype="int32")
    scale = te.placeholder((channels,), name="scale")
    out = requantize(acc, scale, 3.0)
    s = te.create_schedule(out.op)
    n, c, h, w = s[out].op.axis
    fused = s[out].fuse(c, h)
    print(tvm.lower(s, [acc, scale, out], simple_mode=True))
