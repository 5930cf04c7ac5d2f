# T10 (seed 000, PassDownDomain): extent 20 split by 16. The inner loop runs
# min(16, 20 - xo*16) times, and the producer only what that needs.
import tvm

A = tvm.placeholder((20,), name='A')
B = tvm.compute((20,), lambda i: A[i] + 1, name='B')
C = tvm.compute((20,), lambda i: B[i] * 2, name='C')

s = tvm.create_schedule(C.op)
xo, xi = s[C].split(C.op.axis[0], factor=16)
s[B].compute_at(s[C], xo)

print(tvm.lower(s, [A, C], simple_mode=True))
