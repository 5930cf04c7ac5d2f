# A dense layer on pre-packed 16 x 16 blocks, each block product a call of
# a GEMM intrinsic written straight into te.compute (a tensor compute
# operation, as accelerator back ends such as VTA declare them): the
# lambda takes the block indices, the intrinsic owns the last two
# dimensions, and the reduction over input blocks runs outside the calls
# as reset + update. The packed weights are staged through a local cache
# and the output blocks tiled. BERT-base dense 128 x 768 -> 3072; the run
# uses 32 x 64 -> 48.
import tvm
from tvm import te

BLOCK = 16


def intrin_block_gemm(block):
    a = te.placeholder((block, block), name="a")
    w = te.placeholder((block, block), name="w")
    k = te.reduce_axis((0, block), name="k")
    c = te.compute(
        (block, block), lambda i, j: te.sum(a[i, k] * w[j, k], axis=k), name="c"
    )

    def intrin_func(ins, outs):
        aa, ww = ins
        cc = outs[0]
        body = tvm.tir.call_extern(
            "int32", "gemm_block", cc.access_ptr("w"), aa.access_ptr("r"), ww.access_ptr("r")
        )
        reset = tvm.tir.call_extern("int32", "gemm_block_reset", cc.access_ptr("w"))
        update = tvm.tir.call_extern(
            "int32", "gemm_block_update", cc.access_ptr("rw"), aa.access_ptr("r"), ww.access_ptr("r")
        )
        return body, reset, update

    return te.decl_tensor_intrin(c.op, intrin_func, default_buffer_params={"offset_factor": 1})


gemm = intrin_block_gemm(BLOCK)
for tokens, in_dim, out_dim in [(128, 768, 3072), (32, 64, 48)]:
    tb, kb, ob = tokens // BLOCK, in_dim // BLOCK, out_dim // BLOCK
    A = te.placeholder((tb, kb, BLOCK, BLOCK), name="A")
    W = te.placeholder((ob, kb, BLOCK, BLOCK), name="W")
    ko = te.reduce_axis((0, kb), name="ko")
    C = te.compute(
        (tb, ob, BLOCK, BLOCK),
        lambda i, j: gemm(A[i, ko, 0:BLOCK, 0:BLOCK], W[j, ko, 0:BLOCK, 0:BLOCK], reduce_axis=ko),
        name="C",
    )
    assert isinstance(C.op, te.TensorComputeOp)
    s = te.create_schedule(C.op)
    WL = s.cache_read(W, "local", [C])
    i, j, k = s[C].op.axis[0], s[C].op.axis[1], s[C].op.reduce_axis[0]
    jo, ji = s[C].split(j, factor=2)
    s[C].reorder(jo, i, ji, k)
    s[WL].compute_at(s[C], jo)
    with tvm.transform.PassContext(opt_level=3):
        print(tvm.lower(s, [A, W, C], simple_mode=True))
