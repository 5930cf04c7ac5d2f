# Nested functions, closures, global and nonlocal.
def make_counter():
    count = 0
    def inc(step=1):
        nonlocal count
        count += step
        return count
    return inc
c = make_counter()
print(c(), c(), c(5))
total = 0
def add(n):
    global total
    total += n
add(3)
add(4)
print(total)
def outer(k):
    def middle(m):
        def inner(n):
            return k * 100 + m * 10 + n
        return inner
    return middle
print(outer(1)(2)(3))
fs = [lambda x, i=i: x + i for i in range(3)]
print([f(10) for f in fs])
def compose(*funcs):
    def run(x):
        for fn in reversed(funcs):
            x = fn(x)
        return x
    return run
print(compose(lambda x: x + 1, lambda x: x * 2)(5))
def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)
print(fact(10))
def twice(fn):
    def run(*args, **kwargs):
        return fn(*args, **kwargs) * 2
    return run
def add_prefix(prefix):
    def wrap(fn):
        return lambda x: prefix + str(fn(x))
    return wrap
@add_prefix("v=")
@twice
def square(x):
    return x * x
print(square(3))
