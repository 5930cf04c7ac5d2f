# while/break/continue/else, conditional expressions, raise, try/except/finally.
n, steps = 27, 0
while n != 1:
    n = n // 2 if n % 2 == 0 else 3 * n + 1
    steps += 1
print(steps)
i = 0
while True:
    i += 1
    if i % 2:
        continue
    if i > 6:
        break
print(i)
for x in range(3):
    pass
else:
    print("for else ran")
for x in range(3):
    if x == 1:
        break
else:
    print("not printed")
while False:
    pass
else:
    print("while else ran")
def check(v):
    if v < 0:
        raise ValueError("negative: %d" % v)
    return v
try:
    check(-1)
except ValueError as e:
    print("caught", e)
finally:
    print("finally")
try:
    check(2)
except (TypeError, ValueError):
    print("no")
else:
    print("else ran")
try:
    assert 1 > 2, "one is not above two"
except AssertionError as e:
    print("assert:", e)
try:
    try:
        raise KeyError("k")
    except KeyError:
        raise
except LookupError as e:
    print("re-raised", repr(e))
try:
    raise NotImplementedError
except RuntimeError:
    print("NotImplementedError is a RuntimeError")
try:
    [1, 2][5]
except IndexError:
    print("IndexError")
def first_even(xs):
    for x in xs:
        if x % 2 == 0:
            return x
    return None
print(first_even([1, 3, 4, 6]), first_even([1]))
print(1 << 4, 255 >> 2, 6 & 3, 6 | 3, 6 ^ 3, ~5, -17 >> 2, True & False)
try:
    raise KeyError("k")
except KeyError as e:
    print(e, repr(e), str(e))
try:
    {}[3]
except KeyError as e:
    print(e, repr(e))
alias = base = [1, 2]
alias *= 2
alias += [0]
print(base, alias is base)
fresh = [1, 2, 1, 2, 0]
print(fresh is base, fresh == base, fresh is not base, None is None, {} is {})
