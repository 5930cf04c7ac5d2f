# topi.one_hot: class labels to one-hot rows (on_value where the column is
# the label, off_value elsewhere), for a batch of 128 labels over 1000
# ImageNet classes, then a cross-entropy-like row sum against
# log-probabilities. The run uses 8 labels over 10 classes.
import tvm
from tvm import te

for batch, classes in [(128, 1000), (8, 10)]:
    labels = te.placeholder((batch,), name="labels", dtype="int32")
    logp = te.placeholder((batch, classes), name="logp")
    onehot = te.compute(
        (batch, classes),
        lambda i, j: tvm.tir.if_then_else(
            labels[i] == j, tvm.tir.const(1.0, "float32"), tvm.tir.const(0.0, "float32")
        ),
        name="T_one_hot",
    )
    k = te.reduce_axis((0, classes), name="k")
    loss = te.compute((batch,), lambda i: te.sum(-onehot[i, k] * logp[i, k], axis=k), name="loss")
    s = te.create_schedule(loss.op)
    s[onehot].compute_inline()
    print(tvm.lower(s, [labels, logp, loss], simple_mode=True))
