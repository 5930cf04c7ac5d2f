# Strided slice, as topi.strided_slice computes it: out[i] = x[begin + i *
# stride] per axis. Here every second row and column of a 1x256x56x56
# ResNet-50 activation from channel 64 on (the input of a stride-2 1x1
# projection shortcut, written as a slice). The run uses 8x14x14.
import tvm
from tvm import te


def strided_slice(x, begin, end, strides):
    out_shape = []
    for d in range(len(x.shape)):
        out_shape.append((end[d] - begin[d] + strides[d] - 1) // strides[d])

    def _slice(*idx):
        src = []
        for d in range(len(idx)):
            src.append(begin[d] + idx[d] * strides[d])
        return x(*src)

    return te.compute(out_shape, _slice, name="T_strided_slice")


for channels, size in [(256, 56), (8, 14)]:
    x = te.placeholder((1, channels, size, size), name="x")
    out = strided_slice(x, [0, channels // 4, 0, 0], [1, channels, size, size], [1, 1, 2, 2])
    s = te.create_schedule(out.op)
    print(tvm.lower(s, [x, out], simple_mode=True))
