# Bias add followed by ReLU on a ResNet-50 stage-1 activation (NCHW,
# 1x64x56x56), as a fused elementwise chain: the bias stage is inlined
# into the ReLU, which is scheduled like TOPI's generic injective schedule.
# The real shape is lowered and printed; the last schedule uses 16 channels
# of 14x14 so that checking its values is quick.
import tvm
from tvm import te


def bias_add(data, bias):
    n, c, h, w = data.shape
    return te.compute(
        (n, c, h, w), lambda b, ch, y, x: data[b, ch, y, x] + bias[ch], name="T_add"
    )


def relu(x):
    return te.compute(
        x.shape, lambda *i: te.max(x(*i), tvm.tir.const(0, x.dtype)), name="T_relu"
    )


def schedule_injective(out):
    s = te.create_schedule(out.op)
    s[out.op.input_tensors[0]].compute_inline()
    fused = s[out].fuse(*s[out].op.axis)
    xo, xi = s[out].split(fused, factor=16)
    return s


for channels, size in [(64, 56), (16, 14)]:
    data = te.placeholder((1, channels, size, size), name="data")
    bias = te.placeholder((channels,), name="bias")
    out = relu(bias_add(data, bias))
    s = schedule_injective(out)
    print(tvm.lower(s, [data, bias, out], simple_mode=True))
