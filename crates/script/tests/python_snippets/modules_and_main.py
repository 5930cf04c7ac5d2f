# math, functools, itertools imports; the `__main__` block runs.
import math
from functools import reduce
import functools
import itertools
from math import ceil, floor
import re, numbers, os, sys
print(math.ceil(7 / 2), math.floor(-3.5), math.sqrt(16), math.prod([2, 3, 4]), math.log2(1024), math.prod((2, 3), start=2))
print(ceil(2.1), floor(2.9), math.gcd(12, 18), math.pi, math.isclose(0.1 + 0.2, 0.3), math.exp(0), math.log(math.e), math.log(8, 2))
print(reduce(lambda a, b: a * b, [1, 2, 3, 4]), functools.reduce(lambda a, b: a + b, [1, 2], 10))
print(list(itertools.product([0, 1], "ab")), len(list(itertools.product(range(2), repeat=3))))
def test_not_run():
    print("test functions are not run automatically")
def main():
    print("main ran")
if __name__ == "__main__":
    main()
print(__name__)
