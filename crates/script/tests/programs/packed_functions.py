# Packed functions as TVM programs call them: a function registered with
# `tvm.register_func` runs when the built program's extern stage calls it
# with `tvm.tir.call_packed` (arrays in, values written into the output),
# and the runtime library's `tvm.contrib.cblas.matmul`, called by name or
# through `cblas.matmul(A, B)`, multiplies. Run by both front ends
# (crates/script/tests/packed_functions.rs, python/tests/test_topi_modules.py).
import tvm
import tvm.testing
from tvm import te
from tvm.contrib import cblas


@tvm.register_func("example.scale_by")
def scale_by(tensor, scalar, out):
    tvm.nd.array([v * scalar.numpy() for v in tensor.numpy()]).copyto(out)


A = te.placeholder((4,), name="A")
B = te.placeholder((), name="B")
C = te.extern(
    A.shape,
    [A, B],
    lambda ins, outs: tvm.tir.call_packed("example.scale_by", ins[0], ins[1], outs[0]),
    name="C",
)
s = te.create_schedule(C.op)
f = tvm.build(s, [A, B, C], "llvm")
c = tvm.nd.array([0.0] * 4)
f(tvm.nd.array([1.0, 2.0, 3.0, 4.0]), tvm.nd.array(2.5), c)
print(c)

if not tvm.get_global_func("tvm.contrib.cblas.matmul", allow_missing=True):
    raise Exception("Not compiled with cblas support")
X = te.placeholder((3, 4), name="X")
W = te.placeholder((4, 2), name="W")
Y = te.extern(
    (3, 2),
    [X, W],
    lambda ins, outs: tvm.tir.call_packed(
        "tvm.contrib.cblas.matmul", ins[0], ins[1], outs[0], False, False
    ),
    name="Y",
)
D = te.compute(Y.shape, lambda i, j: Y[i, j] + 10.0, name="D")
s = te.create_schedule(D.op)
f = tvm.build(s, [X, W, D], "llvm")
x = tvm.nd.array([[1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 0.0, 1.0], [2.0, 2.0, 2.0, 2.0]])
w = tvm.nd.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, -1.0]])
d = tvm.nd.array([[0.0, 0.0]] * 3)
f(x, w, d)
print(d)

# The library's stage, transposed: (W^T X^T)^T = X W.
Yt = cblas.matmul(W, X, transa=True, transb=True)
s = te.create_schedule(Yt.op)
ft = tvm.build(s, [W, X, Yt], "llvm")
yt = tvm.nd.array([[0.0] * 3] * 2)
ft(w, x, yt)
print(yt)
print(tvm.lower(s, [W, X, Yt], simple_mode=True))
