# `operator`'s binary operators, as TOPI's modules use them with reduce.
from functools import reduce
from operator import add, mul, sub, floordiv, mod, truediv, pow
import operator

print(reduce(mul, [2, 3, 4], 1), reduce(add, (1, 2, 3)))
print(sub(7, 10), floordiv(-7, 2), mod(-7, 2), truediv(7, 2), pow(2, 10))
print(operator.mul("ab", 3), operator.add([1], [2]))
print(reduce(operator.mul, [], 1))
