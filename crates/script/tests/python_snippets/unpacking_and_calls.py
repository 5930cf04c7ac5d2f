# Unpacking in loops and assignments, *args/**kwargs, defaults, keyword-only.
pairs = [(1, 2), (3, 4)]
for i, (a, b) in enumerate(pairs):
    print(i, a, b)
for (a, b), c in zip(pairs, "xy"):
    print(a, b, c)
first, *rest = [1, 2, 3, 4]
*init, last = (1, 2, 3)
a, *mid, z = "abcde"
h, *empty = [9]
print(first, rest, init, last, a, mid, z, h, empty)
[p, q], r = (1, 2), 3
print(p, q, r)
def f(a, b=2, *args, c, d=4, **kwargs):
    return (a, b, args, c, d, sorted(kwargs.items()))
print(f(1, c=3))
print(f(1, 5, 6, 7, c=8, e=9, g=10))
print(f(*[1, 2, 3], **{"c": 0, "x": 1}))
def g(*, key=None):
    return key
print(g(), g(key="k"))
def h(*shape):
    return len(shape), shape
print(h(), h(1, 2, 3), h(*(4, 5)))
def k(x, y):
    return x - y
args = {"y": 1, "x": 10}
print(k(**args), k(5, y=2))
def defaults(x, acc=None):
    acc = [] if acc is None else acc
    acc.append(x)
    return acc
print(defaults(1), defaults(2), defaults(3, [0]))
opt = lambda x, scale=2: x * scale
print(opt(3), opt(3, 10), (lambda *a, **kw: (a, kw))(1, k=2))
