import tvm
from tvm import te
import math
from functools import reduce


def get_pad_tuple(padding, kernel):
    if isinstance(padding, (tuple, list)):
        if len(padding) == 2:
            pad_h = padding[0] * 2
            pad_w = padding[1] * 2
        elif len(padding) == 4:
            return padding[0], padding[1], padding[2], padding[3]
        else:
            raise ValueError("Size of padding can only be 2 or 4")
    elif isinstance(padding, int):
        pad_h = pad_w = padding * 2
    elif padding == "VALID":
        pad_h = 0
        pad_w = 0
    elif padding == "SAME":
        pad_h = kernel[0] - 1
        pad_w = kernel[1] - 1
    else:
        raise ValueError("Unknown padding option %s" % padding)
    pad_top = (pad_h + 1) // 2
    pad_left = (pad_w + 1) // 2
    return pad_top, pad_left, pad_h - pad_top, pad_w - pad_left


def pad(data, pad_before, pad_after=None, pad_value=0.0, name="PadInput"):
    n = len(data.shape)
    pad_after = pad_after if pad_after else pad_before
    if len(pad_before) != n:
        raise ValueError(
            "Input dimension and pad_before dismatch : %d vs %d" % (n, len(pad_before))
        )
    out_shape = tuple(data.shape[i] + pad_before[i] + pad_after[i] for i in range(n))

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
            not_zero = tvm.tir.all(*not_zero)
            return tvm.tir.if_then_else(not_zero, data(*index_tuple), pad_value)
        return data(*index_tuple)

    return te.compute(out_shape, _pad, name=name)


def conv2d_nchw(Input, Filter, stride, padding, dilation, out_dtype=None):
    if out_dtype is None:
        out_dtype = Input.dtype
    assert isinstance(stride, int) or len(stride) == 2
    assert isinstance(dilation, int) or len(dilation) == 2
    if isinstance(stride, int):
        stride_h = stride_w = stride
    else:
        stride_h, stride_w = stride
    if isinstance(dilation, int):
        dilation_h = dilation_w = dilation
    else:
        dilation_h, dilation_w = dilation
    batch, in_channel, in_height, in_width = [int(x) for x in Input.shape]
    num_filter, channel, kernel_h, kernel_w = [int(x) for x in Filter.shape]
    dilated_kernel_h = (kernel_h - 1) * dilation_h + 1
    dilated_kernel_w = (kernel_w - 1) * dilation_w + 1
    pad_top, pad_left, pad_down, pad_right = get_pad_tuple(padding, (dilated_kernel_h, dilated_kernel_w))
    out_channel = num_filter
    out_height = (in_height - dilated_kernel_h + pad_top + pad_down) // stride_h + 1
    out_width = (in_width - dilated_kernel_w + pad_left + pad_right) // stride_w + 1
    pad_before = [0, 0, pad_top, pad_left]
    pad_after = [0, 0, pad_down, pad_right]
    temp = pad(Input, pad_before, pad_after, name="pad_temp")
    rc = te.reduce_axis((0, in_channel), name="rc")
    ry = te.reduce_axis((0, kernel_h), name="ry")
    rx = te.reduce_axis((0, kernel_w), name="rx")
    return te.compute(
        (batch, out_channel, out_height, out_width),
        lambda nn, ff, yy, xx: te.sum(
            temp[nn, rc, yy * stride_h + ry * dilation_h, xx * stride_w + rx * dilation_w]
            * Filter[ff, rc, ry, rx],
            axis=[rc, ry, rx],
        ),
        name="conv2d_nchw",
    )


shapes = {"resnet_c2": (1, 8, 14, 14, 16, 3), "small": (1, 4, 8, 8, 4, 1)}
for name, (n, c, h, w, f, k) in sorted(shapes.items()):
    A = te.placeholder((n, c, h, w), name="A")
    W = te.placeholder((f, c, k, k), name="W")
    C = conv2d_nchw(A, W, 1, "SAME" if k > 1 else 0, 1)
    s = te.create_schedule(C.op)
    s[C.op.input_tensors[0]].compute_inline() if False else None
    flops = 2 * reduce(lambda a, b: a * b, [int(d) for d in C.shape]) * c * k * k
    print(f"{name:>10}: out={tuple(int(d) for d in C.shape)} gflop={flops / 1e9:.6f} pad={get_pad_tuple('SAME', (k, k))}")
    print("%s has %d stages" % (name, len(s.stages)) if hasattr(s, "stages") else name)
