# TVM's IR builder in te.extern bodies: loops, conditions, a local buffer,
# lets, one flat index into a 2-D buffer, and a scatter at indices read
# from memory; checked against references written here in plain Python.
import tvm
from tvm import te


def run(outs, ins, values):
    s = te.create_schedule([o.op for o in outs])
    f = tvm.build(s, ins + outs, target="llvm")
    results = [tvm.nd.empty([int(d) for d in o.shape], o.dtype, tvm.cpu(0)) for o in outs]
    f(*([tvm.nd.array(v) for v in values] + results))
    return [r.numpy().tolist() if hasattr(r.numpy(), "tolist") else r.numpy() for r in results]


def prefix_max(data_buf, out_buf):
    # out[r, c] = max(data[r, 0..c]) with a one-element running buffer,
    # the copy of the first column through one flat index.
    ib = tvm.tir.ir_builder.create()
    data = ib.buffer_ptr(data_buf)
    out = ib.buffer_ptr(out_buf)
    rows, cols = data_buf.shape
    best = ib.allocate("float32", (1,), name="best", scope="local")
    with ib.for_range(0, rows, name="r") as r:
        out[r * cols] = data[r, 0]
        best[0] = data[r, 0]
        with ib.for_range(1, cols, name="c") as c:
            with ib.if_scope(data[r, c] > best[0]):
                best[0] = data[r, c]
            with ib.else_scope():
                best[0] = best[0] + 0.0
            out[r, c] = best[0]
    return ib.get()


def scatter_add(base_buf, idx_buf, upd_buf, out_buf):
    ib = tvm.tir.ir_builder.create()
    base = ib.buffer_ptr(base_buf)
    idx = ib.buffer_ptr(idx_buf)
    upd = ib.buffer_ptr(upd_buf)
    out = ib.buffer_ptr(out_buf)
    n = base_buf.shape[0]
    with ib.for_range(0, n) as i:
        out[i] = base[i]
    with ib.new_scope():
        with ib.for_range(0, idx_buf.shape[0], kind="parallel") as k:
            target = ib.let("target", idx[k])
            out[target] += upd[k]
    return ib.get()


d_v = [[0.5, -1.0, 2.0, 1.5], [-3.0, -2.0, -2.5, 4.0], [1.0, 1.0, 0.0, 1.0]]
d = te.placeholder((3, 4), name="d")
pm = te.extern((3, 4), [d], lambda ins, outs: prefix_max(ins[0], outs[0]), name="prefix_max", tag="scan_max")
print(pm.op.tag, pm.op.name)
want = [[max(row[: c + 1]) for c in range(4)] for row in d_v]
print("prefix_max", run([pm], [d], [d_v])[0] == want)

b = te.placeholder((5,), name="b")
ix = te.placeholder((4,), name="ix", dtype="int32")
up = te.placeholder((4,), name="up")
sc = te.extern((5,), [b, ix, up], lambda ins, outs: scatter_add(ins[0], ins[1], ins[2], outs[0]), name="scatter_add")
b_v, ix_v, up_v = [1.0, 2.0, 3.0, 4.0, 5.0], [4, 0, 4, 2], [0.5, 0.25, 1.0, 2.0]
want = list(b_v)
for k in range(4):
    want[ix_v[k]] += up_v[k]
print("scatter_add", run([sc], [b, ix, up], [b_v, ix_v, up_v])[0] == want)
s = te.create_schedule(sc.op)
print(tvm.lower(s, [b, ix, up, sc], simple_mode=True))

ib = tvm.tir.ir_builder.create()
x = ib.allocate("float32", 4, name="x")
for bad in ["else", "dtype", "get"]:
    try:
        if bad == "else":
            ib.else_scope()
        elif bad == "dtype":
            x[0] = 1
        else:
            with ib.for_range(0, 4) as i:
                ib.get()
    except RuntimeError as err:
        print(bad, "RuntimeError", err)
    except ValueError as err:
        print(bad, "ValueError", err)
