"""What a hybrid script's own functions are when it runs as Python: numpy
arrays for its tensors, ``range`` for its loops (TVM's ``HYBRID_GLOBALS``).
"""

import contextlib as _contextlib
import math as _math

try:
    import numpy as _np
except ImportError:  # pragma: no cover - the emulation needs numpy
    _np = None


def _numpy():
    if _np is None:
        raise ImportError("running a hybrid script as Python needs numpy")
    return _np


def _zeros(shape, dtype="float32", scope="global"):
    return _numpy().zeros(shape, dtype=dtype)


def _bind(_tag, extent):
    return range(extent)


def _sigmoid(x):
    return 1 / (1 + _math.exp(-x))


def _rsqrt(x):
    return 1 / _math.sqrt(x)


def _popcount(x):
    return bin(int(x) & 0xFFFFFFFF).count("1")


def _max_num_threads(allow_none=True):
    from ... import target

    current = target.Target.current(allow_none=True)
    if current is None:
        return 1
    return current.max_num_threads


def _ceil_div(a, b):
    return (a + b - 1) // b


def _cast(name):
    def cast(x):
        return getattr(_numpy(), name)(x)

    cast.__name__ = name
    return cast


HYBRID_GLOBALS = {
    "unroll": range,
    "vectorize": range,
    "parallel": range,
    "const_range": range,
    "bind": _bind,
    "allocate": _zeros,
    "output_tensor": _zeros,
    "sqrt": lambda x: _numpy().sqrt(x),
    "rsqrt": _rsqrt,
    "log": lambda x: _numpy().log(x),
    "tanh": lambda x: _numpy().tanh(x),
    "power": lambda x, y: _numpy().power(x, y),
    "exp": lambda x: _numpy().exp(x),
    "sigmoid": _sigmoid,
    "popcount": _popcount,
    "round": round,
    "likely": lambda cond: cond,
    "ceil_div": _ceil_div,
    "max_num_threads": _max_num_threads,
}
for _name in (
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64",
):
    HYBRID_GLOBALS[_name] = _cast(_name)


@_contextlib.contextmanager
def hybrid_runtime(func):
    """Runs ``func`` with the hybrid functions among its globals, which are
    restored afterwards."""
    globs = func.__globals__
    missing = object()
    saved = {k: globs.get(k, missing) for k in HYBRID_GLOBALS}
    globs.update(HYBRID_GLOBALS)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is missing:
                globs.pop(k, None)
            else:
                globs[k] = v
