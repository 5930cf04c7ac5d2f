"""Prints the HLO corpus under examples/hlo/corpus/ from small JAX programs.

Run with a Python that has JAX installed (not needed by the tests):

    python examples/hlo/jax/corpus.py examples/hlo/corpus [NAME ...]

(with names, only those programs). The programs cover what models are made
of beyond a plain MLP: mixture of experts (top-k routing, gather and
scatter dispatch), rotary and grouped-query attention, convolutions of
every grouping (feature groups, batch groups, dilations, transposed),
scans, while loops and conditionals, sort and top-k, scatter, FFT, random
numbers (threefry and rbg), collectives under `shard_map` over four CPU
devices, normalisations, softmax, embeddings and gradients of small models.
The script asks XLA for four host devices itself (`XLA_FLAGS=
--xla_force_host_platform_device_count=4`, unless XLA_FLAGS is set).

Each program is written twice, as `examples/hlo/jax/generate.py` writes
its own: lowered (`jax_<name>.hlo`, the module before XLA's optimisation)
and compiled (`jax_<name>.compiled.hlo`,
`jax.jit(f).lower(...).compile().as_text()`, with XLA's fusions and the
stack-frame sections JAX appends). The text is kept exactly as JAX prints
it. Shapes are small so the files stay small.
"""

import os
import sys
from functools import partial
from pathlib import Path

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

f32 = jnp.float32
i32 = jnp.int32

MESH = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))


def _shard_map(f, in_specs, out_specs):
    return jax.shard_map(f, mesh=MESH, in_specs=in_specs, out_specs=out_specs, check_vma=False)


# Mixture of experts ---------------------------------------------------------


def moe_topk_routing(x, router, w_in, w_out):
    """Top-2 routing with dense dispatch through one-hot masks."""
    logits = x @ router
    gates, experts = lax.top_k(logits, 2)
    gates = jax.nn.softmax(gates, -1)
    mask = jax.nn.one_hot(experts, router.shape[1], dtype=f32)
    dispatch = jnp.einsum("tk,tke->te", gates, mask)
    h = jax.nn.relu(jnp.einsum("td,edf->tef", x, w_in))
    y = jnp.einsum("tef,efd->ted", h, w_out)
    return jnp.einsum("te,ted->td", dispatch, y)


def moe_gather_dispatch(x, router, w_in, w_out):
    """Top-1 routing: tokens sorted by expert, gathered into per-expert
    slots of fixed capacity, and scattered back with their gates."""
    t, d = x.shape
    e = router.shape[1]
    cap = t // e
    logits = x @ router
    expert = jnp.argmax(logits, -1)
    gate = jnp.max(jax.nn.softmax(logits, -1), -1)
    order = jnp.argsort(expert)
    pos = jnp.cumsum(jax.nn.one_hot(expert, e, dtype=i32), 0)[jnp.arange(t), expert] - 1
    slot = jnp.where(pos < cap, expert * cap + pos, e * cap)
    buf = jnp.zeros((e * cap + 1, d), f32).at[slot].set(x)[:-1].reshape(e, cap, d)
    h = jax.nn.gelu(jnp.einsum("ecd,edf->ecf", buf, w_in))
    y = jnp.einsum("ecf,efd->ecd", h, w_out).reshape(e * cap, d)
    y = jnp.concatenate([y, jnp.zeros((1, d), f32)])
    out = y[slot] * gate[:, None]
    return out, order


def moe_scatter_combine(x, expert, gate, w):
    """Per-expert sums of routed tokens (segment sums), then a combine."""
    e = w.shape[0]
    sums = jnp.zeros((e, x.shape[1]), f32).at[expert].add(x * gate[:, None])
    counts = jnp.zeros((e,), f32).at[expert].add(1.0)
    means = sums / jnp.maximum(counts, 1.0)[:, None]
    return jnp.einsum("ed,edf->ef", means, w)


def moe_grad(x, router, w):
    def loss(router, w):
        logits = x @ router
        g, ex = lax.top_k(jax.nn.softmax(logits, -1), 1)
        y = jnp.einsum("td,tdf->tf", x, w[ex[:, 0]])
        return jnp.sum((y * g) ** 2)

    return jax.grad(loss, (0, 1))(router, w)


