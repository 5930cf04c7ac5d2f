# A convolution over TOPI's blocked x86 layout (NCHW[x]c), written the way
# TOPI's x86 templates are: the input and the kernel packed by the program,
# `topi.nn.conv2d_NCHWc`, and the x86 modules' fallback configuration and
# schedule (`conv2d_avx_common` for 3x3 kernels, `conv2d_avx_1x1` for 1x1),
# which TOPI reaches as module attributes. Run by both front ends
# (crates/script/tests/topi_modules.rs, python/tests/test_topi_modules.py).
from collections import namedtuple

import tvm
from tvm import autotvm, te
from tvm.topi.x86 import conv2d_avx_1x1, conv2d_avx_common

# TOPI's conv2d workload: these fields, in this order.
Workload = namedtuple(
    "Workload",
    [
        "in_dtype", "out_dtype", "height", "width", "in_filter", "groups", "out_filter",
        "kernel_h", "kernel_w", "padt", "padl", "padb", "padr", "dilation_h", "dilation_w",
        "stride_h", "stride_w",
    ],
)


@autotvm.register_topi_compute("blocked_conv2d.x86")
def blocked_conv2d(cfg, data, kernel, pad):
    n, c, h, w = (int(d) for d in data.shape)
    f, _, kh, kw = (int(d) for d in kernel.shape)
    wkl = Workload("float32", "float32", h, w, c, 1, f, kh, kw, pad, pad, pad, pad, 1, 1, 1, 1)
    module = conv2d_avx_1x1 if kh == 1 and kw == 1 else conv2d_avx_common
    module._fallback_schedule(cfg, wkl)
    ic_bn, oc_bn = cfg["tile_ic"].size[-1], cfg["tile_oc"].size[-1]
    data_vec = te.compute(
        (n, c // ic_bn, h, w, ic_bn),
        lambda b, cc, y, x, cb: data[b, cc * ic_bn + cb, y, x],
        name="data_vec",
    )
    kernel_vec = te.compute(
        (f // oc_bn, c // ic_bn, kh, kw, ic_bn, oc_bn),
        lambda fo, cc, y, x, cb, fb: kernel[fo * oc_bn + fb, cc * ic_bn + cb, y, x],
        name="kernel_vec",
    )
    return tvm.topi.nn.conv2d_NCHWc(data_vec, kernel_vec, 1, pad, 1, "NCHW", "NCHW", "float32")


@autotvm.register_topi_schedule("blocked_conv2d.x86")
def schedule_blocked_conv2d(cfg, outs):
    s = te.create_schedule([x.op for x in outs])
    conv = outs[0]
    data_vec, kernel_vec = conv.op.input_tensors
    kh = int(kernel_vec.shape[2])
    module = conv2d_avx_1x1 if kh == 1 else conv2d_avx_common
    return module._schedule_conv_NCHWc(s, cfg, data_vec, kernel_vec, conv, conv)


for name, (f, k, pad) in [("3x3", (16, 3, 1)), ("1x1", (32, 1, 0))]:
    data = te.placeholder((1, 8, 6, 6), name="data")
    kernel = te.placeholder((f, 8, k, k), name="kernel")
    with tvm.target.Target("llvm"):
        out = blocked_conv2d(data, kernel, pad)
        s = schedule_blocked_conv2d([out])
    print(name, out.op.name, out.op.tag, out.shape, [iv.var.name for iv in out.op.reduce_axis])
    print(tvm.lower(s, [data, kernel, out], simple_mode=True))

