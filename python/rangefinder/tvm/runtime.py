"""``tvm.runtime``: conversion of Python values to TVM objects."""

from .._native import constant

__all__ = ["convert"]


def convert(value):
    """Python ints become integer constants; containers are converted item
    by item; TVM objects are returned as they are."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return constant(value, None)
    if isinstance(value, dict):
        return {convert(k): convert(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [convert(v) for v in value]
    return value


