# What TOPI's sampling and quantization operators write: conditions on
# tensor values joined by `tir.all`/`tir.any`, `&` and `|` (grid_sample's
# bounds check, deformable convolution's), a gather through `indexmod` of a
# tensor value (simulated quantization's per-channel scale), and a tensor of
# no dimensions used as its one value (`axis.equal(-1)`). Run by both front
# ends (crates/script/tests/topi_modules.rs, python/tests/test_topi_modules.py).
import tvm
from tvm import te, topi

h = 32
x = te.placeholder((h,), name="x")
grid = te.placeholder((h,), name="grid")
scale = te.placeholder((4,), name="scale")
axis = te.placeholder((), name="axis", dtype="int32")


def sample(i):
    at = grid[i] * (h - 1)
    inside = tvm.tir.all(at >= 0.0, at <= h - 1.0, i % 2 == 0)
    return tvm.tir.if_then_else(inside, x[i], 0.0)


sampled = te.compute((h,), sample, name="sampled")
clipped = te.compute(
    (h,),
    lambda i: tvm.tir.if_then_else(
        tvm.tir.any(x[i] < -0.5, x[i] > 0.5) | (i == 0), 0.0, x[i]
    ),
    name="clipped",
)
banded = te.compute(
    (h,), lambda i: tvm.tir.if_then_else((x[i] >= -0.25) & (x[i] < 0.25), 1.0, 0.0), name="banded"
)
scaled = te.compute(
    (h,),
    lambda i: x[i] * scale[tvm.tir.indexmod(i, topi.shape(scale)[0])],
    name="scaled",
)
chosen = te.compute(
    (h,), lambda i: tvm.tir.if_then_else(axis.equal(-1), x[i], scaled[i]), name="chosen"
)
s = te.create_schedule([sampled.op, clipped.op, banded.op, chosen.op])
print(tvm.lower(s, [x, grid, scale, axis, sampled, clipped, banded, chosen], simple_mode=True))
