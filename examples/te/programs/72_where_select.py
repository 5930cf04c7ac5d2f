# topi.where: an elementwise choice between two tensors by a condition
# tensor, here the attention mask of BERT (12 heads x 128 x 128): masked
# scores become a large negative value before the softmax. The condition
# is compared to zero and the choice written with tvm.tir.Select, the
# minimum with te.min_value. The run uses 2 x 8 x 8.
import tvm
from tvm import te

for heads, tokens in [(12, 128), (2, 8)]:
    scores = te.placeholder((heads, tokens, tokens), name="scores")
    mask = te.placeholder((tokens, tokens), name="mask", dtype="int32")
    masked = te.compute(
        scores.shape,
        lambda h, i, j: tvm.tir.Select(
            mask[i, j] != 0, scores[h, i, j], te.min_value("float32") / 2
        ),
        name="T_where",
    )
    s = te.create_schedule(masked.op)
    h, i, j = s[masked].op.axis
    fused = s[masked].fuse(h, i)
    print(tvm.lower(s, [scores, mask, masked], simple_mode=True))
