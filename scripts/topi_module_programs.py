#!/usr/bin/env python3
"""Runs programs made of TVM v0.19.0's TOPI modules, unchanged but for
their imports, under both front ends.

What it measures: whether TOPI's own Python code (``python/tvm/topi/nn``,
``image``, ``x86``, ``cuda``, ``generic``) runs on rangefinder's TVM API as
it runs on TVM. Each program is one or more TOPI modules, read from a TVM
checkout at run time (nothing of TVM is committed here), followed by a
driver written for this script: a real network shape, the operator, a
schedule, ``tvm.lower``. The modules are changed only in their imports:

* ``from __future__`` lines are dropped (they must open a file);
* a relative import of a name that an earlier module of the same program
  defines is dropped (the modules are concatenated in order);
* any other relative import becomes the absolute import of the same
  module (``from ..utils import simplify`` in ``topi/nn/pad.py`` becomes
  ``from tvm.topi.utils import simplify``), so it resolves to
  rangefinder's ``tvm.topi``; a name an earlier module defines, imported
  under another name (``_get_workload as _get_conv2d_workload``), becomes
  an assignment.

Each program runs as ``rangefinder te FILE --run`` and
``python -m rangefinder.tvm FILE --run``: the lowered program is run and
checked against direct evaluation of the compute definitions. Exit code 2
(an API rangefinder does not have, or a program too large to run) counts
as refused; exit code 1 with a ``--run`` report is a wrong value; a panic,
signal or time-out is a crash. The script exits 1 on any crash or wrong
value.

Usage::

    python3 scripts/topi_module_programs.py [--tvm-git DIR] [--rev REV]
        [--bin PATH] [--python PATH] [--out DIR] [--only NAME ...]

``--tvm-git`` defaults to the git mirror /work/.mirror/apache+tvm/repo at
``refs/tags/v0.19.0``; ``--out`` keeps the generated programs.
"""

import argparse
import ast
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def driver(body, args):
    """A driver: ``body`` builds the tensors and ``s``; ``args`` are
    lowered."""
    return f"import tvm\nfrom tvm import te\n{body.strip()}\nprint(tvm.lower(s, {args}, simple_mode=True))\n"


CONV2D = ["nn/pad.py", "nn/utils.py", "nn/winograd_util.py", "nn/conv2d.py"]
DCONV = ["nn/pad.py", "nn/utils.py", "nn/dilate.py"]

