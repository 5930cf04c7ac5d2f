# Softmax of BERT attention scores (scaled to 2 heads x 16 tokens, rows of
# 16) built and checked against numpy's softmax, row sums checked to be 1.
import numpy as np
import tvm
import tvm.testing
from tvm import te

rows, cols = 32, 16
x = te.placeholder((rows, cols), name="x")
k1 = te.reduce_axis((0, cols), name="k")
max_elem = te.compute((rows,), lambda i: te.max(x[i, k1], axis=k1), name="T_softmax_maxelem")
k2 = te.reduce_axis((0, cols), name="k")
expsum = te.compute(
    (rows,), lambda i: te.sum(te.exp(x[i, k2] - max_elem[i]), axis=k2), name="T_softmax_expsum"
)
out = te.compute(
    (rows, cols), lambda i, j: te.exp(x[i, j] - max_elem[i]) / expsum[i], name="T_softmax_norm"
)
s = te.create_schedule(out.op)
s[max_elem].compute_at(s[out], out.op.axis[0])
s[expsum].compute_at(s[out], out.op.axis[0])

x_np = np.random.uniform(-4, 4, size=(rows, cols)).astype("float32")
e = np.exp(x_np - x_np.max(axis=1, keepdims=True))
ref = e / e.sum(axis=1, keepdims=True)

dev = tvm.cpu()
f = tvm.build(s, [x, out], "llvm")
y = tvm.nd.array(np.zeros((rows, cols), "float32"), dev)
f(tvm.nd.array(x_np, dev), y)
tvm.testing.assert_allclose(y.numpy(), ref, rtol=1e-5)
tvm.testing.assert_allclose(y.numpy().sum(axis=1), np.ones(rows), rtol=1e-5)
print(tvm.lower(s, [x, out], simple_mode=True))
