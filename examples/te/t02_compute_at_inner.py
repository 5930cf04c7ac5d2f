# T2 (seed 000, Ex. 2): C computed at axis j of D needs one element at a time.
import tvm

C = tvm.compute((5, 16), lambda i, j : tvm.const(5, "int32"), name='C')
D = tvm.compute((5, 16), lambda i, j : C[i, j]*2, name='D')

s = tvm.create_schedule(D.op)
s[C].compute_at(s[D], D.op.axis[1])
