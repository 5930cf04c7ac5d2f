# A matrix product handed to an external library with te.extern (as
# tvm.contrib.cblas does), on explicitly declared buffers, followed by a
# bias add written in TE. BERT-base query projection (128 x 768 -> 768);
# the run uses 8 x 16 -> 16.
import tvm
from tvm import te

for tokens, hidden in [(128, 768), (8, 16)]:
    A = te.placeholder((tokens, hidden), name="A")
    W = te.placeholder((hidden, hidden), name="W")
    bias = te.placeholder((hidden,), name="bias")
    Ab = tvm.tir.decl_buffer(A.shape, A.dtype, name="Ab")
    Wb = tvm.tir.decl_buffer(W.shape, W.dtype, name="Wb")
    C = te.extern(
        (tokens, hidden),
        [A, W],
        lambda ins, outs: tvm.tir.call_packed(
            "tvm.contrib.cblas.matmul", ins[0], ins[1], outs[0], False, False
        ),
        in_buffers=[Ab, Wb],
        name="C",
        dtype="float32",
    )
    D = te.compute(C.shape, lambda i, j: C[i, j] + bias[j], name="D")
    s = te.create_schedule(D.op)
    print(tvm.lower(s, [A, W, bias, D], simple_mode=True))