#: name -> (TOPI modules in order, driver)
PROGRAMS = {
    "conv2d_nchw_resnet_stage4": (CONV2D, driver("""
data = te.placeholder((1, 512, 7, 7), name="data")
kernel = te.placeholder((512, 512, 3, 3), name="kernel")
out = conv2d_nchw(data, kernel, 1, 1, 1)
s = te.create_schedule(out.op)
""", "[data, kernel, out]")),
    "conv2d_nhwc_mobilenet_pointwise": (CONV2D, driver("""
data = te.placeholder((1, 56, 56, 64), name="data")
kernel = te.placeholder((1, 1, 64, 128), name="kernel")
out = conv2d_nhwc(data, kernel, 1, 0, 1)
s = te.create_schedule(out.op)
""", "[data, kernel, out]")),
    "conv1d_ncw": (CONV2D + ["nn/conv1d.py"], driver("""
x = te.placeholder((1, 64, 128), name="x")
w = te.placeholder((32, 64, 3), name="w")
out = conv1d_ncw(x, w, 1, 1, 1)
s = te.create_schedule(out.op)
""", "[x, w, out]")),
    "conv3d_ncdhw": (CONV2D + ["nn/conv3d.py"], driver("""
x = te.placeholder((1, 8, 8, 14, 14), name="x")
w = te.placeholder((8, 8, 3, 3, 3), name="w")
out = conv3d_ncdhw(x, w, 1, 1, 1, 1)
s = te.create_schedule(out.op)
""", "[x, w, out]")),
    "conv2d_generic_default_schedule": (["generic/default.py"] + CONV2D, driver("""
data = te.placeholder((1, 64, 14, 14), name="data")
kernel = te.placeholder((64, 64, 3, 3), name="kernel")
out = conv2d_nchw(data, kernel, 1, 1, 1)
with tvm.target.Target("llvm"):
    s = default_schedule([out], False)
""", "[data, kernel, out]")),
    "depthwise_conv2d_mobilenet": (["nn/pad.py", "nn/utils.py", "nn/dilate.py", "nn/depthwise_conv2d.py"], driver("""
data = te.placeholder((1, 32, 112, 112), name="data")
kernel = te.placeholder((32, 1, 3, 3), name="kernel")
out = depthwise_conv2d_nchw(data, kernel, (1, 1), (1, 1), (1, 1))
s = te.create_schedule(out.op)
""", "[data, kernel, out]")),
    "conv2d_transpose_nchw": (["nn/pad.py", "nn/utils.py", "nn/dilate.py", "nn/conv2d_transpose.py"], driver("""
x = te.placeholder((1, 64, 14, 14), name="x")
w = te.placeholder((64, 32, 4, 4), name="w")
out = conv2d_transpose_nchw(x, w, (2, 2), (1, 1), "float32", (0, 0))
s = te.create_schedule(out.op)
""", "[x, w, out]")),
    "correlation_flownet": (["nn/pad.py", "nn/correlation.py"], driver("""
a = te.placeholder((1, 16, 20, 20), name="a")
b = te.placeholder((1, 16, 20, 20), name="b")
out = correlation_nchw(a, b, 1, 2, 1, 2, 2, True)
s = te.create_schedule(out.op)
""", "[a, b, out]")),
    "dense_bert_small": (["nn/dense.py"], driver("""
data = te.placeholder((16, 768), name="data")
weight = te.placeholder((768, 768), name="weight")
bias = te.placeholder((768,), name="bias")
out = dense(data, weight, bias)
s = te.create_schedule(out.op)
""", "[data, weight, bias, out]")),
    "batch_matmul_bert_attention": (["nn/batch_matmul.py"], driver("""
a = te.placeholder((12, 128, 64), name="a")
b = te.placeholder((12, 128, 64), name="b")
out = batch_matmul(a, b)
s = te.create_schedule(out.op)
""", "[a, b, out]")),
    "softmax_bert": (["nn/softmax.py"], driver("""
x = te.placeholder((128, 1000), name="x")
out = softmax(x)
s = te.create_schedule(out.op)
""", "[x, out]")),
    "log_softmax": (["nn/softmax.py"], driver("""
x = te.placeholder((32, 1000), name="x")
out = log_softmax(x)
s = te.create_schedule(out.op)
""", "[x, out]")),
    "pad_inception": (["nn/pad.py"], driver("""
x = te.placeholder((1, 192, 35, 35), name="x")
out = pad(x, [0, 0, 1, 1], [0, 0, 1, 1], pad_value=0.0)
s = te.create_schedule(out.op)
""", "[x, out]")),
    "relu_leaky_relu": (["nn/elemwise.py"], driver("""
x = te.placeholder((1, 64, 56, 56), name="x")
z = leaky_relu(relu(x), 0.1)
s = te.create_schedule(z.op)
""", "[x, z]")),
    "flatten_classifier": (["nn/flatten.py"], driver("""
x = te.placeholder((1, 2048, 1, 1), name="x")
out = flatten(x)
s = te.create_schedule(out.op)
""", "[x, out]")),
    "scale_shift_nchw": (["nn/mapping.py"], driver("""
x = te.placeholder((1, 64, 56, 56), name="x")
scale = te.placeholder((64,), name="scale")
shift = te.placeholder((64,), name="shift")
out = scale_shift_nchw(x, scale, shift)
s = te.create_schedule(out.op)
""", "[x, scale, shift, out]")),
    "depth_to_space": (["nn/depth_to_space.py"], driver("""
x = te.placeholder((1, 64, 28, 28), name="x")
out = depth_to_space(x, 2)
s = te.create_schedule(out.op)
""", "[x, out]")),
    "space_to_depth": (["nn/space_to_depth.py"], driver("""
x = te.placeholder((1, 16, 56, 56), name="x")
out = space_to_depth(x, 2)
s = te.create_schedule(out.op)
""", "[x, out]")),
    "dilate": (["nn/dilate.py"], driver("""
x = te.placeholder((1, 16, 14, 14), name="x")
out = dilate(x, (1, 1, 2, 2))
s = te.create_schedule(out.op)
""", "[x, out]")),
    "batch_norm_inference": (["nn/batch_norm.py"], driver("""
x = te.placeholder((1, 64, 56, 56), name="x")
gamma, beta = te.placeholder((64,), name="gamma"), te.placeholder((64,), name="beta")
mean, var = te.placeholder((64,), name="mean"), te.placeholder((64,), name="var")
out = batch_norm(x, gamma, beta, mean, var)[0]
s = te.create_schedule(out.op)
""", "[x, gamma, beta, mean, var, out]")),
    "resize2d_bilinear": (["image/resize.py"], driver("""
x = te.placeholder((1, 3, 32, 32), name="x")
out = resize2d(x, (0.0, 0.0, 0.0, 0.0), (64, 64), method="linear")
s = te.create_schedule(out.op)
""", "[x, out]")),
    "resize2d_nearest_nhwc": (["image/resize.py"], driver("""
x = te.placeholder((1, 14, 14, 256), name="x")
out = resize2d(x, (0.0, 0.0, 0.0, 0.0), (28, 28), layout="NHWC", method="nearest_neighbor",
               coordinate_transformation_mode="asymmetric")
s = te.create_schedule(out.op)
""", "[x, out]")),
    "upsampling_yolo": (["nn/upsampling.py"], driver("""
x = te.placeholder((1, 32, 28, 28), name="x")
out = upsampling(x, 2, 2)
s = te.create_schedule(out.op)
""", "[x, out]")),
    "x86_schedule_injective": (["generic/injective.py", "x86/injective.py", "nn/elemwise.py"], driver("""
x = te.placeholder((1, 64, 56, 56), name="x")
y = relu(x)
s = schedule_injective([y])
""", "[x, y]")),
    "x86_schedule_reduce": (["generic/injective.py", "x86/injective.py", "x86/reduction.py"], driver("""
x = te.placeholder((64, 1000), name="x")
k = te.reduce_axis((0, 1000), name="k")
y = te.compute((64,), lambda i: te.sum(x[i, k], axis=k), name="y", tag="comm_reduce")
s = schedule_reduce([y])
""", "[x, y]")),
    "x86_schedule_pool": (["x86/pooling.py"], driver("""
x = te.placeholder((1, 64, 112, 112), name="x")
out = tvm.topi.nn.pool2d(x, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), "max", layout="NCHW")
s = schedule_pool([out], "NCHW")
""", "[x, out]")),
    "cuda_schedule_injective": (["cuda/injective.py", "nn/elemwise.py"], driver("""
x = te.placeholder((1, 64, 56, 56), name="x")
y = relu(x)
with tvm.target.Target("cuda"):
    s = schedule_injective([y])
""", "[x, y]")),
    "cuda_schedule_softmax": (["cuda/injective.py", "cuda/softmax.py", "nn/softmax.py"], driver("""
x = te.placeholder((64, 1000), name="x")
out = softmax(x)
with tvm.target.Target("cuda"):
    s = schedule_softmax([out])
""", "[x, out]")),
    "cuda_schedule_reduce": (["cuda/injective.py", "cuda/reduction.py"], driver("""
x = te.placeholder((64, 1024), name="x")
k = te.reduce_axis((0, 1024), name="k")
y = te.compute((64,), lambda i: te.sum(x[i, k], axis=k), name="y", tag="comm_reduce")
with tvm.target.Target("cuda"):
    s = schedule_reduce([y])
""", "[x, y]")),
    "cuda_schedule_pool": (["cuda/injective.py", "cuda/reduction.py", "cuda/pooling.py"], driver("""
x = te.placeholder((1, 64, 56, 56), name="x")
out = tvm.topi.nn.pool2d(x, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), "max", layout="NCHW")
with tvm.target.Target("cuda"):
    s = schedule_pool([out], "NCHW")
""", "[x, out]")),
    "x86_dense_nopack_autotvm": (["nn/dense.py", "x86/dense.py"], driver("""
data = te.placeholder((16, 768), name="data")
weight = te.placeholder((768, 768), name="weight")
with tvm.target.Target("llvm"):
    out = dense_nopack(data, weight)
    s = schedule_dense_nopack([out])
""", "[data, weight, out]")),
    "x86_dense_pack_autotvm": (["nn/dense.py", "x86/dense.py"], driver("""
data = te.placeholder((16, 512), name="data")
weight = te.placeholder((1000, 512), name="weight")
with tvm.target.Target("llvm -mcpu=core-avx2"):
    out = dense_pack(data, weight)
    s = schedule_dense_pack([out])
""", "[data, weight, out]")),
    "gpu_dense_small_batch_autotvm": (["nn/dense.py", "gpu/dense.py"], driver("""
data = te.placeholder((8, 512), name="data")
weight = te.placeholder((512, 512), name="weight")
with tvm.target.Target("cuda"):
    out = dense_small_batch(data, weight)
    s = schedule_dense_small_batch([out])
""", "[data, weight, out]")),
    "x86_batch_matmul_autotvm": (["nn/batch_matmul.py", "nn/dense.py", "x86/dense.py", "x86/batch_matmul.py"], driver("""
a = te.placeholder((12, 128, 64), name="a")
b = te.placeholder((12, 128, 64), name="b")
with tvm.target.Target("llvm"):
    out = batch_matmul(a, b)
    s = schedule_batch_matmul([out])
""", "[a, b, out]")),
    "cuda_batch_matmul_autotvm": (["nn/batch_matmul.py", "cuda/batch_matmul.py"], driver("""
a = te.placeholder((12, 128, 64), name="a")
b = te.placeholder((12, 128, 64), name="b")
with tvm.target.Target("cuda"):
    out = batch_matmul(a, b)
    s = schedule_batch_matmul([out])
""", "[a, b, out]")),
    "cuda_conv2d_direct_autotvm": (CONV2D + ["cuda/conv2d_direct.py", "cuda/conv2d.py"], driver("""
data = te.placeholder((1, 64, 14, 14), name="data")
kernel = te.placeholder((64, 64, 3, 3), name="kernel")
with tvm.target.Target("cuda"):
    out = conv2d_nchw(data, kernel, 1, 1, 1)
    s = schedule_conv2d_nchw([out])
""", "[data, kernel, out]")),
    "cuda_depthwise_autotvm": (["nn/pad.py", "nn/utils.py", "nn/dilate.py", "nn/depthwise_conv2d.py", "cuda/injective.py", "cuda/depthwise_conv2d.py"], driver("""
data = te.placeholder((1, 32, 56, 56), name="data")
kernel = te.placeholder((32, 1, 3, 3), name="kernel")
with tvm.target.Target("cuda"):
    out = depthwise_conv2d_nchw(data, kernel, (1, 1), (1, 1), (1, 1), "float32")
    s = schedule_depthwise_conv2d_nchw([out])
""", "[data, kernel, out]")),
    "cuda_conv2d_transpose_autotvm": (["nn/pad.py", "nn/utils.py", "nn/dilate.py", "nn/conv2d_transpose.py", "cuda/conv2d_transpose.py"], driver("""
x = te.placeholder((1, 16, 8, 8), name="x")
w = te.placeholder((16, 8, 4, 4), name="w")
with tvm.target.Target("cuda"):
    out = conv2d_transpose_nchw(x, w, (2, 2), (1, 1), "float32", (0, 0))
    s = schedule_conv2d_transpose_nchw([out])
""", "[x, w, out]")),
    "generic_schedule_depthwise": (["nn/pad.py", "nn/utils.py", "nn/dilate.py", "nn/depthwise_conv2d.py"], driver("""
data = te.placeholder((1, 64, 28, 28), name="data")
kernel = te.placeholder((64, 1, 3, 3), name="kernel")
out = depthwise_conv2d_nchw(data, kernel, (1, 1), (1, 1), (1, 1))
with tvm.target.Target("llvm"):
    s = tvm.topi.generic.schedule_depthwise_conv2d_nchw([out])
""", "[data, kernel, out]")),
    "pool2d_via_nn_pooling_x86": (["nn/pooling.py", "x86/pooling.py"], driver("""
x = te.placeholder((1, 64, 112, 112), name="x")
out = pool2d(x, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), "max", layout="NCHW")
s = schedule_pool([out], "NCHW")
""", "[x, out]")),
    "avg_pool2d_nhwc_inception": (["nn/pooling.py", "x86/pooling.py"], driver("""
x = te.placeholder((1, 35, 35, 192), name="x")
out = pool2d(x, (3, 3), (1, 1), (1, 1), (1, 1, 1, 1), "avg", layout="NHWC", count_include_pad=False)
s = schedule_pool([out], "NHWC")
""", "[x, out]")),
    "global_pool_resnet_head_x86": (["nn/pooling.py", "x86/pooling.py"], driver("""
x = te.placeholder((1, 2048, 7, 7), name="x")
out = global_pool(x, "avg", layout="NCHW")
s = schedule_adaptive_pool([out])
""", "[x, out]")),
    "adaptive_pool_cuda": (["nn/pooling.py", "cuda/injective.py", "cuda/reduction.py", "cuda/pooling.py"], driver("""
x = te.placeholder((1, 512, 14, 14), name="x")
out = adaptive_pool(x, (7, 7), "max", layout="NCHW")
with tvm.target.Target("cuda"):
    s = schedule_adaptive_pool([out])
""", "[x, out]")),
    "pool1d_and_pool3d": (["nn/pooling.py"], driver("""
x = te.placeholder((1, 16, 64), name="x")
y = pool1d(x, (3,), (2,), (1,), (1, 1), "max", layout="NCW")
v = te.placeholder((1, 8, 8, 16, 16), name="v")
w = pool3d(v, (2, 2, 2), (2, 2, 2), (1, 1, 1), (0, 0, 0, 0, 0, 0), "avg", layout="NCDHW")
s = te.create_schedule([y.op, w.op])
""", "[x, v, y, w]")),
    "lrn_alexnet": (["nn/local_response_norm.py"], driver("""
x = te.placeholder((1, 96, 55, 55), name="x")
out = lrn(x, 5, 1, 0.0001, 0.75, 2.0)
s = te.create_schedule(out.op)
""", "[x, out]")),
    "layer_norm_bert": (["nn/layer_norm.py"], driver("""
x = te.placeholder((128, 768), name="x")
gamma = te.placeholder((768,), name="gamma")
beta = te.placeholder((768,), name="beta")
out = layer_norm(x, gamma, beta, [1], 1e-12)
s = te.create_schedule(out.op)
""", "[x, gamma, beta, out]")),
    "group_norm_nchw": (["nn/group_norm.py"], driver("""
x = te.placeholder((1, 64, 28, 28), name="x")
gamma = te.placeholder((64,), name="gamma")
beta = te.placeholder((64,), name="beta")
out = group_norm(x, gamma, beta, 32, 1, [2, 3])
s = te.create_schedule(out.op)
""", "[x, gamma, beta, out]")),
    "prelu_nchw": (["nn/elemwise.py"], driver("""
x = te.placeholder((1, 64, 56, 56), name="x")
slope = te.placeholder((64,), name="slope")
out = prelu(x, slope)
s = te.create_schedule(out.op)
""", "[x, slope, out]")),
    "mirror_pad_reflect": (["nn/pad.py"], driver("""
x = te.placeholder((1, 3, 224, 224), name="x")
out = mirror_pad(x, [0, 0, 3, 3], [0, 0, 3, 3], mode="REFLECT")
s = te.create_schedule(out.op)
""", "[x, out]")),
    "scale_shift_nhwc": (["nn/mapping.py"], driver("""
x = te.placeholder((1, 56, 56, 64), name="x")
scale = te.placeholder((64,), name="scale")
shift = te.placeholder((64,), name="shift")
out = scale_shift_nhwc(x, scale, shift)
s = te.create_schedule(out.op)
""", "[x, scale, shift, out]")),
    "group_conv2d_resnext": (CONV2D, driver("""
data = te.placeholder((1, 128, 56, 56), name="data")
kernel = te.placeholder((128, 4, 3, 3), name="kernel")
out = group_conv2d_nchw(data, kernel, 1, 1, 1, 32)
s = te.create_schedule(out.op)
""", "[data, kernel, out]")),
    "depthwise_conv2d_nhwc_mobilenet": (["nn/pad.py", "nn/utils.py", "nn/dilate.py", "nn/depthwise_conv2d.py"], driver("""
data = te.placeholder((1, 56, 56, 128), name="data")
kernel = te.placeholder((3, 3, 128, 1), name="kernel")
out = depthwise_conv2d_nhwc(data, kernel, (1, 1), (1, 1), (1, 1))
s = te.create_schedule(out.op)
""", "[data, kernel, out]")),
    "x86_reduce_argmax_classifier": (["generic/injective.py", "x86/injective.py", "x86/reduction.py"], driver("""
x = te.placeholder((32, 1000), name="x")
y = tvm.topi.argmax(x, axis=1)
s = schedule_reduce([y])
""", "[x, y]")),
    "cuda_reduce_max_keepdims": (["cuda/injective.py", "cuda/reduction.py"], driver("""
x = te.placeholder((64, 1000), name="x")
y = tvm.topi.max(x, axis=1, keepdims=True)
with tvm.target.Target("cuda"):
    s = schedule_reduce([y])
""", "[x, y]")),
    "x86_concatenate_densenet": (["generic/injective.py", "x86/injective.py"], driver("""
a = te.placeholder((1, 64, 56, 56), name="a")
b = te.placeholder((1, 32, 56, 56), name="b")
out = tvm.topi.concatenate([a, b], axis=1)
s = schedule_concatenate([out])
""", "[a, b, out]")),
    "cuda_injective_transpose_bert": (["cuda/injective.py"], driver("""
x = te.placeholder((128, 12, 64), name="x")
out = tvm.topi.transpose(x, (1, 0, 2))
with tvm.target.Target("cuda"):
    s = schedule_injective([out])
""", "[x, out]")),
    "upsampling_bilinear_nhwc": (["image/resize.py", "nn/upsampling.py"], driver("""
x = te.placeholder((1, 16, 16, 64), name="x")
out = upsampling(x, 2, 2, layout="NHWC", method="bilinear", align_corners=True)
s = te.create_schedule(out.op)
""", "[x, out]")),
    "instance_norm_nchw": (["nn/instance_norm.py"], driver("""
x = te.placeholder((1, 64, 56, 56), name="x")
gamma = te.placeholder((56, 56), name="gamma")
beta = te.placeholder((56, 56), name="beta")
out = instance_norm(x, gamma, beta, (2, 3), 1e-5)
s = te.create_schedule(out.op)
""", "[x, gamma, beta, out]")),
    "rms_norm_llama": (["nn/rms_norm.py"], driver("""
x = te.placeholder((8, 4096), name="x")
w = te.placeholder((4096,), name="w")
out = rms_norm(x, w, (1,), 1e-6)
s = te.create_schedule(out.op)
""", "[x, w, out]")),
    "lstm_scan": (["nn/lstm.py"], driver("""
xs = te.placeholder((4, 1, 32), name="xs")
wi = te.placeholder((128, 32), name="wi")
wh = te.placeholder((128, 32), name="wh")
h, c = lstm(xs, wi, wh)
s = te.create_schedule([h.op, c.op])
""", "[xs, wi, wh, h, c]")),
    "nll_loss_imagenet": (["nn/loss.py"], driver("""
pred = te.placeholder((8, 1000), name="pred")
tgt = te.placeholder((8,), name="tgt", dtype="int32")
w = te.placeholder((1000,), name="w")
out = nll_loss(pred, tgt, w, "mean", -100)
s = te.create_schedule(out.op)
""", "[pred, tgt, w, out]")),
    "fifo_buffer_wavenet": (["nn/fifo_buffer.py"], driver("""
data = te.placeholder((1, 64, 1), name="data")
buf = te.placeholder((1, 64, 8), name="buf")
out = fifo_buffer(data, buf, 2)
s = te.create_schedule(out.op)
""", "[data, buf, out]")),
    "bitserial_conv2d_nchw": (["nn/pad.py", "nn/utils.py", "nn/bitserial_util.py", "nn/bitserial_conv2d.py"], driver("""
data = te.placeholder((1, 64, 14, 14), name="data", dtype="uint32")
kernel = te.placeholder((64, 64, 3, 3), name="kernel", dtype="uint32")
out = bitserial_conv2d_nchw(data, kernel, 1, 1, 2, 1, "uint32", "int32", True)
s = te.create_schedule(out.op)
""", "[data, kernel, out]")),
    "bitserial_dense": (["nn/bitserial_util.py", "nn/bitserial_dense.py"], driver("""
data = te.placeholder((1, 512), name="data", dtype="uint32")
weight = te.placeholder((256, 512), name="weight", dtype="uint32")
out = bitserial_dense(data, weight, 2, 1, "uint32", "int16", True)
s = te.create_schedule(out.op)
""", "[data, weight, out]")),
    "binarize_pack_binary_dense": (["nn/bnn.py"], driver("""
data = te.placeholder((1, 512), name="data")
weight = te.placeholder((256, 512), name="weight")
dp = binarize_pack(data)
wp = binarize_pack(weight, name="PackedWeight")
out = binary_dense(dp, wp)
s = te.create_schedule(out.op)
""", "[data, weight, out]")),
    "deformable_conv2d_nchw": (["nn/utils.py", "nn/deformable_conv2d.py"], driver("""
data = te.placeholder((1, 64, 14, 14), name="data")
offset = te.placeholder((1, 18, 14, 14), name="offset")
kernel = te.placeholder((64, 64, 3, 3), name="kernel")
out = deformable_conv2d_nchw(data, offset, kernel, 1, 1, 1, 1, 1, "float32")
s = te.create_schedule(out.op)
""", "[data, offset, kernel, out]")),
    "conv3d_transpose_ncdhw": (DCONV + ["nn/conv3d_transpose.py"], driver("""
x = te.placeholder((1, 16, 4, 8, 8), name="x")
w = te.placeholder((16, 8, 3, 3, 3), name="w")
out = conv3d_transpose_ncdhw(x, w, (2, 2, 2), (1, 1, 1), "float32", (1, 1, 1))
s = te.create_schedule(out.op)
""", "[x, w, out]")),
    "conv1d_transpose_ncw": (DCONV + ["nn/conv1d_transpose.py"], driver("""
x = te.placeholder((1, 64, 32), name="x")
w = te.placeholder((64, 32, 4), name="w")
out = conv1d_transpose_ncw(x, w, 2, 1, "float32", (0,))
s = te.create_schedule(out.op)
""", "[x, w, out]")),
    "group_conv2d_nhwc_resnext": (CONV2D, driver("""
data = te.placeholder((1, 28, 28, 128), name="data")
kernel = te.placeholder((3, 3, 4, 128), name="kernel")
out = group_conv2d_nhwc(data, kernel, 1, 1, 1, 32)
s = te.create_schedule(out.op)
""", "[data, kernel, out]")),
    "conv2d_NCHWc_nn": (CONV2D, driver("""
data = te.placeholder((1, 8, 14, 14, 8), name="data")
kernel = te.placeholder((8, 8, 3, 3, 8, 8), name="kernel")
with tvm.target.Target("llvm"):
    out = conv2d_NCHWc(data, kernel, 1, 1, 1, "NCHW8c", "NCHW8c", "float32")
s = te.create_schedule(out.op)
""", "[data, kernel, out]")),
    "conv2d_winograd_nhwc": (CONV2D, driver("""
data = te.placeholder((1, 14, 14, 64), name="data")
weight = te.placeholder((3, 3, 64, 64), name="weight")
out = conv2d_winograd_nhwc(data, weight, 1, 1, 1, "float32")
s = te.create_schedule(out.op)
""", "[data, weight, out]")),
    "sparse_dense_csr_bert": (["nn/sparse.py"], driver("""
data = te.placeholder((16, 256), name="data")
wdata = te.placeholder((512,), name="wdata")
windices = te.placeholder((512,), name="windices", dtype="int32")
windptr = te.placeholder((129,), name="windptr", dtype="int32")
out = sparse_dense(data, wdata, windices, windptr)
s = te.create_schedule(out.op)
""", "[data, wdata, windices, windptr, out]")),
    "qnn_simulated_quantize": (["nn/qnn.py"], driver("""
a = te.placeholder((1, 64, 28, 28), name="value")
d = te.placeholder([], name="dtype", dtype="int32")
sc = te.placeholder((64,), name="scale")
zp = te.placeholder((64,), name="zp", dtype="int32")
out = simulated_quantize(a, d, output_scale=sc, output_zero_point=zp, axis=1)
s = te.create_schedule(out.op)
""", "[a, d, sc, zp, out]")),
    "affine_grid_grid_sample": (["image/grid_sample.py"], driver("""
theta = te.placeholder((1, 2, 3), name="theta")
x = te.placeholder((1, 32, 16, 16), name="x")
grid = affine_grid(theta, (16, 16))
out = grid_sample(x, grid, method="bilinear", padding_mode="zeros", align_corners=True)
s = te.create_schedule(out.op)
""", "[theta, x, out]")),
    "dilation2d_nchw": (["image/dilation2d.py"], driver("""
x = te.placeholder((1, 64, 28, 28), name="x")
f = te.placeholder((64, 3, 3), name="f")
out = dilation2d_nchw(x, f, 1, 1, 1)
s = te.create_schedule(out.op)
""", "[x, f, out]")),
    "reduction_module_funcs": (["reduction.py"], driver("""
x = te.placeholder((4, 64, 7, 7), name="x")
a = sum(x, axis=(2, 3), keepdims=True)
p = prod(x, axis=1)
m = argmin(x, axis=1)
b = te.placeholder((4, 64), name="b", dtype="bool")
al = all(b, axis=1)
an = any(b, axis=0, keepdims=True)
s = te.create_schedule([a.op, p.op, m.op, al.op, an.op])
""", "[x, b, a, p, m, al, an]")),
    "scatter_nd_update": (["scatter.py"], driver("""
data = te.placeholder((8, 16), name="data")
indices = te.placeholder((1, 4), name="indices", dtype="int64")
updates = te.placeholder((4, 16), name="updates")
out = scatter_nd(data, indices, updates, "update")
s = te.create_schedule(out.op)
""", "[data, indices, updates, out]")),
    "sort_detection_scores": (["sort.py"], driver("""
scores = te.placeholder((2, 100), name="scores")
out = sort(scores, axis=1, is_ascend=False)
s = te.create_schedule(out.op)
""", "[scores, out]")),
    "argsort_nms_valid_count": (["sort.py"], driver("""
scores = te.placeholder((2, 50), name="scores")
valid = te.placeholder((2,), name="valid", dtype="int32")
out = argsort(scores, valid_count=valid, axis=1, is_ascend=False)
s = te.create_schedule(out.op)
""", "[scores, valid, out]")),
    "topk_both_ssd": (["sort.py"], driver("""
scores = te.placeholder((1, 8, 200), name="scores")
values, indices = topk(scores, k=10, axis=-1, ret_type="both", dtype="int32")
s = te.create_schedule([values.op])
""", "[scores, values, indices]")),
    "argsort_then_gather": (["sort.py"], driver("""
x = te.placeholder((16,), name="x")
order = argsort(x, axis=0, is_ascend=True, dtype="int32")
out = te.compute((16,), lambda i: x[order[i]] * 2.0, name="gathered")
s = te.create_schedule(out.op)
""", "[x, out]")),
    "cumsum_scan": (["scan.py"], driver("""
x = te.placeholder((4, 128), name="x")
out = cumsum(x, axis=1)
s = te.create_schedule(out.op)
""", "[x, out]")),
    "einsum_bert_attention": (["einsum.py"], driver("""
q = te.placeholder((12, 128, 64), name="q")
k = te.placeholder((12, 128, 64), name="k")
out = einsum("bik,bjk->bij", q, k)
s = te.create_schedule(out.op)
""", "[q, k, out]")),
    "space_to_batch_batch_to_space": (["nn/space_to_batch_nd.py", "nn/batch_to_space_nd.py"], driver("""
x = te.placeholder((1, 32, 14, 14), name="x")
y = space_to_batch_nd(x, [2, 2], [0, 0], [0, 0])
z = batch_to_space_nd(y, [2, 2], [0, 0], [0, 0])
s = te.create_schedule(z.op)
""", "[x, z]")),
    "x86_conv2d_nchw_autotvm": (CONV2D + ["x86/conv2d.py"], driver("""
data = te.placeholder((1, 64, 14, 14), name="data")
kernel = te.placeholder((64, 64, 3, 3), name="kernel")
with tvm.target.Target("llvm"):
    out = conv2d_nchw(data, kernel, 1, 1, 1, "float32")
    s = schedule_conv2d_nchw([out])
""", "[data, kernel, out]")),
    "x86_conv2d_nhwc_schedule": (CONV2D + ["x86/conv2d.py"], driver("""
data = te.placeholder((1, 14, 14, 256), name="data")
kernel = te.placeholder((3, 3, 256, 64), name="kernel")
out = tvm.topi.nn.conv2d_nhwc(data, kernel, 1, 1, 1, "float32")
s = schedule_conv2d_nhwc([out])
""", "[data, kernel, out]")),
    "x86_group_conv2d_spatial_pack": (CONV2D + ["x86/group_conv2d.py"], driver("""
data = te.placeholder((1, 128, 14, 14), name="data")
kernel = te.placeholder((128, 4, 3, 3), name="kernel")
with tvm.target.Target("llvm"):
    out = group_conv2d_nchw(data, kernel, 1, 1, 1, 32, "float32")
    s = schedule_group_conv2d_nchw([out])
""", "[data, kernel, out]")),
    "x86_conv1d_schedule": (CONV2D + ["nn/conv1d.py", "x86/conv1d.py"], driver("""
x = te.placeholder((1, 64, 128), name="x")
w = te.placeholder((32, 64, 3), name="w")
out = conv1d_ncw(x, w, 1, 1, 1)
s = schedule_conv1d_ncw([out])
""", "[x, w, out]")),
    "x86_conv3d_ncdhw_autotvm": (["x86/conv3d.py"], driver("""
x = te.placeholder((1, 16, 8, 14, 14), name="x")
w = te.placeholder((16, 16, 3, 3, 3), name="w")
with tvm.target.Target("llvm"):
    out = conv3d_ncdhw(x, w, (1, 1, 1), (1, 1, 1), (1, 1, 1), 1, "float32")
    s = schedule_conv3d_ncdhw([out])
""", "[x, w, out]")),
    "gpu_conv2d_nhwc_direct": (CONV2D + ["gpu/conv2d_nhwc.py", "gpu/conv2d.py"], driver("""
data = te.placeholder((1, 14, 14, 64), name="data")
kernel = te.placeholder((3, 3, 64, 64), name="kernel")
with tvm.target.Target("cuda"):
    out = conv2d_nhwc(data, kernel, 1, 1, 1, "float32")
    s = schedule_conv2d_nhwc([out])
""", "[data, kernel, out]")),
    "generic_nn_schedule_dense": (["nn/dense.py", "generic/default.py", "generic/nn.py"], driver("""
data = te.placeholder((1, 2048), name="data")
weight = te.placeholder((1000, 2048), name="weight")
out = dense(data, weight)
with tvm.target.Target("llvm"):
    s = schedule_dense([out])
""", "[data, weight, out]")),
    "x86_adaptive_pool": (["nn/pooling.py", "x86/pooling.py"], driver("""
x = te.placeholder((1, 512, 14, 14), name="x")
out = adaptive_pool(x, (7, 7), "avg", layout="NCHW")
s = schedule_adaptive_pool([out])
""", "[x, out]")),
    "cuda_reduce_all_axes": (["cuda/injective.py", "cuda/reduction.py"], driver("""
x = te.placeholder((64, 1000), name="x")
y = tvm.topi.sum(x)
with tvm.target.Target("cuda"):
    s = schedule_reduce([y])
""", "[x, y]")),
    "cuda_reduce_argmin": (["cuda/injective.py", "cuda/reduction.py"], driver("""
x = te.placeholder((32, 1000), name="x")
y = tvm.topi.argmin(x, axis=1)
with tvm.target.Target("cuda"):
    s = schedule_reduce([y])
""", "[x, y]")),
    "x86_conv3d_ncdhw_autotvm_with_utils": (["nn/pad.py", "nn/utils.py", "x86/conv3d.py"], driver("""
x = te.placeholder((1, 16, 8, 14, 14), name="x")
w = te.placeholder((16, 16, 3, 3, 3), name="w")
with tvm.target.Target("llvm"):
    out = conv3d_ncdhw(x, w, (1, 1, 1), (1, 1, 1), (1, 1, 1), 1, "float32")
    s = schedule_conv3d_ncdhw([out])
""", "[x, w, out]")),
    "x86_conv2d_avx_common_fallback": (CONV2D + ["x86/conv2d_avx_common.py"], driver("""
# x86/conv2d.py's conv2d_NCHWc / schedule_conv2d_NCHWc, restated in the driver because
# x86/conv2d.py reaches conv2d_avx_common as a module attribute (not concatenable).
from tvm import autotvm
from tvm.topi.utils import traverse_inline

@autotvm.register_topi_compute("conv2d_NCHWc.x86")
def x86_conv2d_NCHWc(cfg, data, kernel, strides, padding, dilation, layout, out_layout, out_dtype):
    n, in_channel, ih, iw = get_const_tuple(data.shape)
    num_filter, _, kh, kw = get_const_tuple(kernel.shape)
    cfg.define_split("tile_ic", in_channel, num_outputs=2)
    cfg.define_split("tile_oc", num_filter, num_outputs=2)
    cfg.define_split("tile_ow", iw, num_outputs=2, filter=lambda y: y.size[-1] <= 64, policy="verbose")
    cfg.define_knob("unroll_kw", [True, False])
    if cfg.is_fallback:
        wkl = _get_workload(data, kernel, strides, padding, dilation, out_dtype)
        _fallback_schedule(cfg, wkl)
    ic_bn, oc_bn = cfg["tile_ic"].size[-1], cfg["tile_oc"].size[-1]
    data_vec = te.compute((n, in_channel // ic_bn, ih, iw, ic_bn),
                          lambda bs, c, h, w, vc: data[bs, c * ic_bn + vc, h, w], name="data_vec")
    kernel_vec = te.compute((num_filter // oc_bn, in_channel // ic_bn, kh, kw, ic_bn, oc_bn),
                            lambda occ, icc, k_h, k_w, icb, ocb: kernel[occ * oc_bn + ocb, icc * ic_bn + icb, k_h, k_w],
                            name="kernel_vec")
    return conv2d_NCHWc(data_vec, kernel_vec, strides, padding, dilation, layout, out_layout, out_dtype)

@autotvm.register_topi_schedule("conv2d_NCHWc.x86")
def x86_schedule_conv2d_NCHWc(cfg, outs):
    s = te.create_schedule([x.op for x in outs])
    def _callback(op):
        if "conv2d_NCHWc" in op.tag:
            conv_out = op.output(0)
            _schedule_conv_NCHWc(s, cfg, conv_out.op.input_tensors[0], conv_out.op.input_tensors[1], conv_out, outs[0])
    traverse_inline(s, outs[0].op, _callback)
    return s

data = te.placeholder((1, 64, 14, 14), name="data")
kernel = te.placeholder((64, 64, 3, 3), name="kernel")
with tvm.target.Target("llvm"):
    out = unpack_NCHWc_to_nchw(x86_conv2d_NCHWc(data, kernel, (1, 1), (1, 1), (1, 1), "NCHW", "NCHW", "float32"), "float32")
    s = x86_schedule_conv2d_NCHWc([out])
""", "[data, kernel, out]")),
    "cuda_conv1d_ncw_autotvm": (["nn/pad.py", "nn/utils.py", "nn/conv1d.py", "cuda/conv1d.py"], driver("""
x = te.placeholder((1, 64, 256), name="x")
w = te.placeholder((64, 64, 3), name="w")
with tvm.target.Target("cuda"):
    out = conv1d_ncw(x, w, 1, 1, 1)
    s = schedule_conv1d_ncw([out])
""", "[x, w, out]")),
    "cuda_conv1d_nwc_autotvm": (["nn/pad.py", "nn/utils.py", "nn/conv1d.py", "cuda/conv1d.py"], driver("""
x = te.placeholder((1, 256, 64), name="x")
w = te.placeholder((3, 64, 64), name="w")
with tvm.target.Target("cuda"):
    out = conv1d_nwc(x, w, 1, 1, 1)
    s = schedule_conv1d_nwc([out])
""", "[x, w, out]")),
    "cuda_group_conv2d_nchw_autotvm": (CONV2D + ["cuda/injective.py", "cuda/group_conv2d_nchw.py"], driver("""
data = te.placeholder((1, 64, 14, 14), name="data")
kernel = te.placeholder((64, 8, 3, 3), name="kernel")
with tvm.target.Target("cuda"):
    out = group_conv2d_nchw(data, kernel, 1, 1, 1, 8, "float32")
    s = schedule_group_conv2d_nchw([out])
""", "[data, kernel, out]")),
    "cuda_conv3d_direct_autotvm": (["nn/pad.py", "nn/utils.py", "nn/conv3d.py", "cuda/conv3d_direct.py", "cuda/conv3d.py"], driver("""
x = te.placeholder((1, 16, 4, 14, 14), name="x")
w = te.placeholder((16, 16, 3, 3, 3), name="w")
with tvm.target.Target("cuda"):
    out = conv3d_ncdhw(x, w, 1, 1, 1, 1)
    s = schedule_conv3d_ncdhw([out])
""", "[x, w, out]")),
    "gpu_dense_large_batch": (["nn/dense.py", "gpu/dense.py"], driver("""
data = te.placeholder((32, 256), name="data")
weight = te.placeholder((256, 256), name="weight")
with tvm.target.Target("cuda"):
    out = dense_large_batch(data, weight, None, "float32")
    s = schedule_dense_large_batch([out])
""", "[data, weight, out]")),
    "cuda_adaptive_pool": (["nn/pooling.py", "cuda/injective.py", "cuda/reduction.py", "cuda/pooling.py"], driver("""
x = te.placeholder((1, 2048, 7, 7), name="x")
out = adaptive_pool(x, (1, 1), "avg", layout="NCHW")
with tvm.target.Target("cuda"):
    s = schedule_adaptive_pool([out])
""", "[x, out]")),
    "cuda_conv1d_transpose_ncw": (["nn/pad.py", "nn/utils.py", "nn/dilate.py", "nn/conv1d_transpose.py", "cuda/conv1d_transpose_ncw.py"], driver("""
x = te.placeholder((1, 32, 64), name="x")
w = te.placeholder((32, 16, 4), name="w")
with tvm.target.Target("cuda"):
    out = conv1d_transpose_ncw(x, w, 2, 1, "float32", 0)
    s = schedule_conv1d_transpose_ncw([out])
""", "[x, w, out]")),
    "x86_depthwise_conv2d_nchw": (CONV2D + ["nn/dilate.py", "nn/depthwise_conv2d.py", "x86/depthwise_conv2d.py"], driver("""
data = te.placeholder((1, 32, 112, 112), name="data")
kernel = te.placeholder((32, 1, 3, 3), name="kernel")
with tvm.target.Target("llvm"):
    out = depthwise_conv2d_nchw(data, kernel, (1, 1), (1, 1), (1, 1), "float32")
    s = schedule_depthwise_conv2d_nchw([out])
""", "[data, kernel, out]")),
    "cuda_softmax_bert": (["nn/softmax.py", "cuda/injective.py", "cuda/softmax.py"], driver("""
x = te.placeholder((12, 128, 128), name="x")
out = softmax(x, axis=-1)
with tvm.target.Target("cuda"):
    s = schedule_softmax([out])
""", "[x, out]")),
    "cuda_log_softmax": (["nn/softmax.py", "cuda/injective.py", "cuda/softmax.py"], driver("""
x = te.placeholder((32, 1000), name="x")
out = log_softmax(x)
with tvm.target.Target("cuda"):
    s = schedule_softmax([out])
""", "[x, out]")),
    "cuda_conv2d_hwcn_autotvm": (["nn/pad.py", "nn/utils.py", "cuda/conv2d_hwcn.py"], driver("""
data = te.placeholder((14, 14, 64, 8), name="data")
kernel = te.placeholder((3, 3, 64, 64), name="kernel")
with tvm.target.Target("cuda"):
    out = conv2d_hwcn(data, kernel, 1, 1, 1)
    s = schedule_conv2d_hwcn([out])
""", "[data, kernel, out]")),
    "cuda_conv3d_transpose_ncdhw": (["nn/pad.py", "nn/utils.py", "nn/dilate.py", "nn/conv3d_transpose.py", "cuda/conv3d_direct.py", "cuda/conv3d_transpose_ncdhw.py"], driver("""
x = te.placeholder((1, 16, 4, 8, 8), name="x")
w = te.placeholder((16, 8, 3, 3, 3), name="w")
with tvm.target.Target("cuda"):
    out = conv3d_transpose_ncdhw(x, w, (1, 1, 1), (1, 1, 1), "float32", (0, 0, 0))
    s = schedule_conv3d_transpose_ncdhw([out])
""", "[x, w, out]")),
    "cuda_correlation_flownet": (["nn/pad.py", "nn/utils.py", "nn/correlation.py", "cuda/correlation.py"], driver("""
a = te.placeholder((1, 32, 24, 24), name="a")
b = te.placeholder((1, 32, 24, 24), name="b")
with tvm.target.Target("cuda"):
    out = correlation_nchw(a, b, 1, 4, 1, 2, (4, 4), True)
    s = schedule_correlation_nchw([out])
""", "[a, b, out]")),
    "cuda_deformable_conv2d": (["nn/pad.py", "nn/utils.py", "nn/deformable_conv2d.py", "cuda/deformable_conv2d.py"], driver("""
data = te.placeholder((1, 16, 14, 14), name="data")
offset = te.placeholder((1, 18, 14, 14), name="offset")
kernel = te.placeholder((16, 16, 3, 3), name="kernel")
with tvm.target.Target("cuda"):
    out = deformable_conv2d_nchw(data, offset, kernel, 1, 1, 1, 1, 1, "float32")
    s = schedule_deformable_conv2d_nchw([out])
""", "[data, offset, kernel, out]")),
    "x86_conv3d_transpose": (["nn/pad.py", "nn/utils.py", "nn/dilate.py", "nn/conv3d_transpose.py", "x86/conv3d.py", "x86/conv3d_transpose.py"], driver("""
x = te.placeholder((1, 16, 4, 8, 8), name="x")
w = te.placeholder((16, 8, 3, 3, 3), name="w")
with tvm.target.Target("llvm"):
    out = conv3d_transpose_ncdhw(x, w, (1, 1, 1), (1, 1, 1), "float32", (0, 0, 0))
    s = schedule_conv3d_transpose_ncdhw([out])
""", "[x, w, out]")),
    "x86_bitserial_dense": (["nn/bitserial_util.py", "x86/bitserial_dense.py"], driver("""
data = te.placeholder((4, 64), name="data", dtype="uint8")
weight = te.placeholder((32, 64), name="weight", dtype="uint8")
with tvm.target.Target("llvm"):
    out = bitserial_dense(data, weight, 1, 1, "uint32", "int16", True)
    s = schedule_bitserial_dense([out])
""", "[data, weight, out]")),
    "x86_bitserial_conv2d_nchw": (["nn/pad.py", "nn/utils.py", "nn/bitserial_util.py", "x86/bitserial_conv2d.py"], driver("""
data = te.placeholder((1, 64, 14, 14), name="data", dtype="uint8")
kernel = te.placeholder((32, 64, 3, 3), name="kernel", dtype="uint8")
with tvm.target.Target("llvm"):
    out = bitserial_conv2d_nchw(data, kernel, 1, 1, 1, 1, "uint32", "int16", True)
    s = schedule_bitserial_conv2d_nchw([out])
""", "[data, kernel, out]")),
    "x86_conv2d_nchw_1x1_resnet": (CONV2D + ["x86/conv2d.py"], driver("""
data = te.placeholder((1, 256, 28, 28), name="data")
kernel = te.placeholder((64, 256, 1, 1), name="kernel")
with tvm.target.Target("llvm -mcpu=skylake-avx512"):
    out = conv2d_nchw(data, kernel, 1, 0, 1, "float32")
    s = schedule_conv2d_nchw([out])
""", "[data, kernel, out]")),
    "x86_conv2d_NCHWc_mobilenet": (CONV2D + ["x86/conv2d.py"], driver("""
data = te.placeholder((1, 32, 28, 28), name="data")
kernel = te.placeholder((64, 32, 3, 3), name="kernel")
with tvm.target.Target("llvm -mcpu=core-avx2"):
    out = conv2d_NCHWc(data, kernel, (2, 2), (1, 1), (1, 1), "NCHW", "NCHW", "float32")
    s = schedule_conv2d_NCHWc([out])
""", "[data, kernel, out]")),
    "x86_conv2d_transpose_nchw": (CONV2D + ["nn/dilate.py", "nn/conv2d_transpose.py", "x86/conv2d.py", "x86/conv2d_transpose.py"], driver("""
x = te.placeholder((1, 32, 14, 14), name="x")
w = te.placeholder((32, 16, 4, 4), name="w")
with tvm.target.Target("llvm"):
    out = conv2d_transpose_nchw(x, w, (2, 2), (1, 1), "float32", (0, 0))
    s = schedule_conv2d_transpose_nchw([out])
""", "[x, w, out]")),
    "gpu_conv2d_nhwc_direct_batch8": (CONV2D + ["gpu/conv2d_nhwc.py", "gpu/conv2d.py"], driver("""
data = te.placeholder((8, 7, 7, 64), name="data")
kernel = te.placeholder((3, 3, 64, 64), name="kernel")
with tvm.target.Target("cuda"):
    out = conv2d_nhwc(data, kernel, 1, 1, 1, "float32")
    s = schedule_conv2d_nhwc([out])
""", "[data, kernel, out]")),
    # Extern operators whose bodies loop while a condition holds (binary
    # searches), detection post-processing, and schedules of further modules.
    "get_valid_counts_ssd": (["sort.py", "scan.py", "vision/nms_util.py", "vision/nms.py"], driver("""
data = te.placeholder((1, 100, 6), name="data")
valid_count, out, out_indices = get_valid_counts(data, score_threshold=0.3, id_index=0, score_index=1)
s = te.create_schedule([valid_count.op, out.op, out_indices.op])
""", "[data, valid_count, out, out_indices]")),
    "non_max_suppression_ssd": (["sort.py", "scan.py", "vision/nms_util.py", "vision/nms.py"], driver("""
data = te.placeholder((1, 64, 6), name="data")
valid = te.placeholder((1,), name="valid", dtype="int32")
idx = te.placeholder((1, 64), name="idx", dtype="int32")
out = non_max_suppression(data, valid, idx, max_output_size=-1, iou_threshold=0.5, force_suppress=False, top_k=-1, coord_start=2, score_index=1, id_index=0, return_indices=False, invalid_to_bottom=False)
s = te.create_schedule(out.op)
""", "[data, valid, idx, out]")),
    "all_class_nms_detection": (["sort.py", "scan.py", "transform.py", "vision/nms_util.py", "vision/nms.py"], driver("""
boxes = te.placeholder((1, 32, 4), name="boxes")
scores = te.placeholder((1, 3, 32), name="scores")
out = all_class_non_max_suppression(boxes, scores, 8, 0.5, 0.1)
s = te.create_schedule([t.op for t in out])
""", "[boxes, scores] + list(out)")),
    "x86_schedule_softmax_bert": (["nn/softmax.py", "x86/injective.py", "x86/nn.py"], driver("""
x = te.placeholder((8, 12, 128, 128), name="x")
out = softmax(x, axis=-1)
s = schedule_softmax([out])
""", "[x, out]")),
    "x86_concatenate_inception": (["x86/concat.py"], driver("""
a = te.placeholder((1, 64, 28, 28), name="a")
b = te.placeholder((1, 32, 28, 28), name="b")
out = concatenate([a, b], axis=1)
s = te.create_schedule(out.op)
""", "[a, b, out]")),
    "cuda_schedule_lrn_alexnet": (["nn/local_response_norm.py", "cuda/nn.py"], driver("""
x = te.placeholder((1, 96, 27, 27), name="x")
with tvm.target.Target("cuda"):
    out = lrn(x, 5, 1, 0.0001, 0.75, 2.0)
    s = schedule_lrn([out])
""", "[x, out]")),
    "searchsorted_rows": (["searchsorted.py"], driver("""
seq = te.placeholder((4, 64), name="seq")
vals = te.placeholder((4, 16), name="vals")
out = searchsorted(seq, vals, right=False, out_dtype="int32")
s = te.create_schedule(out.op)
""", "[seq, vals, out]")),
    "scatter_elements_add": (["scatter_elements.py"], driver("""
data = te.placeholder((8, 16), name="data")
idx = te.placeholder((8, 4), name="idx", dtype="int32")
upd = te.placeholder((8, 4), name="upd")
out = scatter_elements(data, idx, upd, axis=1, reduction="add")
s = te.create_schedule(out.op)
""", "[data, idx, upd, out]")),
    "stft_audio_frames": (["signal.py"], driver("""
x = te.placeholder((1, 256), name="x")
win = te.placeholder((64,), name="win")
out = stft(x, 64, 16, 64, win, True, True, (1, 33, 13, 2))
s = te.create_schedule(out.op)
""", "[x, win, out]")),
    "generic_schedule_depthwise_nhwc_mobilenet": (["nn/pad.py", "nn/utils.py", "nn/dilate.py", "nn/depthwise_conv2d.py", "generic/conv2d.py"], driver("""
data = te.placeholder((1, 56, 56, 128), name="data")
kernel = te.placeholder((3, 3, 128, 1), name="kernel")
out = depthwise_conv2d_nhwc(data, kernel, 1, 1, 1)
s = schedule_depthwise_conv2d_nhwc([out])
""", "[data, kernel, out]")),
    "unique_with_counts": (["sort.py", "scan.py", "unique.py"], driver("""
x = te.placeholder((64,), name="x", dtype="int32")
out = unique(x, is_sorted=True, return_counts=True)
s = te.create_schedule([t.op for t in out])
""", "[x] + list(out)")),
    "multibox_prior_ssd": (["sort.py", "scan.py", "vision/nms_util.py", "vision/nms.py", "vision/ssd/multibox.py"], driver("""
data = te.placeholder((1, 3, 19, 19), name="data")
out = multibox_prior(data, sizes=(0.2, 0.272), ratios=(1, 2, 0.5), steps=(-1, -1), offsets=(0.5, 0.5), clip=True)
s = te.create_schedule(out.op)
""", "[data, out]")),
    "proposal_faster_rcnn": (["sort.py", "vision/rcnn/proposal.py"], driver("""
cls_prob = te.placeholder((1, 6, 8, 8), name="cls_prob")
bbox_pred = te.placeholder((1, 12, 8, 8), name="bbox_pred")
im_info = te.placeholder((1, 3), name="im_info")
out = proposal(cls_prob, bbox_pred, im_info, [1.0, 2.0, 4.0], [0.5], 16, 0.7, 60, 10, 1, False)
s = te.create_schedule(out.op)
""", "[cls_prob, bbox_pred, im_info, out]")),
    "roi_align_mask_rcnn": (["vision/rcnn/roi_align.py"], driver("""
data = te.placeholder((1, 256, 14, 14), name="data")
rois = te.placeholder((8, 5), name="rois")
out = roi_align_nchw(data, rois, (7, 7), 1.0 / 16, 0, 2)
s = te.create_schedule(out.op)
""", "[data, rois, out]")),
}


