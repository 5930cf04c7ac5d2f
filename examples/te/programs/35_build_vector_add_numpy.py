# The vector addition of TVM's getting-started tutorial, built and run:
# tvm.build, tvm.nd.array on a CPU device, and a check against numpy.
import numpy as np
import tvm
import tvm.testing
from tvm import te

n = 1024
A = te.placeholder((n,), name="A")
B = te.placeholder((n,), name="B")
C = te.compute(A.shape, lambda i: A[i] + B[i], name="C")
s = te.create_schedule(C.op)
outer, inner = s[C].split(C.op.axis[0], factor=64)

fadd = tvm.build(s, [A, B, C], target="llvm", name="myadd")
dev = tvm.cpu(0)
a = tvm.nd.array(np.random.uniform(size=n).astype(A.dtype), dev)
b = tvm.nd.array(np.random.uniform(size=n).astype(B.dtype), dev)
c = tvm.nd.array(np.zeros(n, dtype=C.dtype), dev)
fadd(a, b, c)
tvm.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())
print(tvm.lower(s, [A, B, C], simple_mode=True))
