# Channel concatenation of a DenseNet-121 dense block: the block input
# (64 channels) and two new feature maps of growth rate 32 each, at 56x56,
# as topi.concatenate selects the source by channel range. The run uses
# 4 + 2 + 2 channels of 8x8.
import tvm
from tvm import te


def concatenate(tensors, axis):
    sizes = [t.shape[axis] for t in tensors]
    total = sizes[0]
    for size in sizes[1:]:
        total = total + size
    out_shape = list(tensors[0].shape)
    out_shape[axis] = total

    def _concat(*idx):
        ends = []
        end = 0
        for size in sizes:
            end = end + size
            ends.append(end)
        # Choose from the last tensor backwards, as nested selects.
        last = len(tensors) - 1
        src = list(idx)
        src[axis] = idx[axis] - (ends[last] - sizes[last])
        value = tensors[last](*src)
        for t in range(last - 1, -1, -1):
            src = list(idx)
            src[axis] = idx[axis] - (ends[t] - sizes[t])
            value = tvm.tir.if_then_else(idx[axis] < ends[t], tensors[t](*src), value)
        return value

    return te.compute(out_shape, _concat, name="T_concat")


for base, growth, size in [(64, 32, 56), (4, 2, 8)]:
    x0 = te.placeholder((1, base, size, size), name="x0")
    x1 = te.placeholder((1, growth, size, size), name="x1")
    x2 = te.placeholder((1, growth, size, size), name="x2")
    out = concatenate([x0, x1, x2], 1)
    s = te.create_schedule(out.op)
    n, c, h, w = s[out].op.axis
    fused = s[out].fuse(c, h)
    print(tvm.lower(s, [x0, x1, x2, out], simple_mode=True))
