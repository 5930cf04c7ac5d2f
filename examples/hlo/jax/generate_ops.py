"""Prints the HLO modules `examples/hlo/jax_ops_<name>.hlo` (lowered) and
`jax_ops_<name>.compiled.hlo` (compiled) from small JAX programs that use
the ops whose maps are not XLA's: sort (one and several operands, argsort),
top-k, FFTs, collectives under `shard_map` on one or two CPU devices, optimization
barriers and the `rbg` random bit generator.

Run with a Python that has JAX installed (not needed by the tests):

    python examples/hlo/jax/generate_ops.py examples/hlo [NAME ...]

The text is kept exactly as JAX prints it (see generate.py).
"""

import os
import sys
from pathlib import Path

# Two host devices, so that the collectives over two replicas print (over
# one device JAX elides an all-to-all); the one-device programs use the
# first only.
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=2")

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, PartitionSpec as P

try:
    from jax import shard_map as _shard_map

    def shard_map(f, mesh, in_specs, out_specs):
        return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs)
except ImportError:
    from jax.experimental.shard_map import shard_map as _shard_map

    def shard_map(f, mesh, in_specs, out_specs):
        return _shard_map(f, mesh, in_specs=in_specs, out_specs=out_specs)

f32 = jnp.float32
MESH = Mesh(np.array(jax.devices()[:1]), ("x",))
MESH2 = Mesh(np.array(jax.devices()[:2]), ("x",))


def sort_one(x):
    return jnp.sort(x, axis=0), jnp.sort(x, axis=1)


def sort_several(k, v, w):
    return lax.sort((k, v, w), dimension=1, num_keys=2)


def argsort(x):
    return jnp.argsort(x, axis=-1), jnp.argsort(x, axis=0, descending=True)


def top_k(x):
    return lax.top_k(x, 3)


def ffts(x, z):
    return jnp.fft.fft(z, axis=-1), jnp.fft.rfft(x, axis=-1), jnp.fft.fft2(z), jnp.fft.irfft(z, n=6)


def psum(x):
    return shard_map(lambda v: lax.psum(v, "x"), MESH, P("x"), P())(x)


def psum_scatter(x):
    return shard_map(lambda v: lax.psum_scatter(v, "x", scatter_dimension=0, tiled=True), MESH, P(), P("x"))(x)


def all_to_all_2(x):
    return shard_map(lambda v: lax.all_to_all(v, "x", 0, 1, tiled=True), MESH2, P("x"), P(None, "x"))(x)


def psum_scatter_2(x):
    return shard_map(lambda v: lax.psum_scatter(v, "x", scatter_dimension=0, tiled=True), MESH2, P(), P("x"))(x)


def ppermute_2(x):
    return shard_map(lambda v: lax.ppermute(v, "x", [(0, 1), (1, 0)]), MESH2, P("x"), P("x"))(x)


def ppermute(x):
    return shard_map(lambda v: lax.ppermute(v, "x", [(0, 0)]), MESH, P("x"), P("x"))(x)


def opt_barrier(x, y):
    a, b = lax.optimization_barrier((x * 2.0, y))
    return a + 1.0, b


def rbg(key):
    k1, k2 = jax.random.split(key)
    return jax.random.uniform(k1, (3, 4)), jax.random.bits(k2, (5,))


def _normal(*shape):
    return jax.random.normal(jax.random.PRNGKey(0), shape)


def _complex(*shape):
    return _normal(*shape) + 1j * _normal(*shape)



PROGRAMS = [
    ("sort_one", sort_one, lambda: (_normal(3, 4),), True),
    ("sort_several", sort_several, lambda: (_normal(3, 5), _normal(3, 5), _normal(3, 5)), True),
    ("argsort", argsort, lambda: (_normal(4, 5),), True),
    ("top_k", top_k, lambda: (_normal(2, 6),), True),
    ("fft", ffts, lambda: (_normal(2, 8), _complex(3, 4)), True),
    ("psum", psum, lambda: (_normal(4, 3),), True),
    ("psum_scatter", psum_scatter, lambda: (_normal(4, 3),), True),
    ("all_to_all_2", all_to_all_2, lambda: (_normal(4, 6),), True),
    ("psum_scatter_2", psum_scatter_2, lambda: (_normal(4, 3),), True),
    ("ppermute_2", ppermute_2, lambda: (_normal(4, 3),), True),
    ("ppermute", ppermute, lambda: (_normal(4, 3),), True),
    ("opt_barrier", opt_barrier, lambda: (_normal(3, 2), _normal(4)), True),
    ("rbg", rbg, None, True),
]


def main(out_dir, names=()):
    out = Path(out_dir)
    for name, f, args, compiled in PROGRAMS:
        if names and name not in names:
            continue
        if args is None:
            jax.config.update("jax_default_prng_impl", "rbg")
            args = lambda: (jax.random.PRNGKey(3),)
        lowered = jax.jit(f).lower(*args())
        (out / f"jax_ops_{name}.hlo").write_text(lowered.as_text(dialect="hlo"))
        if compiled:
            (out / f"jax_ops_{name}.compiled.hlo").write_text(lowered.compile().as_text())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".", sys.argv[2:])
