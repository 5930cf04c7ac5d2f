# T3 (seed 000, Ex. 3): C computed at axis i of D needs a row of 16 elements.
import tvm

C = tvm.compute((5, 16), lambda i, j : tvm.const(5, "int32"), name='C')
D = tvm.compute((5, 16), lambda i, j : C[i, j]*2, name='D')

s = tvm.create_schedule(D.op)
s[C].compute_at(s[D], D.op.axis[0])
