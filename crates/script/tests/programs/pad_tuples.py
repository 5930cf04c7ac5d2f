# TOPI's padding helpers on every form of `padding` (an int, "SAME",
# "VALID", per-axis sizes, before-and-after sizes, and sizes that fit no
# form). `pad_tuples.out` is what TVM v0.19's own `topi/nn/utils.py`
# functions print for the same calls.
from tvm.topi.nn.utils import get_pad_tuple, get_pad_tuple1d, get_pad_tuple3d, get_pad_tuple_generic

helpers = [
    (get_pad_tuple1d, (3,), "get_pad_tuple1d"),
    (get_pad_tuple, (3, 5), "get_pad_tuple"),
    (get_pad_tuple3d, (3, 5, 7), "get_pad_tuple3d"),
    (get_pad_tuple_generic, (3, 4), "get_pad_tuple_generic"),
]
for p in [0, 1, 2, "SAME", "VALID", (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4), (1, 2, 3, 4, 5, 6)]:
    for f, kernel, name in helpers:
        try:
            print(name, p, f(p, kernel))
        except ValueError as e:
            print(name, p, "error", type(e).__name__)
