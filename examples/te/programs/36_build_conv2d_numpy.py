# A padded NCHW convolution built and checked against a numpy reference,
# as TVM's topi tests check conv2d_nchw: ResNet-50 res3a_branch2b
# (3x3, pad 1) scaled to 1x4x10x10 with 4 filters.
import numpy as np
import tvm
import tvm.testing
from tvm import te

batch, in_c, size, out_c, ksize, pad = 1, 4, 10, 4, 3, 1
data = te.placeholder((batch, in_c, size, size), name="data")
kernel = te.placeholder((out_c, in_c, ksize, ksize), name="kernel")
padded = te.compute(
    (batch, in_c, size + 2 * pad, size + 2 * pad),
    lambda n, c, y, x: tvm.tir.if_then_else(
        tvm.tir.all(y >= pad, y < size + pad, x >= pad, x < size + pad),
        data[n, c, y - pad, x - pad],
        tvm.tir.const(0.0, "float32"),
    ),
    name="pad_temp",
)
rc = te.reduce_axis((0, in_c), name="rc")
ry = te.reduce_axis((0, ksize), name="ry")
rx = te.reduce_axis((0, ksize), name="rx")
conv = te.compute(
    (batch, out_c, size, size),
    lambda n, f, y, x: te.sum(padded[n, rc, y + ry, x + rx] * kernel[f, rc, ry, rx], axis=[rc, ry, rx]),
    name="conv2d_nchw",
)
s = te.create_schedule(conv.op)
s[padded].compute_inline()
n, f, y, x = s[conv].op.axis
s[conv].reorder(n, y, f, x)


def conv2d_reference(a, w):
    a_pad = np.pad(a, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    out = np.zeros((batch, out_c, size, size), dtype=a.dtype)
    for i in range(ksize):
        for j in range(ksize):
            window = a_pad[:, :, i : i + size, j : j + size]
            out += np.einsum("nchw,fc->nfhw", window, w[:, :, i, j])
    return out


a_np = np.random.uniform(-1, 1, size=(batch, in_c, size, size)).astype("float32")
w_np = np.random.uniform(-1, 1, size=(out_c, in_c, ksize, ksize)).astype("float32")
dev = tvm.cpu(0)
func = tvm.build(s, [data, kernel, conv], "llvm")
a = tvm.nd.array(a_np, dev)
w = tvm.nd.array(w_np, dev)
c = tvm.nd.array(np.zeros((batch, out_c, size, size), dtype="float32"), dev)
func(a, w, c)
tvm.testing.assert_allclose(c.numpy(), conv2d_reference(a_np, w_np), rtol=1e-4, atol=1e-5)
print(tvm.lower(s, [data, kernel, conv], simple_mode=True))
