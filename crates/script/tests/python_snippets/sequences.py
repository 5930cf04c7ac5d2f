# Sequence operators and builtins.
print([0] * 3, (1, 2) * 2, 2 * [1], [1, 2] + [3], (1,) + (2, 3), [] * 5, [1] * 0, [1] * -1)
print(3 in [1, 2, 3], 4 not in (1, 2), (1, 2) in [(1, 2)], "k" in {"k": 1}, 2 in {1, 2})
print(sorted([3, 1, 2]), sorted([3, 1, 2], reverse=True), sorted(["b", "a", "c"]), sorted((2, 1)))
print(sorted([(1, "b"), (0, "z"), (1, "a")]), sorted(["aa", "b", "ccc"], key=len), sorted([-3, 1, 2], key=abs, reverse=True))
print(list(reversed([1, 2, 3])), list(reversed((1, 2))), list(reversed(range(3))))
print(sum([1, 2, 3]), sum([0.5, 0.25]), sum([[1], [2]], []), sum(x * x for x in range(4)), sum([], 10))
print(list(map(lambda x: x * 2, [1, 2])), list(map(str, (1, 2))), list(map(lambda a, b: a + b, [1, 2], [10, 20])))
print(list(filter(lambda x: x % 2, range(6))), list(filter(None, [0, 1, "", "a", None])))
print(min([4, 2, 8]), max(3, 9, 1), min("bca"), max([1, 5], key=lambda v: -v), min([], default=0))
print(list(zip("ab", [1, 2])), list(enumerate("xy", start=1)), tuple(range(3)), list("abc"), list())
print(any([]), all([]), any(x > 2 for x in [1, 3]), all(x > 0 for x in (1, 2)))
l = [3, 1, 2]
l.sort()
l.append(4)
l.extend((5, 6))
l.insert(0, 0)
print(l, l.pop(), l.pop(0), l, l.index(3), l.count(1))
l.reverse()
l.remove(3)
print(l, l.copy(), len(l))
print((1, 2) == (1, 2), [1, 2] == [1, 2], (1, 2) == [1, 2], (1, 2) < (1, 3), [1, 2] < [1, 2, 0], 1 == 1.0, (1,) == (1.0,))
print(divmod(-7, 2), divmod(7, 3), round(2.5), round(3.5), round(2.675, 2), round(1234, -2), pow(2, 10), abs(-2.5))
print(int("42"), int(" -7 "), int(3.9), float("1.5"), float(3), bool(0), bool([1]), str(), ord("A"), chr(66))
loop = [1]
loop.append(loop)
ring = {"k": 1}
ring["self"] = ring
print(loop, ring, "a\u3000b c".split(None, 1), "a b\u3000c".rsplit(None, 1))
