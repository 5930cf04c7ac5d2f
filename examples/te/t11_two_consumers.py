# T11 (seed 000, Phase 4: GatherBound): two consumers read T[0:2, 0:2] and
# T[2:4, 2:4]; the per-axis union is all of T, so 16 elements are computed
# where 8 are needed.
import tvm

A = tvm.placeholder((4, 4), name='A')
T = tvm.compute((4, 4), lambda i, j: A[i, j] * 2, name='T')
P = tvm.compute((2, 2), lambda i, j: T[i, j] + 1, name='P')
Q = tvm.compute((2, 2), lambda i, j: T[i + 2, j + 2] + 1, name='Q')

s = tvm.create_schedule([P.op, Q.op])
print(tvm.lower(s, [A, P, Q], simple_mode=True))
