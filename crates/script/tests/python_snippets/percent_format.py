# printf-style `%` formatting.
name, idx = "conv", 3
print("%s_%d" % (name, idx))
print("%x %X %#x %o %#o" % (255, 255, 255, 8, 8))
print("%.2f %.0f %.3e %g %g %g" % (3.14159, 2.5, 12345.678, 0.00001234, 100000.0, 1e16))
print("%5d|%-5d|%05d|%+d|% d" % (42, 42, 42, 42, 42))
print("%8.3f|%-8.2f|%08.2f" % (3.14159, 2.0, -3.14159))
print("%s %r %s" % ("a", "a", [1, "b"]))
print("%s" % (1, ))
print("%s" % 7, "%d%%" % 50)
print("%(n)s has %(k)d" % {"n": "A", "k": 2})
print("%c%c" % (65, "b"), "%.3s" % "abcdef", "%10s|" % "right", "%-10s|" % "left")
print("%d" % 3.99, "%d" % -3.99, "%i" % True)
print("%s and %s" % (None, 1.0))
