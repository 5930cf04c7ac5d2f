# Zero padding written like topi.nn.pad: a pad_before / pad_after list per
# dimension, and a guarded read only on the dimensions that are padded.
# Shape: the input of ResNet-50's 7x7 stem convolution (1x3x224x224, pad 3),
# printed; then a 32x32 image, small enough to check values quickly.
import tvm
from tvm import te


def pad(data, pad_before, pad_after, pad_value=0.0, name="PadInput"):
    n = len(data.shape)
    out_shape = [data.shape[i] + pad_before[i] + pad_after[i] for i in range(n)]

    def _pad(*indices):
        not_zero = []
        index_tuple = []
        for i in range(n):
            if pad_before[i] == 0 and pad_after[i] == 0:
                index_tuple.append(indices[i])
            else:
                index_tuple.append(indices[i] - pad_before[i])
                not_zero.append(indices[i] >= pad_before[i])
                not_zero.append(indices[i] < data.shape[i] + pad_before[i])
        if not_zero:
            cond = tvm.tir.all(*not_zero)
            return tvm.tir.if_then_else(
                cond, data(*index_tuple), tvm.tir.const(pad_value, data.dtype)
            )
        return data(*index_tuple)

    return te.compute(out_shape, _pad, name=name)


for size in [224, 32]:
    data = te.placeholder((1, 3, size, size), name="data")
    padded = pad(data, [0, 0, 3, 3], [0, 0, 3, 3])
    s = te.create_schedule(padded.op)
    n, c, h, w = s[padded].op.axis
    fused = s[padded].fuse(c, h)
    print(tvm.lower(s, [data, padded], simple_mode=True))
