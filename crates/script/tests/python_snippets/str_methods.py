# Common str methods.
s = "  conv2d_NCHW  "
print(repr(s.strip()), repr(s.lstrip()), repr(s.rstrip()), "xxaxx".strip("x"))
t = s.strip()
print(t.upper(), t.lower(), t.startswith("conv"), t.endswith("NCHW"), t.startswith(("a", "c")))
print(t.replace("_", "-"), t.replace("c", "C", 1), t.find("2d"), t.find("zz"), t.rfind("C"))
print("a,b,,c".split(","), " a  b ".split(), "a b c".split(None, 1), "a.b.c".rsplit(".", 1))
print("-".join(["x", "y", "z"]), "".join(str(i) for i in range(4)), ", ".join(map(str, [1, 2])))
print("abc".index("c"), "banana".count("a"), "7".zfill(3), "-7".zfill(4), "ab".ljust(4, "."), "ab".rjust(4), "ab".center(5, "*"))
print("12".isdigit(), "ab".isalpha(), "Hello world".title(), "hello".capitalize(), "AB".isupper())
print("{} {}".format("x", "y").upper(), "line1\nline2".splitlines())
print(len("héllo"), "héllo"[1], "x" in "xyz", "w" not in "xyz", "ab" * 3, "a" < "b", "b" < "a", "abc" < "abd")
print(str(12) + "px", str(1.5), str(None), str([1, 'a']), repr("it's"), repr('say "hi"'))
