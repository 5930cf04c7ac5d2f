# collections.namedtuple: TOPI's convolution workloads.
from collections import namedtuple
import collections

Workload = namedtuple("Workload", ["in_dtype", "height", "width", "stride"])
Point = collections.namedtuple("Point", "x y, z", defaults=[0])

w = Workload("float32", 56, 56, stride=2)
p = Point(1, 2)
print(w.height * w.width, w.stride, w[0], len(w), w[-1])
print(p, repr(p), str(p), p.z, Point._fields, Workload.__name__)
print(w == ("float32", 56, 56, 2), tuple(w), list(p))
dtype, h, wd, s = w
print(dtype, h + wd + s)
print({p: "origin"}[(1, 2, 0)], isinstance(p, tuple), p[1:])
q = Point(z=5, y=4, x=3)
print(q, q.x + q.y + q.z)
for bad in [lambda: Point(1), lambda: Point(1, 2, 3, 4), lambda: Point(1, 2, x=3), lambda: Point(1, 2, w=3)]:
    try:
        bad()
    except TypeError as e:
        print("TypeError:", e)
try:
    p.w
except AttributeError as e:
    print("AttributeError:", e)
