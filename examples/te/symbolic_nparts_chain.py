# A symbolic pipeline whose exact bounds nest every consumer's: each stage is
# split into two parts and computed at the next stage's outer loop. Bounds
# that outgrow the size budget are widened to the whole axis and reported.
import tvm
from tvm import te

n = te.var("n")
S0 = te.placeholder((n,), name="S0")
S1 = te.compute((n,), lambda i: S0[n - 1 - i] + S0[i // 2], name="S1")
S2 = te.compute((n,), lambda i: S1[n - 1 - i] + S1[i // 2], name="S2")
S3 = te.compute((n,), lambda i: S2[n - 1 - i] + S2[i // 2], name="S3")
S4 = te.compute((n,), lambda i: S3[n - 1 - i] + S3[i // 2], name="S4")
S5 = te.compute((n,), lambda i: S4[n - 1 - i] + S4[i // 2], name="S5")
s = te.create_schedule(S5.op)
o1, i1 = s[S1].split(S1.op.axis[0], nparts=2)
o2, i2 = s[S2].split(S2.op.axis[0], nparts=2)
o3, i3 = s[S3].split(S3.op.axis[0], nparts=2)
o4, i4 = s[S4].split(S4.op.axis[0], nparts=2)
o5, i5 = s[S5].split(S5.op.axis[0], nparts=2)
s[S1].compute_at(s[S2], o2)
s[S2].compute_at(s[S3], o3)
s[S3].compute_at(s[S4], o4)
s[S4].compute_at(s[S5], o5)