# Attention ------------------------------------------------------------------


def _rope(x, pos):
    d = x.shape[-1] // 2
    freq = 1.0 / (10000.0 ** (jnp.arange(d, dtype=f32) / d))
    ang = pos[:, None].astype(f32) * freq[None, :]
    cos, sin = jnp.cos(ang)[:, None, :], jnp.sin(ang)[:, None, :]
    x1, x2 = x[..., :d], x[..., d:]
    return jnp.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1)


def rotary_attention(x, wq, wk, wv):
    s = x.shape[0]
    q = (x @ wq).reshape(s, 4, 8)
    k = (x @ wk).reshape(s, 4, 8)
    v = (x @ wv).reshape(s, 4, 8)
    pos = jnp.arange(s)
    q, k = _rope(q, pos), _rope(k, pos)
    a = jnp.einsum("qhd,khd->hqk", q, k) / jnp.sqrt(8.0)
    a = jnp.where(jnp.tril(jnp.ones((s, s), bool)), a, -jnp.inf)
    return jnp.einsum("hqk,khd->qhd", jax.nn.softmax(a, -1), v).reshape(s, 32)


def gqa_attention(x, wq, wk, wv):
    """Grouped-query attention: 8 query heads share 2 key/value heads."""
    b, s, _ = x.shape
    q = (x @ wq).reshape(b, s, 2, 4, 4)
    k = (x @ wk).reshape(b, s, 2, 4)
    v = (x @ wv).reshape(b, s, 2, 4)
    a = jnp.einsum("bqgnd,bkgd->bgnqk", q, k) * 0.5
    a = jax.nn.softmax(a, -1)
    return jnp.einsum("bgnqk,bkgd->bqgnd", a, v).reshape(b, s, 32)


def gqa_repeat_kv(x, wq, wk, wv):
    """Grouped-query attention written with jnp.repeat of the keys."""
    s = x.shape[0]
    q = (x @ wq).reshape(s, 8, 4)
    k = jnp.repeat((x @ wk).reshape(s, 2, 4), 4, axis=1)
    v = jnp.repeat((x @ wv).reshape(s, 2, 4), 4, axis=1)
    a = jax.nn.softmax(jnp.einsum("qhd,khd->hqk", q, k), -1)
    return jnp.einsum("hqk,khd->qhd", a, v)


def kv_cache_decode(cache_k, cache_v, q, k, v, step):
    """One decode step: the new key/value written at `step`, attention over
    the cache masked past it."""
    cache_k = lax.dynamic_update_slice(cache_k, k[None], (step, 0, 0))
    cache_v = lax.dynamic_update_slice(cache_v, v[None], (step, 0, 0))
    a = jnp.einsum("hd,shd->hs", q, cache_k)
    a = jnp.where(jnp.arange(cache_k.shape[0])[None, :] <= step, a, -1e9)
    return jnp.einsum("hs,shd->hd", jax.nn.softmax(a, -1), cache_v), cache_k, cache_v


def attention_grad(x, wq, wk):
    def loss(wq, wk):
        q, k = _rope((x @ wq).reshape(8, 2, 4), jnp.arange(8)), (x @ wk).reshape(8, 2, 4)
        return jnp.sum(jax.nn.softmax(jnp.einsum("qhd,khd->hqk", q, k), -1) ** 2)

    return jax.grad(loss, (0, 1))(wq, wk)


# Convolutions ---------------------------------------------------------------

NHWC = ("NHWC", "HWIO", "NHWC")


def conv_depthwise(x, k):
    return lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=NHWC, feature_group_count=x.shape[-1])


def conv_feature_groups(x, k):
    return lax.conv_general_dilated(x, k, (2, 1), ((1, 1), (0, 2)), dimension_numbers=NHWC, feature_group_count=2)


def conv_batch_groups(x, k):
    return lax.conv_general_dilated(x, k, (1, 1), "VALID", dimension_numbers=NHWC, batch_group_count=2)


