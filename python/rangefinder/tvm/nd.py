"""``tvm.nd``: arrays of values for built functions.

A numpy array passed here becomes the layer's array through
``array.tolist()`` with numpy's dtype; ``.numpy()`` gives a numpy array
back (nested lists when numpy is not installed)."""

from ._object import api, layer_getattr, to_plain

_array = api("tvm.nd.array")

__getattr__ = layer_getattr("tvm.nd")

__all__ = ["array", "empty"]


def array(arr, device=None, dtype=None, mem_scope=None):
    """``tvm.nd.array``: an array holding ``arr``'s values (a numpy array
    keeps its dtype)."""
    if dtype is None and type(arr).__module__ == "numpy":
        dtype = str(arr.dtype)
    keywords = {k: v for k, v in (("device", device), ("dtype", dtype)) if v is not None}
    return _array(to_plain(arr), **keywords)


def empty(shape, dtype="float32", device=None, mem_scope=None):
    """``tvm.nd.empty``: an array of zeros of ``shape``."""
    return api("tvm.nd.empty")(to_plain(shape), dtype)


def numpy_method(nd_array, values_of):
    """``nd_array.numpy``: the values (``values_of()``, the layer's nested
    lists) as a numpy array of the array's dtype, or the lists without
    numpy."""

    def numpy():
        values = values_of()
        try:
            import numpy as np
        except ImportError:
            return values
        return np.array(values, dtype=str(nd_array.dtype))

    return numpy
