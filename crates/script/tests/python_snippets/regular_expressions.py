# Python's `re`, as TOPI's layout code and test scripts use it.
import re

# The spatial axes of a layout, and a packed layout recognised.
print([x.span()[0] for x in re.finditer("[^NC]", "NCHW")])
print([m.start() for m in re.finditer("[^OI]", "OIHW")])
print("NHWC".find("C") < re.search("[^NC]", "NHWC").span()[0])
packed = re.compile("^NCHW[0-9]+c$")
print(bool(packed.match("NCHW16c")), packed.match("NCHW"), packed)
print(packed.pattern, packed.groups, packed.flags & re.I == 0, re.compile("a", re.A).flags)

# Groups, by number and by name.
p = re.compile(r"NCHW(?P<c>\d+)c")
m = p.search("data NCHW8c")
print(m, m.group(), m.group("c"), m.group(0, 1), m.groups(), m.groupdict())
print(m.span(1), m.start(), m.end(), m.end("c"), m.lastindex, m.string, m.re.pattern)
opt = re.match(r"(a)(x)?", "ab")
print(opt.groups(), opt.groups("-"), opt.span(2), opt.group(2))

# The module's functions.
print(re.match("a", "ba"), re.search("a", "ba").span(), re.fullmatch("b.", "ba").group())
print(re.fullmatch("b", "ba"), re.findall(r"(\d)(\w)", "1a 2b"), re.findall(r"\d", "a1b22"))
print(re.findall(r"x(\d)?", "x1 x"))
print(re.sub(r"(\d+)", r"<\1>", "a1b22c"), re.sub(r"(?P<n>\d)", r"\g<n>\g<1>", "a1"))
print(re.sub("x", lambda m: m.group(0).upper(), "axbx", count=1), re.sub("", "-", "ab"))
print(re.split(r"(,)", "a,b,c"), re.split(",", "a,b,c", maxsplit=1), re.split(r"(x)?,", "a,bx,c"))
print(re.escape("a.b*c d"), re.search(re.escape("1+1"), "x=1+1").span())

# Flags, positions counted in characters, and the very end.
print(re.search("Ab", "xab", re.I).span(), re.search("^b", "a\nb", re.MULTILINE).span())
print(re.search("a.b", "a\nb", re.S).group() == "a\nb", re.search("a.b", "a\nb"))
print(re.findall("é.", "éa éb"), re.search("b", "éb").span(), re.search(r"a\Z", "ba").span())
print(bool(re.search(r"\bconv\d?d\b", "topi conv2d")), re.compile("a", re.I | re.M).flags)

# Errors are Python's.
for bad in ["(", "a{2,1}"]:
    try:
        re.compile(bad)
    except re.error:
        print("re.error for", repr(bad))
try:
    m.group(3)
except IndexError as e:
    print("IndexError", e)
