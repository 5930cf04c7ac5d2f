"""TE programs as TensorIR functions (`te.create_prim_func`), compared with
the same functions written in TVMScript (`@T.prim_func`).

Run: rangefinder te examples/te/tensor_ir/prim_funcs.py
 or: python -m rangefinder.tvm examples/te/tensor_ir/prim_funcs.py
"""
import tvm
from tvm import te, tir
from tvm.script import tir as T


# A row max over a MobileNet-sized feature map (7 x 7 x 1024 as 49 x 1024).
def te_row_max():
    X = te.placeholder((49, 1024), name="X")
    r = te.reduce_axis((0, 1024), name="r")
    M = te.compute((49,), lambda p: te.max(X[p, r], axis=r), name="M")
    return [X, M]


@T.prim_func
def tir_row_max(x: T.handle, m: T.handle) -> None:
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    X = T.match_buffer(x, (49, 1024))
    M = T.match_buffer(m, (49,))
    for p, r in T.grid(49, 1024):
        with T.block("M"):
            vp, vr = T.axis.remap("SR", [p, r])
            T.reads(X[vp, vr])
            T.writes(M[vp])
            with T.init():
                M[vp] = T.min_value("float32")
            M[vp] = T.max(M[vp], X[vp, vr])


# Zero padding then a 3-tap horizontal stencil: the stencil's block reads
# three neighbouring columns of the padded buffer.
def te_pad_stencil():
    A = te.placeholder((56, 56), name="A")
    P = te.compute(
        (56, 58),
        lambda i, j: tvm.tir.if_then_else(
            tvm.tir.all(j >= 1, j < 57), A[i, j - 1], 0.0
        ),
        name="P",
    )
    S = te.compute((56, 56), lambda i, j: P[i, j] + P[i, j + 1] + P[i, j + 2], name="S")
    return [A, S]


@T.prim_func
def tir_pad_stencil(A: T.Buffer((56, 56), "float32"), S: T.Buffer((56, 56), "float32")) -> None:
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    P = T.alloc_buffer((56, 58))
    for i, j in T.grid(56, 58):
        with T.block("P"):
            vi, vj = T.axis.remap("SS", [i, j])
            P[vi, vj] = T.if_then_else(1 <= vj and vj < 57, A[vi, vj - 1], T.float32(0))
    for i, j in T.grid(56, 56):
        with T.block("S"):
            vi = T.axis.spatial(56, i)
            vj = T.axis.spatial(56, j)
            S[vi, vj] = P[vi, vj] + P[vi, vj + 1] + P[vi, vj + 2]


row_max = te.create_prim_func(te_row_max())
tvm.ir.assert_structural_equal(row_max, tir_row_max)

stencil = te.create_prim_func(te_pad_stencil())
tvm.ir.assert_structural_equal(stencil, tir_pad_stencil)
s = tir.Schedule(stencil)
assert isinstance(s.get_sref(s.get_block("S")), tir.schedule.StmtSRef)

# What a function prints reads back as the same function.
tvm.ir.assert_structural_equal(tvm.script.from_source(stencil.script()), stencil)

# The stencil's block reads three columns of P around its own.
print(stencil.script())
