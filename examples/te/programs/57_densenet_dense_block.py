# A DenseNet-121 dense block built layer by layer in a while loop: each
# layer (batch-norm scale, ReLU, 1x1 bottleneck to 4*growth channels, 3x3
# to growth channels) reads the concatenation of all earlier feature maps.
# Stage names are %-formatted, the list of feature maps grows. Block 1
# (64 channels, 6 layers, growth 32 at 56x56) is printed lowered; the run
# uses 2 layers, 4 channels, growth 2 at 6x6.
import tvm
from tvm import te


def concat_channels(maps):
    offsets = [0] * (len(maps) + 1)
    for i, m in enumerate(maps):
        offsets[i + 1] = offsets[i] + int(m.shape[1])
    n, _, h, w = maps[0].shape

    def _pick(b, c, y, x):
        value = maps[-1][b, c - offsets[-2], y, x]
        for i in range(len(maps) - 2, -1, -1):
            value = tvm.tir.if_then_else(c < offsets[i + 1], maps[i][b, c - offsets[i], y, x], value)
        return value

    return te.compute((n, offsets[-1], h, w), _pick, name="concat_%d" % len(maps))


def bn_relu_conv(data, out_c, ksize, layer, part, params):
    n, c, h, w = data.shape
    scale = te.placeholder((c,), name="l%d_%s_scale" % (layer, part))
    kernel = te.placeholder((out_c, c, ksize, ksize), name="l%d_%s_weight" % (layer, part))
    params.extend([scale, kernel])
    act = te.compute(
        data.shape,
        lambda b, ch, y, x: te.max(data[b, ch, y, x] * scale[ch], tvm.tir.const(0.0, "float32")),
        name="l%d_%s_act" % (layer, part),
    )
    pad = ksize // 2
    padded = te.compute(
        (n, c, h + 2 * pad, w + 2 * pad),
        lambda b, ch, y, x: tvm.tir.if_then_else(
            tvm.tir.all(y >= pad, y < h + pad, x >= pad, x < w + pad),
            act[b, ch, y - pad, x - pad],
            tvm.tir.const(0.0, "float32"),
        ),
        name="l%d_%s_pad" % (layer, part),
    )
    rc = te.reduce_axis((0, c), name="rc")
    ry = te.reduce_axis((0, ksize), name="ry")
    rx = te.reduce_axis((0, ksize), name="rx")
    return te.compute(
        (n, out_c, h, w),
        lambda b, f, y, x: te.sum(padded[b, rc, y + ry, x + rx] * kernel[f, rc, ry, rx], axis=[rc, ry, rx]),
        name="l%d_%s_conv" % (layer, part),
    )


def dense_block(data, layers, growth):
    maps = [data]
    params = []
    layer = 0
    while layer < layers:
        x = concat_channels(maps) if len(maps) > 1 else maps[0]
        x = bn_relu_conv(x, 4 * growth, 1, layer, "a", params)
        x = bn_relu_conv(x, growth, 3, layer, "b", params)
        maps.append(x)
        layer += 1
    return concat_channels(maps), params


for channels, layers, growth, size in [(64, 6, 32, 56), (4, 2, 2, 6)]:
    data = te.placeholder((1, channels, size, size), name="data")
    out, params = dense_block(data, layers, growth)
    s = te.create_schedule(out.op)
    print(tvm.lower(s, [data] + params + [out], simple_mode=True))
