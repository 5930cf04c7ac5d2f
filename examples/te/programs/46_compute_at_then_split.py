# compute_at to an axis that the consumer splits afterwards, as schedules
# built in steps do: the bias stage is attached to the output's row axis,
# then that axis is split by 4 and the attachment moves to the split's
# inner loop. Layer-norm-like row scaling of 128 x 768; the run uses 8 x 16.
import tvm
from tvm import te

for rows, cols in [(128, 768), (8, 16)]:
    x = te.placeholder((rows, cols), name="x")
    scale = te.placeholder((rows,), name="scale")
    k = te.reduce_axis((0, cols), name="k")
    norm = te.compute((rows,), lambda i: te.sum(x[i, k] * x[i, k], axis=k), name="norm")
    out = te.compute(
        (rows, cols), lambda i, j: x[i, j] * scale[i] * te.rsqrt(norm[i] + 1e-6), name="out"
    )
    s = te.create_schedule(out.op)
    s[norm].compute_at(s[out], out.op.axis[0])
    io, ii = s[out].split(out.op.axis[0], factor=4)
    jo, ji = s[out].split(out.op.axis[1], factor=8)
    s[out].reorder(io, jo, ii, ji)
    print(tvm.lower(s, [x, scale, out], simple_mode=True))
