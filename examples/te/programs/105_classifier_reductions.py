# What a classifier's post-processing computes, with TOPI's reductions
# and comparisons: the largest logit per row (topi.max), its index
# (topi.argmax), a numerically safe log-sum-exp (topi.exp, topi.sum with
# keepdims, topi.log), and logits below a threshold zeroed with
# topi.where and topi.greater. A batch of 32 ImageNet rows is printed;
# the run uses 3 rows of 5 classes.
import tvm
from tvm import te, topi

for batch, classes in [(32, 1000), (3, 5)]:
    logits = te.placeholder((batch, classes), name="logits")
    top = topi.max(logits, axis=1, keepdims=True)
    label = topi.argmax(logits, axis=1)
    shifted = topi.subtract(logits, top)
    lse = topi.add(topi.log(topi.sum(topi.exp(shifted), axis=1, keepdims=True)), top)
    kept = topi.where(topi.greater(logits, 0.0), logits, topi.full_like(logits, 0.0))
    print(top.op.name, label.op.name, [int(d) for d in lse.shape])

    s = te.create_schedule([lse.op, label.op, kept.op])
print(tvm.lower(s, [logits, lse, label, kept], simple_mode=True))
