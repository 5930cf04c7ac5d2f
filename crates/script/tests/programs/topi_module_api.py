# What TOPI's modules use at their top and in their bodies, run by both
# front ends (crates/script/tests/topi_modules.rs and
# python/tests/test_topi_modules.py compare what it prints).
import tvm
from tvm import te
from tvm.contrib.pickle_memoize import memoize
from tvm.topi.generic.injective import schedule_injective_from_existing
from tvm.topi.x86.injective import schedule_injective_from_existing as x86_from_existing
from tvm.topi.utils import nchw_pack_layout, nchw_xc_layout


@memoize("topi.test.table", save_at_exit=False)
def table(n):
    return [i * i for i in range(n)]


print(table(4), table(4))
print(nchw_pack_layout("NCHW2n4c"), nchw_pack_layout("NCHW8c"))
print(nchw_xc_layout("NCHW8c"), nchw_xc_layout("NCHWc"), nchw_xc_layout("NHWC8c"))

# Constants fold as TVM folds them: a cast of an IntImm, float arithmetic,
# comparisons, integer division of two constants.
size = tvm.tir.const(14, "int32")
ratio = 28 / size.astype("float32")
print(ratio.value, bool(ratio > 1.5), (1 / (1e-5 * size + 1e-5)).value > ratio.value)
print(te.div(28, 14), tvm.tir.indexdiv(7, 2), tvm.tir.truncmod(-7, 2), tvm.tir.floormod(-7, 2))
i = te.var("i")
print(tvm.tir.add(i, 1), tvm.tir.subtract(i, 2), te.multiply(i, 3))

A = te.placeholder((4, 8, 32), name="A")
B = te.compute(A.shape, lambda i, j, k: A[i, j, k] * 2.0, name="B", tag="elemwise")
s = te.create_schedule(B.op)
print(s[B].is_output, s[A].is_output)
schedule_injective_from_existing(s, B)
print([iv.var.name for iv in s[B].leaf_iter_vars])
s = te.create_schedule(B.op)
x86_from_existing(s, B)
print([iv.var.name for iv in s[B].leaf_iter_vars])
with tvm.target.Target("llvm"):
    print(len(tvm.topi.generic.schedule_injective([B])[B].leaf_iter_vars))
    print(len(tvm.topi.generic.schedule_conv2d_nchw([B])[B].leaf_iter_vars))
    print(len(tvm.topi.generic.schedule_reduce([B])[B].leaf_iter_vars))
    print(len(tvm.topi.generic.schedule_pool([B], "NCHW")[B].leaf_iter_vars))
with tvm.target.Target("cuda"):
    try:
        tvm.topi.generic.schedule_dense([B])
    except RuntimeError as e:
        print("RuntimeError:", e)
try:
    tvm.topi.generic.schedule_injective([B])
except tvm.error.TVMError as e:
    print("TVMError:", e)

# An index met by a Python float is cast to float32 (TOPI's image
# coordinates); an integer expression met by a float element is too.
C = te.compute(
    (16,),
    lambda x: A[0, 0, te.floor((x + 0.5) * 0.5 - 0.5).astype("int32") % 32]
    * ((x + 0.5) * 0.5 - te.floor((x + 0.5) * 0.5).astype("int32")),
    name="C",
)
s = te.create_schedule(C.op)
print(tvm.lower(s, [A, C], simple_mode=True))


# `@tvm.target.generic_func`: implementations per target key, as TOPI
# registers its layout hooks.
@tvm.target.generic_func
def infer_layout(x):
    return "default", x


@infer_layout.register(["cpu", "arm_cpu"])
def _infer_layout_cpu(x):
    return "cpu", x


print(infer_layout(1))
with tvm.target.Target("llvm"):
    print(infer_layout(2))
with tvm.target.Target("cuda"):
    print(infer_layout(3))
try:
    infer_layout.register("cpu")(lambda x: x)
except ValueError as e:
    print("ValueError:", e)
print(tvm.topi.nn.get_pad_tuple(1, (3, 3)), tvm.topi.nn.get_pad_tuple("SAME", (4, 4)))
print(tvm.topi.nn.get_pad_tuple((1, 2), (3, 3)), tvm.topi.nn.get_pad_tuple("VALID", (3, 3)))
