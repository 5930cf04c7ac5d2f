# f-strings with conversions and format specs.
x = 3.14159
n = 42
s = "name"
items = [1, 2]
print(f"{x:.3f} {n:d} {n:5d}|{n:<5d}|{n:^7}|{n:>6}|")
print(f"{s!r} {s!s} {s:>8} {s:*^10} {items} {items!r}")
print(f"{n:x} {n:#x} {n:08b} {n:,} {1234567.891:,.2f} {0.25:%} {0.25:.1%}")
print(f"{x:e} {x:.2e} {x:g} {x:10.4f}| {-x:+.1f} {x: .2f}")
w = 10
p = 2
print(f"{x:{w}.{p}f}|")
print(f"{'nested'} {n * 2} {n // 5} {n % 5} {x > 3}")
print(f"{{literal}} {n}")
print(f"{1e16} {1.0} {0.1 + 0.2} {1e-5} {123456789.0}")
print(f"{True} {None} {(1, 2)} {'a'}")
print(f"{n=}", f"{x=:.2f}")
print(f"{3:.2f} {2.0:.0f} {5:e} {7.0:g}")