def conv_dilations(x, k):
    a = lax.conv_general_dilated(x, k, (1, 1), "SAME", rhs_dilation=(2, 3), dimension_numbers=NHWC)
    b = lax.conv_general_dilated(x, k, (2, 2), ((2, 2), (1, 1)), lhs_dilation=(2, 1), rhs_dilation=(1, 2), dimension_numbers=NHWC)
    return a, b


def conv_transposed_1d(x, k):
    return lax.conv_transpose(x, k, (3,), "VALID", dimension_numbers=("NWC", "WIO", "NWC"))


def conv_nchw_3d(x, k):
    return lax.conv_general_dilated(x, k, (1, 2, 1), "SAME", dimension_numbers=("NCDHW", "OIDHW", "NCDHW"))


def conv_grouped_grad(x, k):
    """Gradients of a grouped convolution: the kernel's uses batch groups."""

    def loss(x, k):
        y = lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=NHWC, feature_group_count=2)
        return jnp.sum(jnp.tanh(y))

    return jax.grad(loss, (0, 1))(x, k)


def conv_depthwise_grad(x, k):
    def loss(k):
        return jnp.sum(conv_depthwise(x, k) ** 2)

    return jax.grad(loss)(k)


def conv1d_stack_grad(x, ks):
    def loss(ks):
        h = x
        for k in ks:
            h = jax.nn.relu(lax.conv_general_dilated(h, k, (1,), "SAME", dimension_numbers=("NWC", "WIO", "NWC")))
        return jnp.mean(h**2)

    return jax.grad(loss)(ks)


# Scans, loops and conditionals ----------------------------------------------


def scan_rnn(xs, w, u):
    def step(h, x):
        h = jnp.tanh(x @ w + h @ u)
        return h, h

    return lax.scan(step, jnp.zeros((u.shape[0],), f32), xs)


def scan_reverse_unrolled(xs):
    def step(c, x):
        c = 0.9 * c + x
        return c, c

    return lax.scan(step, jnp.zeros(xs.shape[1:], f32), xs, reverse=True, unroll=2)


def cumulative_ops(x):
    return jnp.cumsum(x, 1), jnp.cumsum(x[::-1], 0)[::-1], lax.cumlogsumexp(x, 0), lax.cummin(x, 1)


def associative_scan(x):
    return lax.associative_scan(jnp.add, x, axis=0), lax.associative_scan(jnp.maximum, x, axis=1)


def fori_loop_update(x):
    def body(i, c):
        return c.at[i].set(c[i - 1] * 0.5 + c[i])

    return lax.fori_loop(1, x.shape[0], body, x)


def while_newton(x):
    """Square roots by Newton's method until they converge."""

    def cond(c):
        y, n = c
        return jnp.logical_and(jnp.max(jnp.abs(y * y - x)) > 1e-4, n < 20)

    def body(c):
        y, n = c
        return 0.5 * (y + x / y), n + 1

    return lax.while_loop(cond, body, (jnp.ones_like(x), 0))


def cond_branches(p, x, y):
    return lax.cond(p, lambda a, b: (a @ b, a.sum()), lambda a, b: (b.T @ a.T, -a.sum()), x, y)


def switch_branches(i, x):
    return lax.switch(i, [lambda v: v[::-1], lambda v: jnp.cumsum(v), lambda v: jnp.sort(v), lambda v: v * 2.0], x)


def nested_loop_cond(x):
    def inner(i, c):
        return lax.cond(i % 2 == 0, lambda v: v + 1.0, lambda v: jnp.roll(v, 1), c)

    def outer(j, c):
        return lax.fori_loop(0, 3, inner, c) * 0.5

    return lax.fori_loop(0, 2, outer, x)


# Sort and top-k ------------------------------------------------------------


def sort_keys_values(k1, k2, v):
    return lax.sort((k1, k2, v), dimension=1, num_keys=2)


def argsort_stable(x):
    return jnp.argsort(x, axis=0, stable=True), jnp.argsort(-x, axis=1, descending=False)


def top_k_batched(x):
    vals, idx = lax.top_k(x, 4)
    return vals, idx, jnp.take_along_axis(x, idx, -1)


def approx_max_k(x):
    return lax.approx_max_k(x, 3), lax.approx_min_k(x, 2, reduction_dimension=0)


