# Inspecting a lowered program: the body of the lowered PrimFunc is walked
# with tvm.tir.stmt_functor.post_order_visit to count loops and stores and
# to collect each loop's extent, as TVM's own lowering tests check the
# loop nest of a tiled 3x3 convolution (1x16x14x14, 16 filters; the run
# uses this shape with 4 channels).
import tvm
from tvm import te

channels, size = 4, 14
data = te.placeholder((1, channels, size + 2, size + 2), name="data")
kernel = te.placeholder((channels, channels, 3, 3), name="kernel")
rc = te.reduce_axis((0, channels), name="rc")
ry = te.reduce_axis((0, 3), name="ry")
rx = te.reduce_axis((0, 3), name="rx")
conv = te.compute(
    (1, channels, size, size),
    lambda n, f, y, x: te.sum(data[n, rc, y + ry, x + rx] * kernel[f, rc, ry, rx], axis=[rc, ry, rx]),
    name="conv",
)
s = te.create_schedule(conv.op)
n, f, y, x = s[conv].op.axis
xo, xi = s[conv].split(x, factor=7)

mod = tvm.lower(s, [data, kernel, conv], simple_mode=True)
loops = []
stores = []


def visit(node):
    if isinstance(node, tvm.tir.For):
        loops.append((node.loop_var.name, int(node.extent)))
    elif isinstance(node, tvm.tir.BufferStore):
        stores.append(node.buffer.name)


tvm.tir.stmt_functor.post_order_visit(mod["main"].body, visit)
extents = dict(loops)
assert extents["x.inner"] == 7
assert extents["x.outer"] == 2
assert extents["rc"] == channels
assert len(stores) == 2
print(loops)
print(mod)