class Tvm:
    """TOPI's sources at one revision of a git directory."""

    def __init__(self, git_dir, rev):
        self.git_dir, self.rev = git_dir, rev

    def topi(self, path):
        return subprocess.check_output(
            ["git", "-C", self.git_dir, "show", f"{self.rev}:python/tvm/topi/{path}"], text=True
        )


def top_level_names(tree):
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def absolute_module(path, node):
    package = ["tvm", "topi"] + path.split("/")[:-1]
    if node.level > 1:
        package = package[: len(package) - (node.level - 1)]
    return ".".join(package + ([node.module] if node.module else []))


def program(tvm, modules, driver_text):
    """The modules concatenated with their imports rewritten, then the
    driver."""
    parts, defined = [], set()
    for path in modules:
        text = tvm.topi(path)
        tree = ast.parse(text)
        replaced = {}
        for node in tree.body:
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.module == "__future__":
                replaced[node.lineno] = (node.end_lineno, "")
            elif node.level > 0:
                kept = [a for a in node.names if a.name not in defined]
                # A name defined earlier under another name: an assignment.
                aliases = [f"{a.asname} = {a.name}" for a in node.names
                           if a.name in defined and a.asname and a.asname != a.name]
                names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in kept)
                lines = ([f"from {absolute_module(path, node)} import {names}"] if kept else []) + aliases
                replaced[node.lineno] = (node.end_lineno, "\n".join(lines))
        lines, out, i = text.split("\n"), [], 1
        while i <= len(lines):
            if i in replaced:
                end, line = replaced[i]
                if line:
                    out.append(line)
                i = end + 1
            else:
                out.append(lines[i - 1])
                i += 1
        parts.append(f"# ---- tvm/topi/{path}\n" + "\n".join(out))
        defined |= top_level_names(tree)
    return "\n".join(parts) + "\n# ---- driver\n" + driver_text


