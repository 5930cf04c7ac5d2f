# Slices of lists, tuples and strings, as TOPI's shape code uses them.
a = [0, 1, 2, 3, 4, 5]
t = (10, 20, 30, 40)
s = "conv2d_nchw"
shape = (1, 64, 56, 56)
print(a[1:], a[:2], a[::-1], a[::2], a[-2:], a[:-1], a[1:5:2], a[5:1:-2], a[10:], a[-100:2])
print(t[1:], t[::-1], t[:0], t[-1:], shape[:-1], shape[2:], shape[-2:])
print(s[:4], s[-4:], s[::-1], s[1:-1], s[::3], s[100:])
print(a[None:3], a[2:None], t[::-2], len(shape[1:]))
n = 2
print(a[n:n + 2], shape[n:], list(shape[:n]) + [7])
b = a[:]
b[0] = 99
print(a[0], b[0])
