# A DenseNet-121 dense layer and transition, as TVM users build them from
# TOPI: the block's feature maps joined with topi.concatenate along the
# channels, relu, a 1x1 convolution (topi.nn.conv2d_nchw), then the
# transition's 2x2 average pooling (topi.nn.pool2d), and the classifier
# head's global average pool, flatten and dense. Block 1 of
# DenseNet-121 (56x56, 64 + 2x32 channels) is printed; the run uses 8x8
# maps with 4 + 2x2 channels.
import tvm
from tvm import te, topi

for hw, c0, growth in [(56, 64, 32), (8, 4, 2)]:
    feats = [te.placeholder((1, c0, hw, hw), name="f0")]
    feats += [te.placeholder((1, growth, hw, hw), name="f%d" % i) for i in (1, 2)]
    joined = topi.concatenate(feats, axis=1)
    channels = c0 + 2 * growth
    act = topi.nn.relu(joined)
    w = te.placeholder((channels // 2, channels, 1, 1), name="w")
    conv = topi.nn.conv2d_nchw(act, w, 1, 0, 1)
    pooled = topi.nn.pool2d(conv, (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), "avg")
    gap = topi.nn.global_pool(pooled, "avg", layout="NCHW")
    flat = topi.nn.flatten(gap)
    fc = te.placeholder((10, channels // 2), name="fc")
    logits = topi.nn.dense(flat, fc)
    assert joined.op.name == "T_concat"
    print([int(d) for d in joined.shape], [int(d) for d in gap.shape], [int(d) for d in flat.shape])

    s = te.create_schedule(logits.op)
    s[act].compute_inline()
print(tvm.lower(s, feats + [w, fc, logits], simple_mode=True))
