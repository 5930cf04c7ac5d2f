# Seed 000, Limitations of PassUpDomain, Ex. 6, exactly as the document
# writes it.
import tvm

n = 4
m = 4

A = tvm.placeholder((n, m), name='A')
B = tvm.compute((n, m), lambda bi, bj: A[bi, bj]+2, name='B')
C = tvm.compute((n, m), lambda ci, cj: B[ci, cj]*3, name='C')

s = tvm.create_schedule(C.op)

fused_axes = s[C].fuse(C.op.axis[0], C.op.axis[1])
xo, xi = s[C].split(fused_axes, 4)

s[B].compute_at(s[C], xo)

print(tvm.lower(s, [A, C], simple_mode=True))
