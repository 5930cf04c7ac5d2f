import re
import numpy as np

# TOPI's conv: a layout's permutation and its inverse.
layout = "NHWC"
to = [layout.find("N"), layout.find("C")] + [x.span()[0] for x in re.finditer("[^NC]", layout)]
frm = np.argsort(to)
red = frm[1:].copy()
red[red > frm[0]] -= 1
print(to, frm.tolist(), red.tolist(), len(frm), frm.shape, frm.size, frm.ndim)
b, c, *dims = np.array((1, 3, 224, 112))[to].tolist()
print(b, c, dims, list(np.array([0, 0] + [1, 2])[frm]) == [0, 1, 2, 0])
print([str(s) for s in np.array(["nn", "ff", "yy", "xx"])[frm]])

# Views share their elements; copies and selections do not.
a = np.array([3, 1, 2])
view = a[1:]
view[0] = 7
copy = a.copy()
copy[0] = 0
picked = a[[0, 0]]
picked[0] = 5
print(a.tolist(), view.tolist(), copy.tolist(), picked.tolist(), a[::-1].tolist(), a[-1])
a[a > 2] = 0
a[:2] = [4, 4]
print(a.tolist(), (a * 2 + 1).tolist(), (a == 4).tolist(), a[np.array([True, False, True])].tolist())
print(np.array([1, 2.5]).tolist(), np.array([True, 2]).tolist(), np.argsort(["b", "a", "c"]).tolist())
print([int(x) for x in a], bool(np.array([0])), bool(np.array([3])), tuple(np.array([1, 2])) == (1, 2))

# numpy's errors.
def assign():
    a[[0, 1]] = [1, 2, 3]

for bad in [lambda: bool(a), lambda: a[5], lambda: a[np.array([True])], lambda: a + np.array([1, 2]), assign]:
    try:
        bad()
    except (ValueError, IndexError) as e:
        print(type(e).__name__)

# How arrays print.
for shown in [np.array([1, 10, -3]), np.array([True, False]), np.array([0.5, 10.25, 3.0]), np.array([1.0]), np.array(["a", "bb"]), np.array([]), np.array([float("nan"), 1.5]), np.array([-1.5, 2.0]), np.argsort([3, 1, 2])]:
    print(shown)
