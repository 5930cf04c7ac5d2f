# A dense layer whose inner tile is replaced by a hand-written GEMV kernel
# with tensorize, as in TVM's tensorize tutorial: the intrinsic is declared
# by its own compute (16 outputs over a 64-long reduction) and a call to
# an external function. BERT-base dense 128 x 768 -> 768; the run uses
# 4 x 64 -> 32.
import tvm
from tvm import te


def intrin_gemv(m, l):
    a = te.placeholder((l,), name="a")
    b = te.placeholder((m, l), name="b")
    k = te.reduce_axis((0, l), name="k")
    c = te.compute((m,), lambda i: te.sum(a[k] * b[i, k], axis=k), name="c")
    Ab = tvm.tir.decl_buffer(a.shape, a.dtype, name="A", offset_factor=1, strides=[1])
    Bb = tvm.tir.decl_buffer(
        b.shape, b.dtype, name="B", offset_factor=1, strides=[te.var("s1"), 1]
    )
    Cb = tvm.tir.decl_buffer(c.shape, c.dtype, name="C", offset_factor=1, strides=[1])

    def intrin_func(ins, outs):
        ib = tvm.tir.ir_builder.create()
        aa, bb = ins
        cc = outs[0]
        ib.emit(
            tvm.tir.call_extern(
                "int32",
                "gemv_update",
                cc.access_ptr("w"),
                aa.access_ptr("r"),
                bb.access_ptr("r"),
                m,
                l,
                bb.strides[0],
            )
        )
        return ib.get()

    return te.decl_tensor_intrin(c.op, intrin_func, binds={a: Ab, b: Bb, c: Cb})


for tokens, in_dim, out_dim in [(128, 768, 768), (4, 64, 32)]:
    A = te.placeholder((tokens, in_dim), name="A")
    W = te.placeholder((out_dim, in_dim), name="W")
    k = te.reduce_axis((0, in_dim), name="k")
    C = te.compute((tokens, out_dim), lambda i, j: te.sum(A[i, k] * W[j, k], axis=k), name="C")
    s = te.create_schedule(C.op)
    x, y = C.op.axis
    (z,) = C.op.reduce_axis
    yo, yi = s[C].split(y, factor=16)
    s[C].reorder(x, yo, yi, z)
    s[C].tensorize(yi, intrin_gemv(16, in_dim))
    print(tvm.lower(s, [A, W, C], simple_mode=True))
