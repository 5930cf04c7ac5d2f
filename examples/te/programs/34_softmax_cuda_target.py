# Softmax with a CUDA schedule chosen under a target: inside
# `with tvm.target.Target("cuda")`, the thread count comes from
# Target.current(), one thread computes one row's maximum and sum, and the
# normalised output is fused and spread over blocks of threads. BERT-base
# attention probabilities, 12 x 128 rows of 128; the run uses 32 rows of 16.
import tvm
from tvm import te


def softmax(x):
    m, n = x.shape
    k1 = te.reduce_axis((0, n), name="k")
    max_elem = te.compute((m,), lambda i: te.max(x[i, k1], axis=k1), name="T_softmax_maxelem")
    k2 = te.reduce_axis((0, n), name="k")
    expsum = te.compute(
        (m,), lambda i: te.sum(te.exp(x[i, k2] - max_elem[i]), axis=k2), name="T_softmax_expsum"
    )
    return te.compute(
        (m, n),
        lambda i, j: te.exp(x[i, j] - max_elem[i]) / expsum[i],
        name="T_softmax_norm",
        tag="softmax_output",
    )


def schedule_softmax(out):
    target = tvm.target.Target.current(allow_none=False)
    num_thread = min(target.max_num_threads, 32)
    s = te.create_schedule(out.op)
    inputs = {t.op.name: t for t in out.op.input_tensors}
    max_elem = inputs["T_softmax_maxelem"]
    expsum = inputs["T_softmax_expsum"]
    for stage in [max_elem, expsum]:
        bx, tx = s[stage].split(stage.op.axis[0], factor=num_thread)
        s[stage].bind(bx, te.thread_axis("blockIdx.x"))
        s[stage].bind(tx, te.thread_axis("threadIdx.x"))
    fused = s[out].fuse(*s[out].op.axis)
    bx, tx = s[out].split(fused, factor=num_thread)
    s[out].bind(bx, te.thread_axis("blockIdx.x"))
    s[out].bind(tx, te.thread_axis("threadIdx.x"))
    return s


with tvm.target.Target("cuda"):
    for rows, cols in [(12 * 128, 128), (32, 16)]:
        x = te.placeholder((rows, cols), name="x")
        out = softmax(x)
        s = schedule_softmax(out)
        print(tvm.lower(s, [x, out], simple_mode=True))
