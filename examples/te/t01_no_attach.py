# T1 (seed 000, InferBound with compute_at, Ex. 1): D needs all of C.
import tvm

C = tvm.compute((5, 16), lambda i, j : tvm.const(5, "int32"), name='C')
D = tvm.compute((5, 16), lambda i, j : C[i, j]*2, name='D')
s = tvm.create_schedule(D.op)
