# The tail of a ResNet-50 bottleneck block in stage 3 (1x1024x14x14,
# NCHW): the block's output and its shortcut added with
# topi.elemwise_sum, then topi.nn.relu, then a float16 copy for the next
# block with topi.cast. The x86 schedule inlines the sum and the relu
# into the cast, fuses the batch and channel loops and parallelises
# them, and vectorizes the width. The run uses 1x16x7x7.
import tvm
from tvm import te, topi

for channels, size in [(1024, 14), (16, 7)]:
    block = te.placeholder((1, channels, size, size), name="block")
    shortcut = te.placeholder((1, channels, size, size), name="shortcut")
    total = topi.elemwise_sum([block, shortcut])
    act = topi.nn.relu(total)
    half = topi.cast(act, "float16")
    assert total.op.name == "T_elemwise_sum" and act.op.tag == "elemwise"

    s = te.create_schedule(half.op)
    s[total].compute_inline()
    s[act].compute_inline()
    n, c, h, w = s[half].op.axis
    fused = s[half].fuse(n, c)
    s[half].parallel(fused)
    s[half].vectorize(w)

print(tvm.lower(s, [block, shortcut, half], simple_mode=True))
