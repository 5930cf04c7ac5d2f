# The steps of "how to optimise GEMM on CPU": 32x32 blocking, the B matrix
# packed so the inner block is contiguous, a write cache computed per
# block, the reduction split by 4 and unrolled, the inner loop vectorized
# and the outer loop parallel. M = N = K = 1024 is printed; the run uses
# 64 x 64 x 32.
import tvm
from tvm import te

bn = 32
for M, K, N in [(1024, 1024, 1024), (64, 32, 64)]:
    A = te.placeholder((M, K), name="A")
    B = te.placeholder((K, N), name="B")
    k = te.reduce_axis((0, K), name="k")
    packedB = te.compute((N // bn, K, bn), lambda bigN, kk, littleN: B[kk, bigN * bn + littleN], name="packedB")
    C = te.compute(
        (M, N),
        lambda m, n: te.sum(A[m, k] * packedB[n // bn, k, tvm.tir.indexmod(n, bn)], axis=k),
        name="C",
    )
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "global")
    mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], bn, bn)
    s[CC].compute_at(s[C], no)
    mc, nc = s[CC].op.axis
    (kaxis,) = s[CC].op.reduce_axis
    ko, ki = s[CC].split(kaxis, factor=4)
    s[CC].reorder(ko, mc, ki, nc)
    s[CC].vectorize(nc)
    s[CC].unroll(ki)
    s[C].parallel(mo)
    x, y, z = s[packedB].op.axis
    s[packedB].vectorize(z)
    s[packedB].parallel(x)
    print(tvm.lower(s, [A, B, C], simple_mode=True))
