# TOPI's way of scheduling a fused graph: every compute carries a tag
# (tag_scope or tag=), and a traversal from the output inlines the
# injective and broadcast stages, checking `isinstance(t.op,
# te.ComputeOp)` and the tag of each operation, then schedules the
# convolution it finds by its tag. Conv + batch-norm scale/shift + ReLU of
# ResNet-50 (1x128x28x28); the run uses 1x4x6x6.
import tvm
from tvm import te
from tvm.topi import tag


@tvm.te.tag_scope(tag=tag.ELEMWISE)
def relu(x):
    return te.compute(x.shape, lambda *i: te.max(x(*i), tvm.tir.const(0, x.dtype)))


def scale_shift(x, scale, shift):
    with tvm.te.tag_scope(tag=tag.BROADCAST):
        return te.compute(
            x.shape, lambda n, c, h, w: x[n, c, h, w] * scale[c] + shift[c], name="scale_shift"
        )


def conv2d(data, kernel):
    n, c, h, w = data.shape
    f = kernel.shape[0]
    with tvm.te.tag_scope(tag=tag.INJECTIVE + ",pad"):
        padded = te.compute(
            (n, c, h + 2, w + 2),
            lambda b, ch, y, x: tvm.tir.if_then_else(
                tvm.tir.all(y >= 1, y <= h, x >= 1, x <= w),
                data[b, ch, y - 1, x - 1],
                tvm.tir.const(0.0, data.dtype),
            ),
            name="pad_temp",
        )
    rc = te.reduce_axis((0, c), name="rc")
    ry = te.reduce_axis((0, 3), name="ry")
    rx = te.reduce_axis((0, 3), name="rx")
    return te.compute(
        (n, f, h, w),
        lambda b, ff, y, x: te.sum(padded[b, rc, y + ry, x + rx] * kernel[ff, rc, ry, rx], axis=[rc, ry, rx]),
        name="conv2d_nchw",
        tag="conv2d_nchw",
    )


def schedule(outs):
    s = te.create_schedule([x.op for x in outs])
    visited = []

    def traverse(op):
        if op in visited:
            return
        visited.append(op)
        if tag.is_injective(op.tag) or tag.is_broadcast(op.tag):
            if op not in s.outputs:
                s[op].compute_inline()
            for t in op.input_tensors:
                if isinstance(t.op, te.ComputeOp):
                    traverse(t.op)
        elif op.tag == "conv2d_nchw":
            conv = op.output(0)
            n, f, y, x = s[conv].op.axis
            fo, fi = s[conv].split(f, factor=2)
            out = outs[0]
            if conv.op not in s.outputs:
                s[conv].compute_at(s[out], s[out].op.axis[1])
            for t in op.input_tensors:
                if isinstance(t.op, te.ComputeOp):
                    traverse(t.op)
        else:
            raise RuntimeError("Unsupported operator: %s" % op.tag)

    traverse(outs[0].op)
    return s


def count_placeholders(t):
    """The placeholders `t` reads, counted once each."""
    seen = []
    stack = [t.op]
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.append(op)
        stack.extend(x.op for x in op.input_tensors)
    return len([op for op in seen if isinstance(op, te.PlaceholderOp)])


for channels, size in [(128, 28), (4, 6)]:
    data = te.placeholder((1, channels, size, size), name="data")
    kernel = te.placeholder((channels, channels, 3, 3), name="kernel")
    scale = te.placeholder((channels,), name="scale")
    shift = te.placeholder((channels,), name="shift")
    out = relu(scale_shift(conv2d(data, kernel), scale, shift))
    assert out.op.tag == tag.ELEMWISE
    assert count_placeholders(out) == 4
    s = schedule([out])
    print(tvm.lower(s, [data, kernel, scale, shift, out], simple_mode=True))
