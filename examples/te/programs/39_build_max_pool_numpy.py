# 2x2 max pooling with stride 2 (VGG-16's pool layers, scaled to
# 1x4x8x8) built and compared with a numpy reshape-and-max reference.
import numpy as np
import tvm
import tvm.testing
from tvm import te

n, c, h, w = 1, 4, 8, 8
data = te.placeholder((n, c, h, w), name="data")
ry = te.reduce_axis((0, 2), name="rv0")
rx = te.reduce_axis((0, 2), name="rv1")
pool = te.compute(
    (n, c, h // 2, w // 2),
    lambda b, ch, y, x: te.max(data[b, ch, y * 2 + ry, x * 2 + rx], axis=[ry, rx]),
    name="pool_max",
)
s = te.create_schedule(pool.op)
fused = s[pool].fuse(*s[pool].op.axis[:2])

a_np = np.random.uniform(size=(n, c, h, w)).astype("float32")
ref = a_np.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))
dev = tvm.cpu(0)
f = tvm.build(s, [data, pool], "llvm")
out = tvm.nd.array(np.zeros(ref.shape, dtype="float32"), dev)
f(tvm.nd.array(a_np, dev), out)
tvm.testing.assert_allclose(out.numpy(), ref)
print(tvm.lower(s, [data, pool], simple_mode=True))
