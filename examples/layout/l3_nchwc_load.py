# L3 (seed 001): x of shape [16, 64, 64, 128] (NHWC) stored NCHWc:
# transformed shape [16, 32, 64, 64, 4], one flat axis of 8388608; the
# load x[11, 37, 23, 101] reads x[6186333].
from tvm import te

x = te.placeholder((16, 64, 64, 128), name="x")
val = te.compute((1,), lambda i: x[11, 37, 23, 101], name="val")
s = te.create_schedule(val.op)
s[x].transform_layout(lambda n, h, w, c: [n, c // 4, h, w, c % 4])
# expect: x[6186333]
