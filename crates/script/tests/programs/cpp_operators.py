# TOPI's C++-only operators (rms_norm, nll_loss, space_to_batch_nd,
# batch_to_space_nd, einsum, bilinear_sample_nchw), run and checked against
# references written here in plain Python.
import tvm
from tvm import te, topi


def run(outs, ins, values):
    """Builds `outs` from `ins`, runs it on `values` and returns the
    outputs as nested lists."""
    s = te.create_schedule([o.op for o in outs])
    f = tvm.build(s, ins + outs, target="llvm")
    args = [tvm.nd.array(v) for v in values]
    results = [tvm.nd.empty([int(d) for d in o.shape], o.dtype, tvm.cpu(0)) for o in outs]
    f(*(args + results))
    # Nested lists under both front ends (CPython's `numpy()` is an array).
    return [r.numpy().tolist() if hasattr(r.numpy(), "tolist") else r.numpy() for r in results]


def close(a, b):
    if isinstance(a, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    return abs(a - b) <= 1e-4 * (1 + abs(b))


# rms_norm over the last axis.
x_v = [[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0, 0.0]]
w_v = [1.0, 0.5, 2.0, -1.0]
x = te.placeholder((2, 4), name="x")
w = te.placeholder((4,), name="w")
y = topi.nn.rms_norm(x, w, (1,), 1e-6)
print([t.op.name for t in [y, y.op.input_tensors[0]]], y.op.tag)
ref = []
for row in x_v:
    ms = sum(v * v for v in row) / 4.0
    r = 1.0 / (ms + 1e-6) ** 0.5
    ref.append([v * r * wv for v, wv in zip(row, w_v)])
print("rms_norm", close(run([y], [x, w], [x_v, w_v])[0], ref))

# nll_loss: mean, sum and none, with an ignored target.
p_v = [[0.1, 0.2, 0.7], [0.3, 0.3, 0.4], [0.5, 0.25, 0.25]]
t_v = [2, 0, 1]
cw_v = [1.0, 2.0, 0.5]
p = te.placeholder((3, 3), name="p")
t = te.placeholder((3,), name="t", dtype="int32")
cw = te.placeholder((3,), name="cw")
for reduction in ["mean", "sum", "none"]:
    out = topi.nn.nll_loss(p, t, cw, reduction, 1)
    terms = [0.0 if c == 1 else -p_v[n][c] * cw_v[c] for n, c in enumerate(t_v)]
    weights = [0.0 if c == 1 else cw_v[c] for c in t_v]
    want = {"mean": sum(terms) / sum(weights), "sum": sum(terms), "none": terms}[reduction]
    got = run([out], [p, t, cw], [p_v, t_v, cw_v])[0]
    print("nll_loss", reduction, [int(d) for d in out.shape], close(got, want))

# space_to_batch_nd, then batch_to_space_nd back, against TensorFlow's rule
# (NHWC): out[(by * bw + bx) * N + n, i, j, c] = padded[n, i * bh + by,
# j * bw + bx, c].
n_, h_, w_ = 2, 4, 6
a_v = [[[[float((n * 10 + i) * 10 + j)] for j in range(w_)] for i in range(h_)] for n in range(n_)]
a = te.placeholder((n_, h_, w_, 1), name="a")
sb = topi.nn.space_to_batch_nd(a, [2, 2], [0, 1], [0, 1], 0.0)
back = topi.nn.batch_to_space_nd(sb, [2, 2], [0, 1], [0, 1])
print([int(d) for d in sb.shape], [int(d) for d in back.shape])
got_sb, got_back = run([sb, back], [a], [a_v])
want_sb = []
for b in range(4 * n_):
    blk, n = b // n_, b % n_
    by, bx = blk // 2, blk % 2
    plane = []
    for i in range(h_ // 2):
        row = []
        for j in range((w_ + 2) // 2):
            jj = j * 2 + bx - 1
            row.append([a_v[n][i * 2 + by][jj][0] if 0 <= jj < w_ else 0.0])
        plane.append(row)
    want_sb.append(plane)
print("space_to_batch_nd", close(got_sb, want_sb), "round trip", close(got_back, a_v))

# einsum: a batched matmul, a trace, an outer product and a broadcast
# ellipsis, against loops.
q_v = [[[float(b + i * 2 - k) for k in range(3)] for i in range(2)] for b in range(2)]
k_v = [[[float(b * k + j) for k in range(3)] for j in range(4)] for b in range(2)]
q = te.placeholder((2, 2, 3), name="q")
kk = te.placeholder((2, 4, 3), name="kk")
att = topi.einsum("bik,bjk->bij", q, kk)
want = [[[sum(q_v[b][i][c] * k_v[b][j][c] for c in range(3)) for j in range(4)] for i in range(2)] for b in range(2)]
print("einsum bik,bjk->bij", att.op.tag, [v.var.name for v in att.op.reduce_axis], close(run([att], [q, kk], [q_v, k_v])[0], want))
m_v = [[float(i * 3 + j) for j in range(3)] for i in range(3)]
m = te.placeholder((3, 3), name="m")
tr = topi.einsum("ii", m)
print("einsum ii", [int(d) for d in tr.shape], close(run([tr], [m], [m_v])[0], 12.0))
u = te.placeholder((3,), name="u")
v = te.placeholder((2,), name="v")
outer = topi.einsum("i,j", u, v)
print("einsum i,j", close(run([outer], [u, v], [[1.0, 2.0, 3.0], [4.0, 5.0]])[0], [[4.0, 5.0], [8.0, 10.0], [12.0, 15.0]]))
e1 = te.placeholder((1, 2, 3), name="e1")
e2 = te.placeholder((3, 4), name="e2")
ell = topi.einsum("...ij,jk->...ik", e1, e2)
e1_v = [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]]
e2_v = [[float(j + k) for k in range(4)] for j in range(3)]
want = [[[sum(e1_v[0][i][j] * e2_v[j][k] for j in range(3)) for k in range(4)] for i in range(2)]]
print("einsum ...ij,jk->...ik", [int(d) for d in ell.shape], close(run([ell], [e1, e2], [e1_v, e2_v])[0], want))
for bad in [("ij,jk", [q]), ("i->j", [u]), ("ij->ii", [m])]:
    try:
        topi.einsum(bad[0], *bad[1])
    except ValueError as err:
        print("ValueError", bad[0])

# bilinear_sample_nchw at fractional points, with neighbours outside.
img_v = [[[[1.0, 2.0], [3.0, 4.0]]]]
img = te.placeholder((1, 1, 2, 2), name="img")
ys = te.placeholder((3,), name="ys")
xs = te.placeholder((3,), name="xs")
samp = te.compute(
    (3,),
    lambda i: topi.cpp.utils.bilinear_sample_nchw(img, (0, 0, ys[i], xs[i]), 1, 1),
    name="samp",
)
got = run([samp], [img, ys, xs], [img_v, [0.5, 0.0, 1.5], [0.5, 0.25, 0.0]])[0]
print("bilinear_sample_nchw", close(got, [2.5, 1.25, 1.5]))
