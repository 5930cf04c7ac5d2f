# Item assignment, augmented assignment on items, and `del`.
d = {}
d["a"] = 1
d["b"] = [1, 2]
d["a"] += 10
d["b"] += [3]
d[(1, 2)] = "tuple key"
print(d)
l = [0] * 4
l[1] = 5
l[-1] = 7
l[2] += 3
l[0] -= 1
print(l)
grid = [[0] * 3 for _ in range(2)]
grid[1][2] = 9
grid[0][0] += 4
print(grid)
del l[0]
print(l)
del d["a"]
print(d, "a" in d, "b" in d)
m = list(range(8))
del m[::2]
print(m)
m[1:3] = ["x", "y", "z"]
print(m)
x = 5
y = x
del x
print(y)
