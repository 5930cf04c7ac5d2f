# Log-softmax over 1000 ImageNet classes for a batch of 16 (the classifier
# output of ResNet-50), as topi.nn.log_softmax: log(sum(exp(x - max))) is
# subtracted from x - max. The run uses a batch of 4 and 100 classes.
import tvm
from tvm import te


def log_softmax(x):
    m, n = x.shape
    k = te.reduce_axis((0, n), name="k")
    max_elem = te.compute((m,), lambda i: te.max(x[i, k], axis=k), name="T_max")
    k = te.reduce_axis((0, n), name="k")
    expsum = te.compute((m,), lambda i: te.sum(te.exp(x[i, k] - max_elem[i]), axis=k), name="T_expsum")
    return te.compute(
        x.shape, lambda i, j: x[i, j] - max_elem[i] - te.log(expsum[i]), name="T_log_softmax"
    )


for batch, classes in [(16, 1000), (4, 100)]:
    x = te.placeholder((batch, classes), name="x")
    out = log_softmax(x)
    s = te.create_schedule(out.op)
    print(tvm.lower(s, [x, out], simple_mode=True))