def median_quantile(x):
    return jnp.median(x, 0), jnp.quantile(x, 0.25, axis=1)


# Scatter ---------------------------------------------------------------------


def scatter_modes(x, idx, upd):
    return x.at[idx].set(upd), x.at[idx].add(upd), x.at[idx].min(upd), x.at[idx].max(upd)


def scatter_2d_points(grid, rows, cols, vals):
    return grid.at[rows, cols].add(vals), grid.at[rows, :].set(0.0), grid.at[:, cols].multiply(2.0)


def scatter_batched_vmap(x, idx, upd):
    """A scatter under vmap: batching dimensions on operand and indices."""
    return jax.vmap(lambda a, i, u: a.at[i].add(u))(x, idx, upd)


def segment_ops(x, seg):
    return jax.ops.segment_sum(x, seg, 4), jax.ops.segment_max(x, seg, 4), jax.ops.segment_min(x, seg, 4)


def histogram(x):
    bins = jnp.clip((x * 4).astype(i32), 0, 7)
    return jnp.zeros(8, i32).at[bins].add(1), jnp.bincount(bins.ravel(), length=8)


# FFT -------------------------------------------------------------------------


def fft_complex(x, y):
    z = lax.complex(x, y)
    return jnp.fft.fft(z, axis=0), jnp.fft.ifft(z, axis=1)


def fft_2d_real(x):
    z = jnp.fft.rfft2(x)
    return jnp.abs(z), jnp.fft.irfft2(z, s=x.shape[1:]), jnp.fft.fftn(x.astype(jnp.complex64), axes=(0, 1, 2))


def fft_convolve(x, k):
    n = x.shape[-1] + k.shape[-1] - 1
    return jnp.fft.irfft(jnp.fft.rfft(x, n) * jnp.fft.rfft(k, n), n)


# Random numbers --------------------------------------------------------------


def rng_threefry(seed):
    key = jax.random.key(seed, impl="threefry2x32")
    k1, k2, k3 = jax.random.split(key, 3)
    return jax.random.uniform(k1, (4, 4)), jax.random.bernoulli(k2, 0.3, (8,)), jax.random.permutation(k3, 6)


def rng_rbg(seed):
    key = jax.random.key(seed, impl="rbg")
    k1, k2 = jax.random.split(key)
    return jax.random.normal(k1, (4, 8)), jax.random.randint(k2, (6,), 0, 10)


def rng_unsafe_rbg(seed):
    key = jax.random.key(seed, impl="unsafe_rbg")
    return jax.random.gumbel(key, (3, 5))


def dropout(seed, x):
    keep = jax.random.bernoulli(jax.random.key(seed, impl="rbg"), 0.9, x.shape)
    return jnp.where(keep, x / 0.9, 0.0)


# Collectives under shard_map -------------------------------------------------


def shard_psum(x):
    return _shard_map(lambda v: lax.psum(v.sum(0), "x"), P("x"), P())(x)


def shard_all_gather(x):
    return _shard_map(lambda v: lax.all_gather(v * 2.0, "x", tiled=True), P("x"), P())(x)


def shard_psum_scatter(x):
    return _shard_map(lambda v: lax.psum_scatter(v, "x", scatter_dimension=0, tiled=True), P(None, "x"), P("x"))(x)


def shard_all_to_all(x):
    return _shard_map(lambda v: lax.all_to_all(v, "x", 1, 0, tiled=True), P("x"), P(None, "x"))(x)


def shard_ppermute(x):
    perm = [(i, (i + 1) % 4) for i in range(4)]
    return _shard_map(lambda v: lax.ppermute(v, "x", perm), P("x"), P("x"))(x)


def shard_data_parallel_grad(w, x, y):
    def step(w, x, y):
        g = jax.grad(lambda w: jnp.mean((jnp.tanh(x @ w) - y) ** 2))(w)
        return w - 0.1 * lax.pmean(g, "x")

    return _shard_map(step, (P(), P("x"), P("x")), P())(w, x, y)


