# Saving a built module and loading it back, as TVM's "Get Started with
# Tensor Expression" tutorial does: `f.save` into a temporary directory,
# `cc.create_shared`, `tvm.runtime.load_module`, `f.export_library`. The
# loaded modules run as the built one does. Run by both front ends
# (crates/script/tests/module_files.rs, python/tests/test_topi_modules.py).
import tvm
import tvm.testing
from tvm import te
from tvm.contrib import cc, utils

n = te.var("n")
A = te.placeholder((n,), name="A")
B = te.placeholder((n,), name="B")
C = te.compute(A.shape, lambda i: A[i] * 2.0 + B[i], name="C")
s = te.create_schedule(C.op)
outer, inner = s[C].split(C.op.axis[0], factor=4)
s[C].parallel(outer)
fadd = tvm.build(s, [A, B, C, n], "llvm", name="myadd")

temp = utils.tempdir()
fadd.save(temp.relpath("myadd.o"))
cc.create_shared(temp.relpath("myadd.so"), [temp.relpath("myadd.o")])
print(temp.listdir())
print(fadd.imported_modules)

a = tvm.nd.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
b = tvm.nd.array([10.0, 20.0, 30.0, 40.0, 50.0, 60.0])
c = tvm.nd.array([0.0] * 6)
fadd(a, b, c, 6)

fadd1 = tvm.runtime.load_module(temp.relpath("myadd.so"))
c1 = tvm.nd.array([0.0] * 6)
fadd1(a, b, c1, 6)
tvm.testing.assert_allclose(c1.numpy(), c.numpy())
print(fadd1.entry_name, c1)

fadd.export_library(temp.relpath("myadd_pack.so"))
fadd2 = tvm.runtime.load_module(temp.relpath("myadd_pack.so"))
c2 = tvm.nd.array([0.0] * 6)
fadd2(a, b, c2, 6)
tvm.testing.assert_allclose(c2.numpy(), c.numpy())
print(sorted(temp.listdir()))
