# Argmax over the 1000 ImageNet classes of a batch of 16, with a tuple
# reducer built by te.comm_reducer as topi.argmax builds it: the reducer
# keeps (index, value) and starts at (-1, lowest float). The run uses a
# batch of 4 and 100 classes.
import tvm
from tvm import te
from tvm.topi import tag


def fcombine(x, y):
    take_left = x[1] >= y[1]
    idx = tvm.tir.Select(take_left, x[0], y[0])
    val = tvm.tir.Select(take_left, x[1], y[1])
    return idx, val


def fidentity(t0, t1):
    return tvm.tir.const(-1, t0), te.min_value(t1)


argmax = te.comm_reducer(fcombine, fidentity, name="argmax")

for batch, classes in [(16, 1000), (4, 100)]:
    logits = te.placeholder((batch, classes), name="logits")
    k = te.reduce_axis((0, classes), name="k")
    T_idx, T_val = te.compute(
        (batch,), lambda i: argmax((k.var, logits[i, k]), axis=k), name="T_argmax",
        tag=tag.COMM_REDUCE_IDX,
    )
    s = te.create_schedule(T_idx.op)
    print(tvm.lower(s, [logits, T_idx, T_val], simple_mode=True))