def verdict(code, out, err):
    """pass, refused, wrong or crash, with the line that says why."""
    if code == 0:
        return "pass", ""
    last = next((l for l in reversed(err.splitlines()) if l.strip()), "")
    first = next((l for l in err.splitlines() if "rror" in l), last)
    if code in (101, 124) or code > 128 or "panicked at" in err or "PanicException" in err:
        return "crash", (first or f"exit code {code}")[:160]
    if code == 1 and "run (seed" in out:
        return "wrong", "--run found a mismatch"
    return "refused", (first if code == 2 else last)[:160]


def run(cmd):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        return verdict(r.returncode, r.stdout, r.stderr)
    except subprocess.TimeoutExpired:
        return "crash", "timed out after 120 s"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tvm-git", default="/work/.mirror/apache+tvm/repo")
    p.add_argument("--rev", default="refs/tags/v0.19.0^{}")
    p.add_argument("--bin", default=os.path.join(ROOT, "target/debug/rangefinder"))
    p.add_argument("--python", default=os.path.join(ROOT, "target/python-venv/bin/python"))
    p.add_argument("--out")
    p.add_argument("--only", nargs="*")
    o = p.parse_args()
    if not os.path.isdir(o.tvm_git):
        print(f"note: no TVM git directory at {o.tvm_git}; nothing measured")
        return 0
    tvm = Tvm(o.tvm_git, o.rev)
    out_dir = o.out or tempfile.mkdtemp(prefix="topi_programs_")
    os.makedirs(out_dir, exist_ok=True)
    counts = {"te": {}, "cpython": {}}
    bad = False
    for name, (modules, driver_text) in PROGRAMS.items():
        if o.only and name not in o.only:
            continue
        path = os.path.join(out_dir, name + ".py")
        with open(path, "w") as f:
            f.write(program(tvm, modules, driver_text))
        te = run([o.bin, "te", path, "--run"])
        py = run([o.python, "-m", "rangefinder.tvm", path, "--run"])
        for key, (v, _) in (("te", te), ("cpython", py)):
            counts[key][v] = counts[key].get(v, 0) + 1
            bad |= v in ("wrong", "crash")
        print(f"{name:34} te={te[0]:8} cpython={py[0]:8} {te[1] or py[1]}")
    n = sum(counts["te"].values())
    for key in ("te", "cpython"):
        c = counts[key]
        print(f"{key}: {c.get('pass', 0)}/{n} pass, {c.get('refused', 0)} refused, "
              f"{c.get('wrong', 0)} wrong, {c.get('crash', 0)} crashes")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
