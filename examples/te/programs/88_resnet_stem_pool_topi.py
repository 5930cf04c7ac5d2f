# ResNet-50's stem after its 7x7 convolution: a 3x3/2 max pool with
# padding 1 (TOPI's pool2d: pad_temp, then pool_max), then the classifier
# head's global average pool as a sum over H and W plus a bias added with
# broadcasting (topi.sum, the tensors' + operator). Shapes 1x64x112x112
# -> 1x64x56x56 in NCHW; the run uses a 1x8x14x14 input. The x86-style
# schedule fuses the pool's outer loops and parallelises them, and
# computes the padding inside each row of the pool.
import tvm
from tvm import te, topi

for channels, size in [(64, 112), (8, 14)]:
    data = te.placeholder((1, channels, size, size), name="data")
    pool = topi.nn.pool2d(data, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), "max")
    total = topi.sum(pool, axis=(2, 3))
    bias = te.placeholder((channels,), name="bias")
    out = total + bias
    assert pool.op.tag == "pool_max" and total.op.tag == "comm_reduce"
    assert out.op.tag == topi.tag.BROADCAST

    s = te.create_schedule(out.op)
    pad = pool.op.input_tensors[0]
    n, c, h, w = s[pool].op.axis
    fused = s[pool].fuse(n, c)
    s[pool].parallel(fused)
    s[pad].compute_at(s[pool], h)
    s[total].compute_at(s[out], s[out].op.axis[1])

print(tvm.lower(s, [data, bias, out], simple_mode=True))
