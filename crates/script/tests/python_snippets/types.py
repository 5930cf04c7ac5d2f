# isinstance, type, callable, hasattr, getattr, issubclass.
vals = [1, 2.0, "s", (1,), [1], {}, None, True, {1}]
print([isinstance(v, (int, float)) for v in vals])
print([isinstance(v, list) for v in vals], [isinstance(v, (tuple, list)) for v in vals])
print(isinstance(True, int), isinstance("x", str), isinstance({}, dict), isinstance(1, bool))
print(type(1), type(1.0), type("x"), type([]), type(()), type({}), type(None), type(True), type({1}))
print(type(1) == int, type(True) == int, type(1).__name__, type("a") is str)
def f():
    pass
print(callable(f), callable(len), callable(lambda: 0), callable(3), callable("x"), f.__name__)
print(hasattr("x", "upper"), hasattr("x", "nothing"), getattr("abc", "upper")(), getattr([], "nothing", "default"))
print(issubclass(bool, int), issubclass(int, bool), issubclass(KeyError, LookupError), issubclass(ValueError, (TypeError, Exception)))
e = ValueError("bad")
print(isinstance(e, ValueError), isinstance(e, Exception), isinstance(e, TypeError), e, repr(e), e.args)
