# NCHW[x]c convolution with an x86 schedule in the style of TOPI's
# conv2d_avx_common, reached through topi.utils.traverse_inline, whose
# callback finds the convolution by its tag and inlines the padding it
# reads (tagged "injective,pad"). The output is cached in a "global" stage
# computed per chunk of the output width, the output channel block is
# vectorized, the width block unrolled and the outer loops fused and
# parallel.
# Real layer: ResNet-50 res2a_branch2b (1x64x56x56, 64 filters 3x3, pad 1)
# in NCHW8c; the run uses 2 chunks of 4 channels at 8x8.
import tvm
from tvm import te
from tvm.topi import tag
from tvm.topi.utils import get_const_tuple, traverse_inline


def conv2d_nchwc(data, kernel, stride, pad):
    n, ic_chunk, ih, iw, ic_bn = get_const_tuple(data.shape)
    oc_chunk, _, kh, kw, _, oc_bn = get_const_tuple(kernel.shape)
    oh = (ih + 2 * pad - kh) // stride + 1
    ow = (iw + 2 * pad - kw) // stride + 1
    data_pad = te.compute(
        (n, ic_chunk, ih + 2 * pad, iw + 2 * pad, ic_bn),
        lambda b, c, y, x, cb: tvm.tir.if_then_else(
            tvm.tir.all(y >= pad, y < ih + pad, x >= pad, x < iw + pad),
            data[b, c, y - pad, x - pad, cb],
            tvm.tir.const(0.0, data.dtype),
        ),
        name="data_pad",
        tag=tag.INJECTIVE + ",pad",
    )
    ic = te.reduce_axis((0, ic_chunk * ic_bn), name="ic")
    ry = te.reduce_axis((0, kh), name="kh")
    rx = te.reduce_axis((0, kw), name="kw")
    idxdiv = tvm.tir.indexdiv
    idxmod = tvm.tir.indexmod
    conv = te.compute(
        (n, oc_chunk, oh, ow, oc_bn),
        lambda b, oc, y, x, ob: te.sum(
            data_pad[b, idxdiv(ic, ic_bn), y * stride + ry, x * stride + rx, idxmod(ic, ic_bn)]
            * kernel[oc, idxdiv(ic, ic_bn), ry, rx, idxmod(ic, ic_bn), ob],
            axis=[ic, ry, rx],
        ),
        name="conv2d_NCHWc",
        tag="conv2d_NCHWc",
    )
    return conv


def schedule_conv_nchwc(s, conv, ic_bn, reg_n):
    C = conv
    CC = s.cache_write(C, "global")
    b, oc, oh, ow, ob = s[C].op.axis
    ow_chunk, ow_block = s[C].split(ow, factor=reg_n)
    s[C].reorder(b, oc, oh, ow_chunk, ow_block, ob)
    parallel_axis = s[C].fuse(b, oc, oh)
    s[CC].compute_at(s[C], ow_chunk)
    s[C].vectorize(ob)
    s[C].parallel(parallel_axis)

    _, oc, oh, ow, ob = s[CC].op.axis
    ic, kh, kw = s[CC].op.reduce_axis
    ow_chunk, ow_block = s[CC].split(ow, factor=reg_n)
    ic_chunk, ic_block = s[CC].split(ic, factor=ic_bn)
    s[CC].reorder(oc, oh, ow_chunk, ic_chunk, kh, kw, ic_block, ow_block, ob)
    s[CC].unroll(ow_block)
    s[CC].vectorize(ob)


def schedule_conv2d_nchwc(outs, reg_n=4):
    outs = [outs] if isinstance(outs, te.tensor.Tensor) else outs
    s = te.create_schedule([x.op for x in outs])

    def _callback(op):
        if "conv2d_NCHWc" in op.tag:
            conv = op.output(0)
            data_pad = conv.op.input_tensors[0]
            if isinstance(data_pad.op, te.ComputeOp) and "pad" in data_pad.op.tag:
                s[data_pad].compute_inline()
            ic_bn = get_const_tuple(data_pad.shape)[-1]
            schedule_conv_nchwc(s, conv, ic_bn, reg_n)

    traverse_inline(s, outs[0].op, _callback)
    return s


for chunks, bn, size in [(8, 8, 56), (2, 4, 8)]:
    data = te.placeholder((1, chunks, size, size, bn), name="data")
    kernel = te.placeholder((chunks, chunks, 3, 3, bn, bn), name="kernel")
    conv = conv2d_nchwc(data, kernel, 1, 1)
    s = schedule_conv2d_nchwc(conv)
    print(tvm.lower(s, [data, kernel, conv], simple_mode=True))
