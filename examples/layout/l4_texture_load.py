# L4 (seed 001): L3 with an axis separator after h, the texture layout:
# physical shape [32768, 256]; the load x[11, 37, 23, 101] reads
# x[24165, 93].
from tvm import te

x = te.placeholder((16, 64, 64, 128), name="x")
val = te.compute((1,), lambda i: x[11, 37, 23, 101], name="val")
s = te.create_schedule(val.op)
s[x].transform_layout(lambda n, h, w, c: [n, c // 4, h, te.AXIS_SEPARATOR, w, c % 4])
# expect: x[24165, 93]
