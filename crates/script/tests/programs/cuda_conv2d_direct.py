# TOPI's direct CUDA convolution as a TVM user calls it:
# `topi.cuda.conv2d_nchw` and `topi.cuda.schedule_conv2d_nchw` under a CUDA
# target, with AutoTVM's fallback configuration (no tuning log): each tile
# factor 1, so blocks cover the output and every thread axis has extent 1.
# Run by both front ends (crates/script/tests/topi_modules.rs,
# python/tests/test_topi_modules.py).
import tvm
from tvm import te, topi

# A convolution, then a ReLU: the ReLU is the output, and the convolution
# accumulates in `local` memory at each thread.
data = te.placeholder((1, 8, 12, 12), name="data")
kernel = te.placeholder((16, 8, 3, 3), name="kernel")
with tvm.target.Target("cuda"):
    conv = topi.cuda.conv2d_nchw(data, kernel, 1, 1, 1)
    out = topi.nn.relu(conv)
    s = topi.cuda.schedule_conv2d_nchw([out])
print(conv.op.attrs["workload"][0], conv.op.tag)
print(tvm.lower(s, [data, kernel, out], simple_mode=True))

# ---- strided and dilated, the convolution itself the output
x = te.placeholder((2, 4, 11, 11), name="x")
w = te.placeholder((6, 4, 3, 3), name="w")
with tvm.target.Target("cuda"):
    y = topi.cuda.conv2d_nchw(x, w, (2, 2), (1, 1), (2, 2), "float32")
    s2 = topi.cuda.schedule_conv2d_nchw(y)
print(tvm.lower(s2, [x, w, y], simple_mode=True))