def shard_ring_matmul(x, w):
    """A ring of ppermutes moving blocks of the weight around the devices."""

    def body(xb, wb):
        perm = [(i, (i + 1) % 4) for i in range(4)]
        acc = jnp.zeros((xb.shape[0], wb.shape[1]), f32)
        for _ in range(4):
            acc = acc + xb @ wb
            wb = lax.ppermute(wb, "x", perm)
        return acc

    return _shard_map(body, (P("x"), P()), P("x"))(x, w)


# Normalisations, softmax, embeddings ----------------------------------------


def layer_norm(x, g, b):
    m = x.mean(-1, keepdims=True)
    v = x.var(-1, keepdims=True)
    return (x - m) * lax.rsqrt(v + 1e-5) * g + b


def rms_norm_grad(x, g):
    def loss(x, g):
        y = x * lax.rsqrt(jnp.mean(x * x, -1, keepdims=True) + 1e-6) * g
        return jnp.sum(y**2)

    return jax.grad(loss, (0, 1))(x, g)


def group_norm(x, g, b):
    n, h, w, c = x.shape
    y = x.reshape(n, h, w, 2, c // 2)
    m = y.mean((1, 2, 4), keepdims=True)
    v = y.var((1, 2, 4), keepdims=True)
    return ((y - m) / jnp.sqrt(v + 1e-5)).reshape(x.shape) * g + b


def softmax_variants(x):
    return jax.nn.softmax(x, -1), jax.nn.log_softmax(x, 0), jax.scipy.special.logsumexp(x, 1)


def embedding_lookup(tok, table, pos_table):
    return table[tok] + pos_table[jnp.arange(tok.shape[1])][None], jnp.take(table, tok, axis=0, mode="clip")


def embedding_grad(tok, table):
    def loss(table):
        return jnp.sum(jnp.tanh(table[tok]) ** 2)

    return jax.grad(loss)(table)


def cross_entropy_grad(logits, labels):
    def loss(logits):
        lp = jax.nn.log_softmax(logits, -1)
        return -jnp.mean(jnp.take_along_axis(lp, labels[:, None], -1))

    return jax.grad(loss)(logits)


# Gradients of small models ---------------------------------------------------


def mlp_adam_step(w1, w2, m1, m2, x, y):
    def loss(w1, w2):
        return jnp.mean((jax.nn.gelu(x @ w1) @ w2 - y) ** 2)

    g1, g2 = jax.grad(loss, (0, 1))(w1, w2)
    m1 = 0.9 * m1 + 0.1 * g1
    m2 = 0.9 * m2 + 0.1 * g2
    return w1 - 1e-3 * m1 / (jnp.abs(m1) + 1e-8), w2 - 1e-3 * m2 / (jnp.abs(m2) + 1e-8), m1, m2


def cnn_pool_grad(x, k1, k2, w):
    def loss(k1, k2, w):
        h = jax.nn.relu(lax.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=NHWC))
        h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        h = jax.nn.relu(lax.conv_general_dilated(h, k2, (2, 2), "SAME", dimension_numbers=NHWC))
        return jnp.sum(h.mean((1, 2)) @ w)

    return jax.grad(loss, (0, 1, 2))(k1, k2, w)


def rnn_scan_grad(xs, w, u):
    def loss(w, u):
        _, hs = scan_rnn(xs, w, u)
        return jnp.sum(hs[-1] ** 2)

    return jax.grad(loss, (0, 1))(w, u)


def transformer_layer_grad(x, wqkv, wo, w1, w2):
    def loss(wqkv, wo, w1, w2):
        h = layer_norm(x, 1.0, 0.0)
        q, k, v = jnp.split(h @ wqkv, 3, -1)
        q, k, v = (t.reshape(8, 2, 8) for t in (q, k, v))
        a = jax.nn.softmax(jnp.einsum("qhd,khd->hqk", q, k) / 4.0, -1)
        h = x + jnp.einsum("hqk,khd->qhd", a, v).reshape(8, 16) @ wo
        return jnp.sum((h + jax.nn.relu(layer_norm(h, 1.0, 0.0) @ w1) @ w2) ** 2)

    return jax.grad(loss, (0, 1, 2, 3))(wqkv, wo, w1, w2)


