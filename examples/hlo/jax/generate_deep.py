"""Prints the deep modules the whole-module benchmark reads, and the small
deep-CNN gradient the oracle tests read, from JAX programs.

Run with a Python that has JAX installed (not needed by the tests):

    python examples/hlo/jax/generate_deep.py crates/hlo/benches/modules examples/hlo

Into the first folder (the benchmark's, crates/hlo/benches/whole_module.rs):

- `deep_cnn_grad_<L>.hlo` for L = 4, 8, 16, 32: the gradient, with respect
  to every kernel and bias, of the sum of an L-layer 1-d CNN (`SAME`
  convolution of width 3, bias, relu on f32[2,32,8]), lowered. Every layer
  adds dataflow paths from the first kernel's gradient to the parameters.
- `transformer_grad_12.hlo` and `transformer_grad_12.compiled.hlo`: the
  gradient of a 12-layer pre-norm transformer (causal 4-head attention and a
  gelu MLP on f32[2,16,32]) with respect to every weight, lowered (about
  4,000 instructions) and compiled (about 28,000 lines of instructions with
  the fusion bodies).

Into the second folder: `jax_deep_cnn_grad.hlo`, the same CNN gradient at 10
layers on f32[1,6,1] with kernels of width 2, small enough for the tests'
interpreter to enumerate every map, and deep enough that the maps reaching
one value outgrow the analysis's budgets.

Files are written exactly as JAX prints them.
"""

import sys
from pathlib import Path

import jax
import jax.numpy as jnp
from jax import lax


def cnn_grad(params, x):
    def loss(params, x):
        for k, b in params:
            y = lax.conv_general_dilated(x, k, (1,), "SAME", dimension_numbers=("NWC", "WIO", "NWC"))
            x = jax.nn.relu(y + b)
        return x.sum()

    return jax.grad(loss)(params, x)


def cnn_args(layers, batch, width, channels, kernel=3):
    params = [(jnp.ones((kernel, channels, channels)), jnp.ones((channels,))) for _ in range(layers)]
    return params, jnp.ones((batch, width, channels))


def layer_norm(v, g, b):
    m = v.mean(-1, keepdims=True)
    s = ((v - m) ** 2).mean(-1, keepdims=True)
    return (v - m) * lax.rsqrt(s + 1e-5) * g + b


def transformer_layer(x, p):
    batch, seq, dim = x.shape
    heads = 4
    h = layer_norm(x, p["g1"], p["b1"])

    def split(w):
        return (h @ w).reshape(batch, seq, heads, dim // heads).transpose(0, 2, 1, 3)

    q, k, v = split(p["wq"]), split(p["wk"]), split(p["wv"])
    a = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(dim // heads)
    mask = jnp.tril(jnp.ones((seq, seq), bool))
    a = jax.nn.softmax(jnp.where(mask, a, -1e9), -1)
    o = jnp.einsum("bhqk,bhkd->bhqd", a, v).transpose(0, 2, 1, 3).reshape(batch, seq, dim)
    x = x + o @ p["wo"]
    return x + jax.nn.gelu(layer_norm(x, p["g2"], p["b2"]) @ p["w1"]) @ p["w2"]


def transformer_grad(params, x):
    def loss(params, x):
        for p in params:
            x = transformer_layer(x, p)
        return (x**2).mean()

    return jax.grad(loss)(params, x)


def transformer_args(layers, dim=32):
    def layer():
        return {
            "g1": jnp.ones(dim), "b1": jnp.zeros(dim),
            "wq": jnp.ones((dim, dim)), "wk": jnp.ones((dim, dim)),
            "wv": jnp.ones((dim, dim)), "wo": jnp.ones((dim, dim)),
            "g2": jnp.ones(dim), "b2": jnp.zeros(dim),
            "w1": jnp.ones((dim, 4 * dim)), "w2": jnp.ones((4 * dim, dim)),
        }

    return [layer() for _ in range(layers)], jnp.ones((2, 16, dim))


def main(bench_dir, examples_dir):
    bench = Path(bench_dir)
    bench.mkdir(parents=True, exist_ok=True)
    for layers in (4, 8, 16, 32):
        lowered = jax.jit(cnn_grad).lower(*cnn_args(layers, 2, 32, 8))
        (bench / f"deep_cnn_grad_{layers}.hlo").write_text(lowered.as_text(dialect="hlo"))
    lowered = jax.jit(transformer_grad).lower(*transformer_args(12))
    (bench / "transformer_grad_12.hlo").write_text(lowered.as_text(dialect="hlo"))
    (bench / "transformer_grad_12.compiled.hlo").write_text(lowered.compile().as_text())
    lowered = jax.jit(cnn_grad).lower(*cnn_args(10, 1, 6, 1, kernel=2))
    (Path(examples_dir) / "jax_deep_cnn_grad.hlo").write_text(lowered.as_text(dialect="hlo"))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
