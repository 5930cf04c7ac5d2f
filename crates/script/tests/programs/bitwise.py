# What TOPI's bit-serial and binary operators write (`nn/bitserial_util.py`,
# `nn/bnn.py`): bits packed with `&`, `|`, `<<`, `>>`, `^`, `~` on integer
# tensor elements, counted with `popcount`; the padding value `0.0` made a
# constant of the data's integer type; a compute whose function returns a
# tuple of one value is one tensor. Run by both front ends
# (crates/script/tests/topi_modules.rs, python/tests/test_topi_modules.py).
import tvm
from tvm import te

n = 16
x = te.placeholder((n, 8), name="x", dtype="uint32")
w = te.placeholder((8,), name="w", dtype="int32")


def pack(i):
    word = tvm.tir.const(0, "uint32")
    for k in range(8):
        bit = (x[i, k] & tvm.tir.const(1, "uint32")).astype("uint32")
        word = (word << 1) | bit
    return (word,)


packed = te.compute((n,), pack, name="packed")
counted = te.compute(
    (n,),
    lambda i: tvm.tir.popcount(packed[i] ^ (packed[i] >> 2)) + tvm.tir.bitwise_and(w[i % 8], 7),
    name="counted",
)
flipped = te.compute((n,), lambda i: ~w[i % 8] + tvm.tir.shift_left(w[i % 8], 2), name="flipped")
padded = te.compute(
    (n + 2,),
    lambda i: tvm.tir.if_then_else(
        tvm.tir.all(i >= 1, i <= n), packed[i - 1], tvm.tir.const(0.0, "uint32")
    ),
    name="padded",
)
print(packed.dtype, counted.dtype, flipped.dtype, padded.dtype)
s = te.create_schedule([counted.op, flipped.op, padded.op])
print(tvm.lower(s, [x, w, counted, flipped, padded], simple_mode=True))
