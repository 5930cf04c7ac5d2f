"""Prints the scatter, gather, loop and branch modules under examples/hlo/
(`jax_flow_<name>.hlo` lowered, `jax_flow_<name>.compiled.hlo` compiled),
small enough for the tests' interpreter to enumerate.

Run with a Python that has JAX installed (not needed by the tests):

    python examples/hlo/jax/generate_flow.py examples/hlo [NAME ...]

The text is kept exactly as JAX prints it.
"""

import sys
from pathlib import Path

import jax
import jax.numpy as jnp
from jax import lax

f32 = jnp.float32
i32 = jnp.int32


def scatter_set(x, idx, upd):
    return x.at[idx].set(upd)


def scatter_add_2d(x, idx, upd):
    return x.at[idx[:, 0], idx[:, 1]].add(upd)


def scatter_mul_rows(x, idx, upd):
    return x.at[idx].mul(upd)


def segment_sum(data, seg):
    return jax.ops.segment_sum(data, seg, num_segments=4)


def scatter_vmap(x, idx, upd):
    return jax.vmap(lambda a, i, u: a.at[i].set(u))(x, idx, upd)


def take(x, idx, r, c):
    return jnp.take(x, idx, axis=0), x[r, c]


def fori_passthrough(acc, x):
    def body(i, carry):
        a, xs = carry
        return a + xs[i], xs

    return lax.fori_loop(0, 3, body, (acc, x))


def while_accumulate(n, acc, x):
    def cond(c):
        return c[0] < n

    def body(c):
        i, a, xs = c
        return i + 1, a * 2.0 + jnp.flip(xs), xs

    return lax.while_loop(cond, body, (jnp.int32(0), acc, x))


def cond_pred(p, x):
    return lax.cond(p > 0, lambda v: v * 2.0, lambda v: jnp.flip(v), x)


def switch3(i, x, y):
    return lax.switch(
        i,
        [lambda a, b: a + b, lambda a, b: jnp.flip(a) * b, lambda a, b: b[::-1] - 1.0],
        x,
        y,
    )


PROGRAMS = [
    ("scatter_set", scatter_set, (jnp.ones((6, 3), f32), jnp.zeros((2,), i32), jnp.ones((2, 3), f32))),
    ("scatter_add_2d", scatter_add_2d, (jnp.ones((5, 4), f32), jnp.zeros((3, 2), i32), jnp.ones((3,), f32))),
    ("scatter_mul_rows", scatter_mul_rows, (jnp.ones((5, 3), f32), jnp.zeros((2, 2), i32), jnp.ones((2, 2, 3), f32))),
    ("segment_sum", segment_sum, (jnp.ones((6, 2), f32), jnp.zeros((6,), i32))),
    ("scatter_vmap", scatter_vmap, (jnp.ones((3, 5), f32), jnp.zeros((3, 2), i32), jnp.ones((3, 2), f32))),
    ("take", take, (jnp.ones((6, 4), f32), jnp.zeros((3,), i32), jnp.zeros((2,), i32), jnp.zeros((2,), i32))),
    ("fori_passthrough", fori_passthrough, (jnp.ones((4,), f32), jnp.ones((3, 4), f32))),
    ("while_accumulate", while_accumulate, (jnp.int32(3), jnp.ones((4,), f32), jnp.ones((4,), f32))),
    ("cond_pred", cond_pred, (jnp.int32(1), jnp.ones((5,), f32))),
    ("switch3", switch3, (jnp.int32(1), jnp.ones((4,), f32), jnp.ones((4,), f32))),
]


def main(out_dir, names=()):
    out = Path(out_dir)
    for name, f, args in PROGRAMS:
        if names and name not in names:
            continue
        lowered = jax.jit(f).lower(*args)
        (out / f"jax_flow_{name}.hlo").write_text(lowered.as_text(dialect="hlo"))
        (out / f"jax_flow_{name}.compiled.hlo").write_text(lowered.compile().as_text())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".", sys.argv[2:])
