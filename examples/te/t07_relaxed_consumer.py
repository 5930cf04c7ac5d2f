# T7 (seed 000, InferBound with compute_at, Phase 2): C is not attached, but
# its consumer D is attached in E; D's attach path is relaxed, so all of C
# is computed.
import tvm

C = tvm.compute((5, 16), lambda ci, cj : tvm.const(5, "int32"), name='C')
D = tvm.compute((5, 16), lambda di, dj : C[di, dj]*2, name='D')
E = tvm.compute((5, 16), lambda ei, ej : D[ei, ej]*4, name='E')
s = tvm.create_schedule(E.op)
s[D].compute_at(s[E], E.op.axis[1])