def beam_step(scores, logits, k):
    """One step of beam search: top-k over beams x vocabulary, then the
    chosen beams' histories gathered."""
    total = (scores[:, None] + jax.nn.log_softmax(logits, -1)).reshape(-1)
    best, flat = lax.top_k(total, scores.shape[0])
    beam, tok = flat // logits.shape[1], flat % logits.shape[1]
    return best, k[beam].at[:, -1].set(tok)


def _normal(*shape, seed=0):
    return jax.random.normal(jax.random.PRNGKey(seed), shape)


def _ints(n, shape, seed=0):
    return jax.random.randint(jax.random.PRNGKey(seed), shape, 0, n)


PROGRAMS = [
    ("moe_topk_routing", moe_topk_routing, (_normal(8, 16), _normal(16, 4), _normal(4, 16, 8), _normal(4, 8, 16))),
    ("moe_gather_dispatch", moe_gather_dispatch, (_normal(8, 16), _normal(16, 4), _normal(4, 16, 8), _normal(4, 8, 16))),
    ("moe_scatter_combine", moe_scatter_combine, (_normal(8, 6), _ints(3, (8,)), _normal(8), _normal(3, 6, 5))),
    ("moe_grad", moe_grad, (_normal(6, 8), _normal(8, 3), _normal(3, 8, 4))),
    ("rotary_attention", rotary_attention, (_normal(8, 32), _normal(32, 32), _normal(32, 32), _normal(32, 32))),
    ("gqa_attention", gqa_attention, (_normal(2, 6, 32), _normal(32, 32), _normal(32, 8), _normal(32, 8))),
    ("gqa_repeat_kv", gqa_repeat_kv, (_normal(6, 16), _normal(16, 32), _normal(16, 8), _normal(16, 8))),
    ("kv_cache_decode", kv_cache_decode, (_normal(8, 2, 4), _normal(8, 2, 4), _normal(2, 4), _normal(2, 4), _normal(2, 4), jnp.int32(3))),
    ("attention_grad", attention_grad, (_normal(8, 8), _normal(8, 8), _normal(8, 8))),
    ("conv_depthwise", conv_depthwise, (_normal(1, 6, 6, 4), _normal(3, 3, 1, 4))),
    ("conv_feature_groups", conv_feature_groups, (_normal(2, 7, 5, 4), _normal(3, 2, 2, 6))),
    ("conv_batch_groups", conv_batch_groups, (_normal(4, 5, 5, 3), _normal(2, 2, 3, 6))),
    ("conv_dilations", conv_dilations, (_normal(1, 7, 8, 2), _normal(2, 3, 2, 3))),
    ("conv_transposed_1d", conv_transposed_1d, (_normal(2, 5, 3), _normal(4, 3, 2))),
    ("conv_nchw_3d", conv_nchw_3d, (_normal(1, 2, 4, 5, 3), _normal(3, 2, 2, 3, 1))),
    ("conv_grouped_grad", conv_grouped_grad, (_normal(2, 5, 5, 4), _normal(3, 3, 2, 6))),
    ("conv_depthwise_grad", conv_depthwise_grad, (_normal(2, 6, 6, 3), _normal(3, 3, 1, 3))),
    ("conv1d_stack_grad", conv1d_stack_grad, (_normal(2, 16, 3), [_normal(3, 3, 4), _normal(3, 4, 4), _normal(3, 4, 2)])),
    ("scan_rnn", scan_rnn, (_normal(5, 3), _normal(3, 4), _normal(4, 4))),
    ("scan_reverse_unrolled", scan_reverse_unrolled, (_normal(6, 3),)),
    ("cumulative_ops", cumulative_ops, (_normal(5, 6),)),
    ("associative_scan", associative_scan, (_normal(8, 5),)),
    ("fori_loop_update", fori_loop_update, (_normal(6, 2),)),
    ("while_newton", while_newton, (jnp.abs(_normal(5)) + 1.0,)),
    ("cond_branches", cond_branches, (jnp.bool_(True), _normal(3, 3), _normal(3, 3))),
    ("switch_branches", switch_branches, (jnp.int32(2), _normal(6))),
    ("nested_loop_cond", nested_loop_cond, (_normal(4),)),
    ("sort_keys_values", sort_keys_values, (_ints(3, (3, 6)), _normal(3, 6), _normal(3, 6))),
    ("argsort_stable", argsort_stable, (_normal(5, 4),)),
    ("top_k_batched", top_k_batched, (_normal(3, 2, 9),)),
    ("approx_max_k", approx_max_k, (_normal(4, 10),)),
    ("median_quantile", median_quantile, (_normal(7, 5),)),
    ("scatter_modes", scatter_modes, (_normal(6, 3), _ints(6, (4,)), _normal(4, 3))),
    ("scatter_2d_points", scatter_2d_points, (_normal(5, 6), _ints(5, (3,)), _ints(6, (3,)), _normal(3))),
    ("scatter_batched_vmap", scatter_batched_vmap, (_normal(3, 6, 2), _ints(6, (3, 4)), _normal(3, 4, 2))),
    ("segment_ops", segment_ops, (_normal(7, 3), _ints(4, (7,)))),
    ("histogram", histogram, (jax.random.uniform(jax.random.PRNGKey(2), (4, 5)) * 2.0,)),
    ("fft_complex", fft_complex, (_normal(4, 8), _normal(4, 8, seed=1))),
    ("fft_2d_real", fft_2d_real, (_normal(2, 6, 8),)),
    ("fft_convolve", fft_convolve, (_normal(3, 10), _normal(3, 4))),
    ("rng_threefry", rng_threefry, (jnp.uint32(7),)),
    ("rng_rbg", rng_rbg, (jnp.uint32(7),)),
    ("rng_unsafe_rbg", rng_unsafe_rbg, (jnp.uint32(7),)),
    ("dropout", dropout, (jnp.uint32(3), _normal(4, 6))),
    ("shard_psum", shard_psum, (_normal(8, 3),)),
    ("shard_all_gather", shard_all_gather, (_normal(8, 3),)),
    ("shard_psum_scatter", shard_psum_scatter, (_normal(8, 4),)),
    ("shard_all_to_all", shard_all_to_all, (_normal(8, 8),)),
    ("shard_ppermute", shard_ppermute, (_normal(8, 2),)),
    ("shard_data_parallel_grad", shard_data_parallel_grad, (_normal(4, 2), _normal(8, 4), _normal(8, 2))),
    ("shard_ring_matmul", shard_ring_matmul, (_normal(8, 4), _normal(4, 3))),
    ("layer_norm", layer_norm, (_normal(4, 8), _normal(8), _normal(8))),
    ("rms_norm_grad", rms_norm_grad, (_normal(4, 8), _normal(8))),
    ("group_norm", group_norm, (_normal(2, 3, 3, 4), _normal(4), _normal(4))),
    ("softmax_variants", softmax_variants, (_normal(3, 7),)),
    ("embedding_lookup", embedding_lookup, (_ints(20, (2, 5)), _normal(20, 8), _normal(5, 8))),
    ("embedding_grad", embedding_grad, (_ints(20, (2, 5)), _normal(20, 8))),
    ("cross_entropy_grad", cross_entropy_grad, (_normal(6, 10), _ints(10, (6,)))),
    ("mlp_adam_step", mlp_adam_step, (_normal(6, 8), _normal(8, 2), _normal(6, 8), _normal(8, 2), _normal(4, 6), _normal(4, 2))),
    ("cnn_pool_grad", cnn_pool_grad, (_normal(2, 8, 8, 3), _normal(3, 3, 3, 4), _normal(3, 3, 4, 4), _normal(4, 2))),
    ("rnn_scan_grad", rnn_scan_grad, (_normal(5, 3), _normal(3, 4), _normal(4, 4))),
    ("transformer_layer_grad", transformer_layer_grad, (_normal(8, 16), _normal(16, 48), _normal(16, 16), _normal(16, 32), _normal(32, 16))),
    ("beam_step", beam_step, (_normal(3), _normal(3, 7), _ints(7, (3, 4)))),
]


def main(out_dir, names=()):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name, f, args in PROGRAMS:
        if names and name not in names:
            continue
        lowered = jax.jit(f).lower(*args)
        (out / f"jax_{name}.hlo").write_text(lowered.as_text(dialect="hlo"))
        (out / f"jax_{name}.compiled.hlo").write_text(lowered.compile().as_text())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".", sys.argv[2:])
