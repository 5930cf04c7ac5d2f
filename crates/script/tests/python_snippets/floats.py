# Floats print as Python's repr.
print(1.0, 0.1, 1e16, 1e15, 1.5e-7, 0.0001, 0.00001, -0.0, 1 / 3, 2 / 3 * 3, 123456789.123, 7 / 2)
print([0.5, 1e100], (1e-10,), {"f": 2.5}, float("inf"), -float("inf"), 3.0 * 1e300 * 1e10)
