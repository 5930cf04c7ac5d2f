# The convolution branches of an Inception v3 block (mixed_5b: 1x1, 5x5
# and double 3x3 branches on 1x192x35x35) built from a table of branch
# configurations: keyword arguments passed through **kwargs, f-string stage
# names, a dict of branch outputs and slices of the channel list. Scaled
# for the run to 1x4x5x5 input with 2-channel branches.
import tvm
from tvm import te


def conv(data, out_c, ksize, name, **kwargs):
    pad = kwargs.get("pad", ksize // 2)
    n, c, h, w = data.shape
    kernel = te.placeholder((out_c, c, ksize, ksize), name=f"{name}_weight")
    if pad:
        src = te.compute(
            (n, c, h + 2 * pad, w + 2 * pad),
            lambda b, ch, y, x: tvm.tir.if_then_else(
                tvm.tir.all(y >= pad, y < h + pad, x >= pad, x < w + pad),
                data[b, ch, y - pad, x - pad],
                tvm.tir.const(0.0, data.dtype),
            ),
            name=f"{name}_pad",
        )
    else:
        src = data
    rc = te.reduce_axis((0, c), name="rc")
    ry = te.reduce_axis((0, ksize), name="ry")
    rx = te.reduce_axis((0, ksize), name="rx")
    out = te.compute(
        (n, out_c, h, w),
        lambda b, f, y, x: te.sum(src[b, rc, y + ry, x + rx] * kernel[f, rc, ry, rx], axis=[rc, ry, rx]),
        name=f"{name}_conv",
    )
    relu = te.compute(
        out.shape, lambda *i: te.max(out(*i), tvm.tir.const(0.0, "float32")), name=f"{name}_relu"
    )
    return relu, [kernel]


def inception(data, widths):
    branches = {}
    weights = []
    b1, w = conv(data, widths["1x1"], 1, "branch1x1")
    branches["1x1"] = b1
    weights += w
    x, w = conv(data, widths["5x5_reduce"], 1, "branch5x5_1")
    weights += w
    branches["5x5"], w = conv(x, widths["5x5"], 5, "branch5x5_2", pad=2)
    weights += w
    x = data
    for i, width in enumerate(widths["3x3dbl"]):
        x, w = conv(x, width, 3 if i else 1, f"branch3x3dbl_{i + 1}")
        weights += w
    branches["3x3dbl"] = x
    parts = [branches[key] for key in ["1x1", "5x5", "3x3dbl"]]
    total = sum(int(p.shape[1]) for p in parts)
    n, _, h, wd = data.shape

    def _concat(b, c, y, xx):
        start = total - int(parts[-1].shape[1])
        value = parts[-1][b, c - start, y, xx]
        for p in parts[:-1][::-1]:
            end = start
            start = end - int(p.shape[1])
            value = tvm.tir.if_then_else(c < end, p[b, c - start, y, xx], value)
        return value

    out = te.compute((n, total, h, wd), _concat, name="mixed_concat")
    return out, weights


configs = [
    (192, 35, {"1x1": 64, "5x5_reduce": 48, "5x5": 64, "3x3dbl": [64, 96, 96]}),
    (4, 5, {"1x1": 2, "5x5_reduce": 2, "5x5": 2, "3x3dbl": [2, 2, 2]}),
]
for channels, size, widths in configs:
    data = te.placeholder((1, channels, size, size), name="data")
    out, weights = inception(data, widths)
    s = te.create_schedule(out.op)
    print(tvm.lower(s, [data, *weights, out], simple_mode=True))
