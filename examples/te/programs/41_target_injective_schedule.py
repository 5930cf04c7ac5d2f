# One injective operator (an NCHW bias add + clip, i.e. ReLU6 of MobileNet
# v2's expansion layer, 1x96x56x56) scheduled twice, for the target in
# scope, as TOPI dispatches schedule_injective: on "llvm" the fused outer
# loop is parallel and the inner one vectorized, on "cuda" the fused loop
# is bound to blocks and threads. The run uses 1x8x8x8.
import tvm
from tvm import te
from tvm.topi import tag


def bias_relu6(data, bias):
    return te.compute(
        data.shape,
        lambda n, c, h, w: te.min(
            te.max(data[n, c, h, w] + bias[c], tvm.tir.const(0.0, data.dtype)),
            tvm.tir.const(6.0, data.dtype),
        ),
        name="T_clip",
        tag=tag.ELEMWISE,
    )


def schedule_injective(out):
    target = tvm.target.Target.current(allow_none=False)
    s = te.create_schedule(out.op)
    fused = s[out].fuse(*s[out].op.axis)
    if target.kind.name == "cuda":
        bx, tx = s[out].split(fused, factor=target.max_num_threads)
        s[out].bind(bx, te.thread_axis("blockIdx.x"))
        s[out].bind(tx, te.thread_axis("threadIdx.x"))
    else:
        outer, inner = s[out].split(fused, factor=8)
        s[out].parallel(outer)
        s[out].vectorize(inner)
    return s


for target in ["cuda", "llvm"]:
    for channels, size in [(96, 56), (8, 8)]:
        data = te.placeholder((1, channels, size, size), name="data")
        bias = te.placeholder((channels,), name="bias")
        out = bias_relu6(data, bias)
        with tvm.target.Target(target):
            s = schedule_injective(out)
        print(tvm.lower(s, [data, bias, out], simple_mode=True))
