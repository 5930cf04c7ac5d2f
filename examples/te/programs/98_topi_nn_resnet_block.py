# A ResNet-50 bottleneck built from TOPI's own operators, as a TVM user
# writes it: topi.nn.conv2d_nchw (1x1, 3x3, 1x1), relu, the residual add,
# TOPI's generic default schedule under an llvm target, then a dense
# classifier head. Real shapes (56x56x64/256) are printed; the run uses
# a 8x8 feature map with 8/32 channels.
import tvm
from tvm import te, topi

for hw, c, mid in [(56, 256, 64), (8, 32, 8)]:
    data = te.placeholder((1, c, hw, hw), name="data")
    w1 = te.placeholder((mid, c, 1, 1), name="w1")
    w2 = te.placeholder((mid, mid, 3, 3), name="w2")
    w3 = te.placeholder((c, mid, 1, 1), name="w3")
    x = topi.nn.relu(topi.nn.conv2d_nchw(data, w1, 1, 0, 1))
    x = topi.nn.relu(topi.nn.conv2d_nchw(x, w2, 1, 1, 1))
    x = topi.nn.conv2d_nchw(x, w3, 1, 0, 1)
    out = topi.nn.relu(x + data)
    with tvm.target.Target("llvm"):
        s = topi.generic.schedule_conv2d_nchw([out])
    print(out.op.tag, [int(d) for d in out.shape])
lowered = tvm.lower(s, [data, w1, w2, w3, out], simple_mode=True)
print(lowered)
