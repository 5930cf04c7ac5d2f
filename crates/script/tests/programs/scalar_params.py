# A scalar float parameter, as TVM's "External Tensor Functions" tutorial
# uses one: `bias = te.var("bias", dtype="float32")` is added to every
# element of a matrix product computed by the runtime library, and the
# built function takes it as a number after the arrays. The module is
# saved and loaded back, a packed function is passed it, and the report's
# run draws a value for it. Run by
# both front ends (crates/script/tests/scalar_params.rs,
# python/tests/test_topi_modules.py).
import tvm
import tvm.testing
from tvm import te
from tvm.contrib import cblas, utils

n, l, m = 3, 2, 4
bias = te.var("bias", dtype="float32")
A = te.placeholder((n, l), name="A")
B = te.placeholder((l, m), name="B")
C = cblas.matmul(A, B)
D = te.compute(C.shape, lambda i, j: C[i, j] + bias, name="D")
s = te.create_schedule(D.op)
print(bias, bias.dtype)
print(tvm.lower(s, [A, B, D, bias], simple_mode=True))
f = tvm.build(s, [A, B, D, bias], "llvm")
a = tvm.nd.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
b = tvm.nd.array([[1.0, 0.0, 2.0, 1.0], [0.0, 1.0, 1.0, 3.0]])
d = tvm.nd.array([[0.0] * m] * n)
f(a, b, d, 10.0)
print(d)

# An element-wise scale by a parameter, saved and run again after loading.
X = te.placeholder((4,), name="X")
scale = te.var("scale", dtype="float32")
Y = te.compute(X.shape, lambda i: X[i] * scale - 1, name="Y")
sy = te.create_schedule(Y.op)
g = tvm.build(sy, [X, Y, scale], "llvm")
temp = utils.tempdir()
g.export_library(temp.relpath("scale.so"))
loaded = tvm.runtime.load_module(temp.relpath("scale.so"))
y = tvm.nd.array([0.0] * 4)
loaded(tvm.nd.array([1.0, 2.0, 3.0, 4.0]), y, 0.5)
print(y)

# The parameter passed by value to a registered packed function.
@tvm.register_func("example.shift_by")
def shift_by(x, y, b):
    tvm.nd.array([v + b for v in x.numpy()]).copyto(y)


Z = te.extern(
    X.shape,
    [X],
    lambda ins, outs: tvm.tir.call_packed("example.shift_by", ins[0], outs[0], scale),
    name="Z",
)
sz = te.create_schedule(Z.op)
h = tvm.build(sz, [X, Z, scale], "llvm")
z = tvm.nd.array([0.0] * 4)
h(tvm.nd.array([1.0, 2.0, 3.0, 4.0]), z, 0.25)
print(z)
