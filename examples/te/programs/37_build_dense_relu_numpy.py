# Dense + bias + ReLU (BERT-base intermediate layer, scaled to 8 tokens
# and 32 -> 16 features) built and compared with numpy, with the
# reference computed in float64.
import numpy as np
import tvm
import tvm.testing
from tvm import te

tokens, in_dim, out_dim = 8, 32, 16
data = te.placeholder((tokens, in_dim), name="data")
weight = te.placeholder((out_dim, in_dim), name="weight")
bias = te.placeholder((out_dim,), name="bias")
k = te.reduce_axis((0, in_dim), name="k")
matmul = te.compute(
    (tokens, out_dim), lambda i, j: te.sum(data[i, k] * weight[j, k], axis=k), name="T_matmul_NT"
)
out = te.compute(
    (tokens, out_dim),
    lambda i, j: te.max(matmul[i, j] + bias[j], tvm.tir.const(0.0, "float32")),
    name="T_relu",
)
s = te.create_schedule(out.op)
i, j = s[out].op.axis
s[matmul].compute_at(s[out], i)

dev = tvm.cpu(0)
rng = np.random.default_rng(0)
d_np = rng.uniform(-1, 1, (tokens, in_dim)).astype("float32")
w_np = rng.uniform(-1, 1, (out_dim, in_dim)).astype("float32")
b_np = rng.uniform(-1, 1, (out_dim,)).astype("float32")
expected = np.maximum(d_np.astype("float64") @ w_np.T.astype("float64") + b_np, 0.0)

f = tvm.build(s, [data, weight, bias, out], target="llvm")
o = tvm.nd.empty((tokens, out_dim), "float32", dev)
f(tvm.nd.array(d_np, dev), tvm.nd.array(w_np, dev), tvm.nd.array(b_np, dev), o)
tvm.testing.assert_allclose(o.numpy(), expected, rtol=1e-5, atol=1e-5)
print(tvm.lower(s, [data, weight, bias, out], simple_mode=True))
