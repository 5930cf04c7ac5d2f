# The head of MobileNet v2: relu6 written as topi.clip(x, 0, 6) after the
# last 1x1 convolution, an adaptive average pool to 1x1
# (topi.nn.adaptive_pool), topi.reshape to a vector, the classifier
# (topi.nn.dense) and the predicted class with topi.argmax. The 7x7x1280
# ImageNet head is printed; the run uses 3x3 maps with 8 channels and 5
# classes.
import tvm
from tvm import te, topi

for hw, c, classes in [(7, 1280, 1000), (3, 8, 5)]:
    x = te.placeholder((1, c, hw, hw), name="x")
    relu6 = topi.clip(x, 0.0, 6.0)
    pooled = topi.nn.adaptive_pool(relu6, (1, 1), "avg", layout="NCHW")
    flat = topi.reshape(pooled, (1, c))
    w = te.placeholder((classes, c), name="w")
    b = te.placeholder((classes,), name="b")
    logits = topi.nn.dense(flat, w, b)
    label = topi.argmax(logits, axis=1)
    print(pooled.op.name, [int(d) for d in label.shape], label.dtype)

    s = te.create_schedule(label.op)
    s[relu6].compute_inline()
print(tvm.lower(s, [x, w, b, label], simple_mode=True))
