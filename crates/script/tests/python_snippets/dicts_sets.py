# dict methods, dict and set comprehensions, sets.
d = {"a": 1, "b": 2}
print(d.get("a"), d.get("z"), d.get("z", 0), list(d.keys()), list(d.values()), list(d.items()))
d.update({"c": 3})
d.update(e=5)
print(d, len(d))
print(d.setdefault("a", 100), d.setdefault("f", []), d)
d["f"].append(1)
print(d["f"], d.pop("f"), d.pop("zz", None), d)
for k, v in d.items():
    print(k, v)
for k in d:
    print(k, end=" ")
print()
sq = {i: i * i for i in range(4)}
print(sq, {k: v for k, v in sq.items() if v > 1})
s = {3, 1, 3, 2}
print(len(s), 1 in s, 5 in s, sorted(s))
s.add(5)
s.discard(1)
print(sorted(s), sorted({x % 3 for x in range(10)}), set(), sorted(set([1, 1, 2])))
print(sorted({1, 2} | {2, 3}), sorted({1, 2} & {2, 3}), sorted({1, 2} - {2}), {1, 2} == {2, 1})
print(dict([("x", 1), ("y", 2)]), dict(a=1), dict(zip("ab", (1, 2))), {**d, "z": 0})
groups = {}
for name in ["ab", "ac", "bd"]:
    groups.setdefault(name[0], []).append(name)
print(groups)
counts = {}
for c in "abca":
    counts[c] = counts.get(c, 0) + 1
print(counts, {"k": (1, 2)}, {1: "one"}, {"q": 'it"s'})
try:
    d["missing"]
except KeyError as e:
    print("KeyError", e)
