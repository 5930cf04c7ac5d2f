# Winograd F(2x2, 3x3) convolution in the style of topi.nn's winograd
# conv2d: the transform matrices are constant tensors built with
# tvm.tir.Select (attrs mark them as constant matrices), then the kernel
# and input tiles are transformed, multiplied per tile position and
# transformed back. ResNet-50 res2 3x3 (1x64x56x56, pad 1); the run uses
# 1x4x8x8 with 4 filters.
import tvm
from tvm import te
from tvm.topi.utils import get_const_int, get_const_tuple

B_T = [[1.0, 0.0, -1.0, 0.0], [0.0, 1.0, 1.0, 0.0], [0.0, -1.0, 1.0, 0.0], [0.0, 1.0, 0.0, -1.0]]
G = [[1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.0, 1.0]]
A_T = [[1.0, 1.0, 1.0, 0.0], [0.0, 1.0, -1.0, -1.0]]


def const_matrix(rows, name):
    n_rows = len(rows)
    n_cols = len(rows[0])
    idxm = tvm.tir.indexmod

    def select_array(i, j):
        now = tvm.tir.const(0.0, "float32")
        for ii in range(n_rows):
            for jj in range(n_cols):
                now = tvm.tir.Select(
                    tvm.tir.all(idxm(i, n_rows) == ii, idxm(j, n_cols) == jj),
                    tvm.tir.const(rows[ii][jj], "float32"),
                    now,
                )
        return now

    return te.compute((n_rows, n_cols), select_array, name=name, attrs={"const_matrix": True})


def winograd_conv(data, kernel):
    n, c, h, w = get_const_tuple(data.shape)
    f = get_const_int(kernel.shape[0])
    m, r, alpha = 2, 3, 4
    nh = (h + m - 1) // m
    nw = (w + m - 1) // m
    tiles = nh * nw
    padded = te.compute(
        (n, c, nh * m + 2, nw * m + 2),
        lambda b, ch, y, x: tvm.tir.if_then_else(
            tvm.tir.all(y >= 1, y <= h, x >= 1, x <= w),
            data[b, ch, y - 1, x - 1],
            tvm.tir.const(0.0, "float32"),
        ),
        name="data_pad",
    )
    bt = const_matrix(B_T, "B")
    g = const_matrix(G, "G")
    at = const_matrix(A_T, "A")
    r_kh = te.reduce_axis((0, r), name="r_kh")
    r_kw = te.reduce_axis((0, r), name="r_kw")
    U = te.compute(
        (alpha, alpha, f, c),
        lambda eps, nu, co, ci: te.sum(
            kernel[co, ci, r_kh, r_kw] * g[eps, r_kh] * g[nu, r_kw], axis=[r_kh, r_kw]
        ),
        name="kernel_pack",
    )
    d_tile = te.compute(
        (c, tiles, alpha, alpha),
        lambda ci, p, eps, nu: padded[0, ci, (p // nw) * m + eps, (p % nw) * m + nu],
        name="d",
    )
    r_a = te.reduce_axis((0, alpha), name="r_a")
    r_b = te.reduce_axis((0, alpha), name="r_b")
    V = te.compute(
        (alpha, alpha, c, tiles),
        lambda eps, nu, ci, p: te.sum(
            d_tile[ci, p, r_a, r_b] * bt[eps, r_a] * bt[nu, r_b], axis=[r_a, r_b]
        ),
        name="data_pack",
    )
    rc = te.reduce_axis((0, c), name="rc")
    M = te.compute(
        (alpha, alpha, f, tiles),
        lambda eps, nu, co, p: te.sum(U[eps, nu, co, rc] * V[eps, nu, rc, p], axis=rc),
        name="bgemm",
    )
    r_a2 = te.reduce_axis((0, alpha), name="r_a")
    r_b2 = te.reduce_axis((0, alpha), name="r_b")
    Y = te.compute(
        (f, tiles, m, m),
        lambda co, p, vh, vw: te.sum(
            M[r_a2, r_b2, co, p] * at[vh, r_a2] * at[vw, r_b2], axis=[r_a2, r_b2]
        ),
        name="inverse",
    )
    out = te.compute(
        (n, f, h, w),
        lambda b, co, y, x: Y[co, (y // m) * nw + x // m, y % m, x % m],
        name="conv2d_winograd",
        tag="conv2d_nchw_winograd",
    )
    return [padded, bt, g, at, d_tile], out


for channels, size in [(64, 56), (4, 8)]:
    data = te.placeholder((1, channels, size, size), name="data")
    kernel = te.placeholder((channels, channels, 3, 3), name="kernel")
    inlined, out = winograd_conv(data, kernel)
    s = te.create_schedule(out.op)
    for t in inlined:
        s[t].compute_inline()
    print(tvm.lower(s, [data, kernel, out], simple_mode=True))
