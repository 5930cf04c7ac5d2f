# Transposed convolution (deconvolution) as topi.nn.conv2d_transpose_nchw
# builds it: the input is dilated by the stride (zeros between pixels),
# padded by kernel - 1 - padding, and convolved with the flipped kernel
# (IOHW layout). A 2x upsampling layer of an FCN/U-Net decoder,
# 1x256x14x14 -> 128 channels, 4x4 kernel, stride 2, padding 1; the run
# uses 1x4x4x4 -> 2 channels.
import tvm
from tvm import te


def conv2d_transpose(data, kernel, stride, padding):
    n, c, h, w = data.shape
    _, f, kh, kw = kernel.shape
    dil_h = (h - 1) * stride + 1
    dil_w = (w - 1) * stride + 1
    idxmod = tvm.tir.indexmod
    idxdiv = tvm.tir.indexdiv
    dilated = te.compute(
        (n, c, dil_h, dil_w),
        lambda b, ch, y, x: tvm.tir.if_then_else(
            tvm.tir.all(idxmod(y, stride) == 0, idxmod(x, stride) == 0),
            data[b, ch, idxdiv(y, stride), idxdiv(x, stride)],
            tvm.tir.const(0.0, data.dtype),
        ),
        name="data_dilate",
    )
    pad = kh - 1 - padding
    padded = te.compute(
        (n, c, dil_h + 2 * pad, dil_w + 2 * pad),
        lambda b, ch, y, x: tvm.tir.if_then_else(
            tvm.tir.all(y >= pad, y < dil_h + pad, x >= pad, x < dil_w + pad),
            dilated[b, ch, y - pad, x - pad],
            tvm.tir.const(0.0, data.dtype),
        ),
        name="data_pad",
    )
    out_h = (h - 1) * stride - 2 * padding + kh
    out_w = (w - 1) * stride - 2 * padding + kw
    dc = te.reduce_axis((0, c), name="dc")
    dh = te.reduce_axis((0, kh), name="dh")
    dw = te.reduce_axis((0, kw), name="dw")
    out = te.compute(
        (n, f, out_h, out_w),
        lambda b, ff, y, x: te.sum(
            padded[b, dc, y + dh, x + dw] * kernel[dc, ff, kh - 1 - dh, kw - 1 - dw],
            axis=[dc, dh, dw],
        ),
        name="conv2d_transpose_nchw",
    )
    return dilated, padded, out


for in_c, out_c, size in [(256, 128, 14), (4, 2, 4)]:
    data = te.placeholder((1, in_c, size, size), name="data")
    kernel = te.placeholder((in_c, out_c, 4, 4), name="kernel")
    dilated, padded, out = conv2d_transpose(data, kernel, 2, 1)
    s = te.create_schedule(out.op)
    s[dilated].compute_inline()
    s[padded].compute_inline()
    print(tvm.lower(s, [data, kernel, out], simple_mode=True))
