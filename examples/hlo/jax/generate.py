"""Prints the HLO modules under examples/hlo/ from small JAX programs.

Run with a Python that has JAX installed (not needed by the tests):

    python examples/hlo/jax/generate.py examples/hlo

Each program is written twice: as lowered (`jax_<name>.hlo`, the module
before XLA's optimisation) and, for some, as compiled
(`jax_<name>.compiled.hlo`, `jax.jit(f).lower(...).compile().as_text()`,
with XLA's fusions and the stack-frame sections JAX appends). The text is
kept exactly as JAX prints it.
"""

import sys
from pathlib import Path

import jax
import jax.numpy as jnp
from jax import lax

f32 = jnp.float32


def tuple_in_call(x, y):
    @jax.jit
    def inner(pair):
        a, b = pair
        return b[1:4] * 2.0

    return inner((x, y))


def take_along_axis(x, idx):
    return jnp.take_along_axis(x, idx, axis=1)


def scatter_add(x, idx, upd):
    return x.at[idx].add(upd)


def sort_rows(x):
    return jnp.sort(x, axis=1)


def top_k(x):
    return lax.top_k(x, 3)


def clz(x):
    return lax.clz(x)


def max_pool_grad(x):
    def pool(v):
        return lax.reduce_window(v, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID").sum()

    return jax.grad(pool)(x)


def scan_cumsum(x):
    def step(c, v):
        c = c + v
        return c, c * 2.0

    return lax.scan(step, jnp.zeros(x.shape[1:], x.dtype), x)


def while_loop(x):
    return lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * 2.0), (0, x))[1]


def dynamic_slice_in_fusion(x, i):
    return lax.dynamic_slice(x, (i, 0), (2, 4)) + 1.0


def conv_zero_features(x, k):
    return lax.conv_general_dilated(x, k, (1,), "SAME", dimension_numbers=("NWC", "WIO", "NWC"))


def transpose_reshape(x):
    for _ in range(6):
        x = x.T.reshape(x.shape)
    return x


PROGRAMS = [
    ("tuple_call", tuple_in_call, (jnp.ones(4, f32), jnp.ones(6, f32)), True),
    ("take_along_axis", take_along_axis, (jnp.ones((3, 5), f32), jnp.zeros((3, 2), jnp.int32)), True),
    ("scatter_add", scatter_add, (jnp.ones((6, 4), f32), jnp.array([1, 3], jnp.int32), jnp.ones((2, 4), f32)), True),
    ("sort", sort_rows, (jnp.ones((4, 8), f32),), True),
    ("top_k", top_k, (jnp.ones((4, 8), f32),), False),
    ("clz", clz, (jnp.ones((8,), jnp.int32),), True),
    ("max_pool_grad", max_pool_grad, (jnp.ones((1, 4, 4, 2), f32),), True),
    ("scan", scan_cumsum, (jnp.ones((5, 3), f32),), True),
    ("while", while_loop, (jnp.ones((3,), f32),), False),
    ("dynamic_slice", dynamic_slice_in_fusion, (jnp.ones((6, 4), f32), jnp.int32(1)), True),
    ("conv_zero_features", conv_zero_features, (jnp.ones((2, 3, 0), f32), jnp.ones((1, 0, 4), f32)), False),
    ("transpose_reshape", transpose_reshape, (jnp.ones((6, 4), f32),), True),
]


def main(out_dir):
    out = Path(out_dir)
    for name, f, args, compiled in PROGRAMS:
        lowered = jax.jit(f).lower(*args)
        (out / f"jax_{name}.hlo").write_text(lowered.as_text(dialect="hlo"))
        if compiled:
            (out / f"jax_{name}.compiled.hlo").write_text(lowered.compile().as_text())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
